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

// CapabilityError is a server's word that it lacks a capability a request needs: pictures
// (llama-server's HTTP 500 "image input is not supported", Ollama's 400 "… does not support
// images", a model whose /api/show lists no vision) or tools (Ollama's 400 "… does not support
// tools"). Every request needing it fails there, whatever is retried. It matches Missing
// (ErrNoPictures, ErrNoTools) with errors.Is.
type CapabilityError struct {
	Missing  error
	Endpoint string
	Status   int // 200: said by the server about itself, not answered to a request
	Message  string
}

func (e *CapabilityError) Error() string {
	if e.Status == http.StatusOK {
		return fmt.Sprintf("%v: %s: %s", e.Missing, e.Endpoint, e.Message)
	}
	return fmt.Sprintf("%v: %s answered HTTP %d: %s", e.Missing, e.Endpoint, e.Status, e.Message)
}

// Is makes errors.Is(err, e.Missing) true.
func (e *CapabilityError) Is(target error) bool { return target == e.Missing }

// permanentWords match a 5xx message saying the request can never succeed on this server, so
// that retrying it only costs time.
var permanentWords = regexp.MustCompile(`(?i)not supported|unsupported|not implemented|does not support|not enabled|you may need to provide the mmproj`)

// pictureWords match a message that names pictures (or the projector that reads them).
var pictureWords = regexp.MustCompile(`(?i)\bimage|picture|vision|multimodal|mmproj|\bmtmd`)

// pictureNotLoaded matches a 5xx message saying the server could not load one picture of the
// request (llama-server's "Failed to load image or audio file": a format its build cannot decode,
// such as WebP without ffmpeg): the server takes pictures, only not this one.
var pictureNotLoaded = regexp.MustCompile(`(?i)failed to (load|decode|read|process) (the )?(image|picture)`)

// pictureRejected says whether a 5xx answer refuses one picture of this request, which fails
// the request (the arm of that case) but says nothing against the server or other requests.
func pictureRejected(status int, msg string) bool {
	return status >= 500 && pictureNotLoaded.MatchString(msg)
}

// permanentFailure classifies a 5xx answer: a *CapabilityError (ErrNoPictures) when the message says pictures
// are not taken, a *StatusError marked permanent when it says the request cannot succeed, and
// nil when a retry may help (a model loading, an overload, a crash).
func permanentFailure(ep *endpoint, path string, status int, msg string) error {
	if status < 500 || !permanentWords.MatchString(msg) {
		return nil
	}
	if pictureWords.MatchString(msg) {
		return ep.lacks(ErrNoPictures, status, msg)
	}
	return &StatusError{Endpoint: ep.display, Path: path, Status: status, Message: msg}
}

// health is what the engine learnt about an endpoint while talking to it.
type health struct {
	// lacking holds the server's first word on each capability it lacks (ErrNoPictures,
	// ErrNoTools), nil until it said one.
	lacking map[error]*CapabilityError
	// streak is the run of failed attempts with the same fault; it opens the circuit.
	streak streak
}

// lacks records that the server lacks the capability missing (its first word on it is kept)
// and returns that word.
func (e *endpoint) lacks(missing error, status int, msg string) *CapabilityError {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.health.lacking[missing]; r != nil {
		return r
	}
	if e.health.lacking == nil {
		e.health.lacking = map[error]*CapabilityError{}
	}
	r := &CapabilityError{Missing: missing, Endpoint: e.display, Status: status, Message: msg}
	e.health.lacking[missing] = r
	return r
}

// lacking returns the server's word that it lacks the capability missing, or nil.
func (e *endpoint) lacking(missing error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.health.lacking[missing]; r != nil {
		return r
	}
	return nil
}
