package engine

import (
	"errors"
	"fmt"
	"regexp"
	"syscall"
)

// ErrNoPictures says a server cannot take pictures (a text-only model, llama-server without
// --mmproj): every request with a picture fails there, whatever is retried.
var ErrNoPictures = errors.New("the server does not take pictures")

// ErrServerGone says a server stopped answering: connections to it are refused.
var ErrServerGone = errors.New("the server is gone")

// goneAfter is how many consecutive refused connections to an endpoint mark it gone.
const goneAfter = 3

// NoPicturesError is a server's answer that it takes no picture input (llama-server's HTTP
// 500 "image input is not supported"). It matches ErrNoPictures with errors.Is.
type NoPicturesError struct {
	Endpoint string
	Status   int
	Message  string
}

func (e *NoPicturesError) Error() string {
	return fmt.Sprintf("%v: %s answered HTTP %d: %s", ErrNoPictures, e.Endpoint, e.Status, e.Message)
}

// Is makes errors.Is(err, ErrNoPictures) true.
func (e *NoPicturesError) Is(target error) bool { return target == ErrNoPictures }

// permanentWords match a 5xx message saying the request can never succeed on this server, so
// that retrying it only costs time.
var permanentWords = regexp.MustCompile(`(?i)not supported|unsupported|not implemented|does not support|not enabled|you may need to provide the mmproj`)

// pictureWords match a message that names pictures (or the projector that reads them).
var pictureWords = regexp.MustCompile(`(?i)\bimage|picture|vision|multimodal|mmproj|\bmtmd`)

// permanentFailure classifies a 5xx answer: a *NoPicturesError when the message says pictures
// are not taken, a *StatusError marked permanent when it says the request cannot succeed, and
// nil when a retry may help (a model loading, an overload, a crash).
func permanentFailure(ep *endpoint, path string, status int, msg string) error {
	if status < 500 || !permanentWords.MatchString(msg) {
		return nil
	}
	if pictureWords.MatchString(msg) {
		return ep.markNoPictures(&NoPicturesError{Endpoint: ep.display, Status: status, Message: msg})
	}
	return &StatusError{Endpoint: ep.display, Path: path, Status: status, Message: msg}
}

// health is what the engine learnt about an endpoint while talking to it.
type health struct {
	// noPictures holds the server's answer to a picture (nil until it refused one).
	noPictures *NoPicturesError
	// refusedStreak counts connections refused in a row; gone is set once it reaches goneAfter.
	refusedStreak int
	gone          bool
}

// markNoPictures records the server's first refusal of a picture and returns refusal.
func (e *endpoint) markNoPictures(refusal *NoPicturesError) *NoPicturesError {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.health.noPictures == nil {
		e.health.noPictures = refusal
	}
	return refusal
}

// takesNoPictures returns the server's refusal of pictures, or nil.
func (e *endpoint) takesNoPictures() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.health.noPictures == nil {
		return nil
	}
	return e.health.noPictures
}

// answered records that the server answered (any HTTP status): it is there.
func (e *endpoint) answered() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.health.refusedStreak = 0
}

// lost records a failed connection; a refused one counts toward marking the endpoint gone.
func (e *endpoint) lost(err error) {
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.health.refusedStreak++
	if e.health.refusedStreak >= goneAfter {
		e.health.gone = true
	}
}

// goneErr returns an error matching ErrServerGone once the endpoint is gone, else nil.
func (e *endpoint) goneErr() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.health.gone {
		return nil
	}
	return fmt.Errorf("%s: %w (connection refused %d times in a row): request not sent", e.display, ErrServerGone, e.health.refusedStreak)
}
