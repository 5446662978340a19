package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// ErrServerFailing says a server answered several requests in a row with the same fault (the
// same HTTP status, the same transport error, the same invalid answer): the run stops rather
// than send every case to it.
var ErrServerFailing = errors.New("the server keeps failing")

// tripAfter is how many failed attempts in a row, with the same fault and from at least two
// requests, open an endpoint's circuit.
const tripAfter = 3

// maxServerCount is the largest count accepted from a server when the caller gives no bound
// of its own: no model's context comes near 2^28 tokens.
const maxServerCount = 1 << 28

// Body caps per endpoint kind: a count is a small JSON object, /props carries a chat template,
// a completion grows with its answer.
const (
	maxCountBody = 64 << 10
	maxPropsBody = 4 << 20
)

// maxHeaderBytes caps a response head (status line and headers).
const maxHeaderBytes = 64 << 10

// maxAnswerBody caps a completion's body: a fixed allowance plus 64 bytes per answer token.
func maxAnswerBody(maxTokens int) int64 { return 1<<20 + 64*int64(maxTokens) }

// CircuitError says an endpoint's circuit is open: the same fault repeated (or the server went
// away and did not come back within the wait), so no more requests are sent to it. It matches
// ErrServerGone (connections refused) or ErrServerFailing with errors.Is.
type CircuitError struct {
	Endpoint string
	// Fault is the last failure seen; Times how many attempts in a row failed with it.
	Fault error
	Times int
	// Gone says the server refused connections (it went away) rather than answered badly;
	// Never that it refused them before it ever answered (nothing listens there).
	Gone, Never bool
}

func (e *CircuitError) Error() string {
	if e.Gone && e.Never {
		return fmt.Sprintf("%s: nothing listens there (connection refused %d time(s), no answer yet): request not sent", e.Endpoint, e.Times)
	}
	if e.Gone {
		return fmt.Sprintf("%s: %v (connection refused %d times in a row): request not sent", e.Endpoint, ErrServerGone, e.Times)
	}
	return fmt.Sprintf("%v (%d attempts in a row): %v", ErrServerFailing, e.Times, e.Fault) // the fault names the endpoint
}

// Is makes errors.Is match ErrServerGone or ErrServerFailing.
func (e *CircuitError) Is(target error) bool {
	return (e.Gone && target == ErrServerGone) || (!e.Gone && target == ErrServerFailing)
}

// RedirectError is a 3xx answer: the engine talks to the endpoint it was given and to nothing
// else, so a redirect is never followed.
type RedirectError struct {
	From, To string
	Status   int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirects (HTTP %d) to %s: redirects are not followed; give the server's own URL as --endpoint", e.From, e.Status, e.To)
}

// FaultError is a request a server failed: an HTTP error, a transport error, a deadline, a
// redirect, an invalid answer, an open circuit. The inputs are not at fault.
type FaultError struct{ Err error }

func (e *FaultError) Error() string { return e.Err.Error() }
func (e *FaultError) Unwrap() error { return e.Err }

// IsServerFault says whether err is (or wraps) a request a server failed.
func IsServerFault(err error) bool {
	var f *FaultError
	return errors.As(err, &f)
}

// InvalidAnswerError is an answer that cannot be used: not JSON, without its count, a count
// that is negative or out of all proportion. It is never cached.
type InvalidAnswerError struct {
	Endpoint, Path string
	Reason         string
}

func (e *InvalidAnswerError) Error() string {
	return fmt.Sprintf("%s%s: invalid answer: %s", e.Endpoint, e.Path, e.Reason)
}

// deadlineError is a request cut short by one of its deadlines.
type deadlineError struct{ what string }

func (e *deadlineError) Error() string { return e.what }
func (e *deadlineError) Timeout() bool { return true }

// streak is the run of failed attempts with the same fault at one endpoint.
type streak struct {
	signature string
	last      error
	attempts  int
	requests  map[uint64]int // attempts per request
	since     time.Time
	open      *CircuitError
}

// faultSignature names a failure so that the same fault repeated is recognised: an HTTP
// status, a kind of transport error, a redirect, an invalid answer.
func faultSignature(err error) string {
	var se *StatusError
	var re *RedirectError
	var ie *InvalidAnswerError
	var de *deadlineError
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &se):
		return "HTTP " + strconv.Itoa(se.Status)
	case errors.As(err, &re):
		return "redirect"
	case errors.As(err, &ie):
		return "invalid answer"
	case errors.As(err, &de):
		return de.what
	case errors.Is(err, syscall.ECONNREFUSED):
		return sigRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return sigClosed
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "transport error"
}

const (
	sigRefused = "connection refused"
	sigClosed  = "connection closed"
)

// waited says whether a fault is a server away, starting or rate-limiting (refused
// connections, 503, 429): the circuit opens only once it has lasted the server wait.
func waited(sig string) bool {
	return sig == sigRefused || sig == "HTTP 503" || sig == "HTTP 429"
}

// retriedPastLimit says whether a request keeps retrying a fault beyond --retries, until the
// circuit opens: a server away or starting may come back.
func retriedPastLimit(sig string) bool { return sig == sigRefused || sig == "HTTP 503" }

// fault records a failed attempt of request id and returns the open circuit when this
// attempt opened it (or it was open already). The circuit opens after tripAfter attempts in a
// row with the same fault from at least two requests; a fault that is waited for opens it only
// once it has lasted wait; a closed connection, which a server restarting also gives, only
// once a retry met it again.
func (e *endpoint) fault(id uint64, err error, wait time.Duration) *CircuitError {
	sig := faultSignature(err)
	e.mu.Lock()
	defer e.mu.Unlock()
	s := &e.health.streak
	if s.open != nil {
		return s.open
	}
	if s.signature != sig {
		*s = streak{signature: sig, requests: map[uint64]int{}, since: time.Now()}
	}
	s.last = err
	s.attempts++
	s.requests[id]++
	repeated := false
	for _, n := range s.requests {
		repeated = repeated || n > 1
	}
	trip := s.attempts >= tripAfter
	switch {
	case waited(sig):
		trip = (trip || wait <= 0) && time.Since(s.since) >= wait
	case sig == sigClosed:
		trip = trip && len(s.requests) >= 2 && repeated
	default:
		trip = trip && len(s.requests) >= 2
	}
	if trip {
		s.open = &CircuitError{Endpoint: e.display, Fault: err, Times: s.attempts, Gone: sig == sigRefused, Never: !e.heard.Load()}
		e.cancelDown()
		return s.open
	}
	return nil
}

// answered records an answer that could be used: the server is there and well.
func (e *endpoint) answered() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.health.streak.open == nil {
		e.health.streak = streak{}
	}
}

// circuitErr returns the endpoint's open circuit, or nil.
func (e *endpoint) circuitErr() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.health.streak.open == nil {
		return nil
	}
	return e.health.streak.open
}

// checkCount validates a count a server reported: a JSON integer, not negative, not above
// limit.
func checkCount(raw json.RawMessage, field string, limit int) (int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, fmt.Errorf("no %s in the answer", field)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is %.40s, not a whole number", field, raw)
	}
	return checkCountValue(n, field, limit)
}

// checkCountValue bounds a count: 0 ≤ n ≤ limit (maxServerCount when limit is 0).
func checkCountValue(n int64, field string, limit int) (int, error) {
	if limit <= 0 {
		limit = maxServerCount
	}
	switch {
	case n < 0:
		return 0, fmt.Errorf("%s %d is negative", field, n)
	case n > int64(limit):
		return 0, fmt.Errorf("%s %d is implausible (more than %d)", field, n, limit)
	}
	return int(n), nil
}

// idleReader cuts a body short when no byte arrives for idle: each Read arms the timer.
type idleReader struct {
	r     io.Reader
	idle  time.Duration
	timer *time.Timer
}

func (r *idleReader) Read(p []byte) (int, error) {
	r.timer.Reset(r.idle)
	n, err := r.r.Read(p)
	r.timer.Stop()
	return n, err
}

// readBody reads at most limit bytes of resp's body, cutting it short (through cancel) when it
// stays silent for the idle deadline.
func readBody(resp *http.Response, limit int64, idle time.Duration, cancel context.CancelCauseFunc) ([]byte, error) {
	t := time.AfterFunc(idle, func() {
		cancel(&deadlineError{fmt.Sprintf("no byte of the answer for %v", idle)})
	})
	t.Stop()
	defer t.Stop()
	data, err := io.ReadAll(io.LimitReader(&idleReader{r: resp.Body, idle: idle, timer: t}, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("answer larger than %d bytes", limit)
	}
	return data, nil
}

// watch asks the server's /health every half WaitNote while a request waits: a server that
// does not answer it within the count deadline (stalled), or refuses the connection (shutting
// down), will not answer the request either, which is cut short. Once the request has waited
// WaitNote, Notes hears of it. It returns when stop is closed.
func (h *HTTP) watch(ctx context.Context, ep *endpoint, path string, start time.Time, cancel context.CancelCauseFunc, stop <-chan struct{}) {
	t := time.NewTicker(h.cfg.WaitNote / 2)
	defer t.Stop()
	probed := make(chan error, 1) // the probe ends with ctx, which ends when the attempt does
	probing := false
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case err := <-probed:
			probing = false
			if err != nil {
				cancel(&deadlineError{fmt.Sprintf("the server does not answer: %v", err)})
				return
			}
		case <-t.C:
			if waited := time.Since(start); waited >= h.cfg.WaitNote {
				h.noteWaiting(ep, path, waited)
			}
			if !probing {
				probing = true
				go func() { probed <- h.probe(ctx, ep) }()
			}
		}
	}
}

// noteWaiting prints one line about a long wait, at most one every WaitNote over the engine.
func (h *HTTP) noteWaiting(ep *endpoint, path string, waited time.Duration) {
	if h.cfg.Notes == nil {
		return
	}
	h.noteMu.Lock()
	defer h.noteMu.Unlock()
	if time.Since(h.lastNote) < h.cfg.WaitNote {
		return
	}
	h.lastNote = time.Now()
	round := time.Second
	if waited < 10*time.Second {
		round = 100 * time.Millisecond
	}
	fmt.Fprintf(h.cfg.Notes, "strata-eval: waiting %v for %s%s\n", waited.Round(round), ep.display, path)
}

// probe asks GET the protocol's health path on a connection of its own: any HTTP answer says the server is
// there (busy or not); silence past the count deadline, or a transport error, says it is not.
func (h *HTTP) probe(ctx context.Context, ep *endpoint) error {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.CountTimeout)
	defer cancel()
	path := h.proto.HealthPath()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.base+path, nil)
	if err != nil {
		return err
	}
	req.Close = true
	resp, err := h.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("GET %s unanswered for %v", path, h.cfg.CountTimeout)
		}
		return unwrapURLError(err)
	}
	resp.Body.Close()
	return nil
}
