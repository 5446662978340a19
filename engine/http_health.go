package engine

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
)

// ErrNoPictures says a server cannot take pictures (a text-only model, llama-server without
// --mmproj): every request with a picture fails there, whatever is retried.
var ErrNoPictures = errors.New("the server does not take pictures")

// ErrServerGone says a server stopped answering: connections to it are refused, and it did not
// come back within the wait.
var ErrServerGone = errors.New("the server is gone")

// NoPicturesError is a server's answer that it takes no picture input (llama-server's HTTP
// 500 "image input is not supported"). It matches ErrNoPictures with errors.Is.
type NoPicturesError struct {
	Endpoint string
	Status   int
	Message  string
}

func (e *NoPicturesError) Error() string {
	if e.Status == http.StatusOK {
		return fmt.Sprintf("%v: %s: %s", ErrNoPictures, e.Endpoint, e.Message) // said, not answered to a picture
	}
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
	// noTools holds the server's answer to a request declaring tools (nil until it refused one).
	noTools *NoToolsError
	// streak is the run of failed attempts with the same fault; it opens the circuit.
	streak streak
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
