package testserver

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Faults a FaultServer injects, one at a time.
const (
	FaultRedirect302   = "redirect-302"   // 302 to another host
	FaultRedirect307   = "redirect-307"   // 307 to another host (a client that follows resends the body)
	FaultNegativeCount = "negative-count" // counts of -5
	FaultHugeCount     = "huge-count"     // counts of 10^15
	FaultMissingCount  = "missing-count"  // 200 answers without their count
	FaultPropsBusy     = "props-busy"     // /props answers 429 and 503 every time
	FaultNeverAnswer   = "never-answer"   // the connection is accepted and never answered
	FaultTrickle       = "trickle"        // a 200 whose body comes one byte a second
	FaultCloseEmpty    = "close-empty"    // the connection is closed without a byte
	Fault500           = "http-500"       // HTTP 500
	Fault429           = "http-429"       // HTTP 429 with Retry-After: 1, every time
	FaultInvalidJSON   = "invalid-json"   // a 200 that is not JSON
	FaultTruncated     = "truncated"      // a 200 whose body stops halfway (Content-Length promises more)
	FaultHugeHeader    = "huge-header"    // a 16 MiB header
	FaultHugeBody      = "huge-body"      // a 2 GB body
	FaultRestart       = "restart"        // the server is killed and listens again RestartAfter later
)

// Faults lists every fault a FaultServer injects.
var Faults = []string{FaultRedirect302, FaultRedirect307, FaultNegativeCount, FaultHugeCount, FaultMissingCount,
	FaultPropsBusy, FaultNeverAnswer, FaultTrickle, FaultCloseEmpty, Fault500, Fault429, FaultInvalidJSON,
	FaultTruncated, FaultHugeHeader, FaultHugeBody, FaultRestart}

// FaultConfig configures a FaultServer.
type FaultConfig struct {
	// Server is the healthy server's configuration (its Counter is required).
	Server Config
	// Fault is the fault injected (one of Faults).
	Fault string
	// After is how many POST requests are answered healthily before the fault begins.
	After int
	// RestartAfter is how long a FaultRestart server stays down.
	RestartAfter time.Duration
}

// FaultServer is a Server that injects one fault, for the tests of how the http engine
// and a run behave against a faulty server. The fault can be turned off (Heal) so that the
// same URL then answers healthily, as a server fixed and a run resumed.
type FaultServer struct {
	URL string
	// Other is the host the redirects point to; it counts what it receives.
	Other *Server

	cfg     FaultConfig
	healthy *Server
	posts   atomic.Int64
	healed  atomic.Bool
	faulted atomic.Int64
	ln      net.Listener
	srv     *http.Server
	mu      sync.Mutex
	closed  bool
	stop    chan struct{}
}

// NewFaultServer starts a FaultServer on loopback; Close stops it.
func NewFaultServer(cfg FaultConfig) (*FaultServer, error) {
	f := &FaultServer{cfg: cfg, healthy: New(cfg.Server), stop: make(chan struct{})}
	f.Other = New(Config{Counter: cfg.Server.Counter, InputTokens: true, Props: true, Context: 1 << 20})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.healthy.Close()
		f.Other.Close()
		return nil, err
	}
	f.URL = "http://" + ln.Addr().String()
	f.serve(ln)
	return f, nil
}

func (f *FaultServer) serve(ln net.Listener) {
	f.ln = ln
	f.srv = &http.Server{Handler: http.HandlerFunc(f.handle), ReadHeaderTimeout: 10 * time.Second}
	go func(srv *http.Server) { _ = srv.Serve(ln) }(f.srv)
}

// Heal turns the fault off: every later request is answered healthily.
func (f *FaultServer) Heal() { f.healed.Store(true) }

// Faulted is how many requests the fault was injected into.
func (f *FaultServer) Faulted() int { return int(f.faulted.Load()) }

// Healthy is the server that answers healthily (its Requests count what reached it).
func (f *FaultServer) Healthy() *Server { return f.healthy }

// Close stops the server, the healthy one behind it and the redirect target.
func (f *FaultServer) Close() {
	f.mu.Lock()
	if !f.closed {
		f.closed = true
		close(f.stop)
		_ = f.srv.Close()
	}
	f.mu.Unlock()
	f.healthy.Close()
	f.Other.Close()
}

// kill stops listening and drops every connection, then listens on the same address again
// after RestartAfter.
func (f *FaultServer) kill() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	addr := f.ln.Addr().String()
	_ = f.srv.Close()
	go func() {
		select {
		case <-time.After(f.cfg.RestartAfter):
		case <-f.stop:
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.closed {
			return
		}
		if ln, err := net.Listen("tcp", addr); err == nil {
			f.Heal()
			f.serve(ln)
		}
	}()
}

// faulty says whether r gets the fault.
func (f *FaultServer) faulty(r *http.Request) bool {
	if f.healed.Load() {
		return false
	}
	if f.cfg.Fault == FaultPropsBusy {
		return r.URL.Path == "/props"
	}
	if r.Method != http.MethodPost {
		// a stalled server answers nothing, /health included
		return f.cfg.Fault == FaultNeverAnswer && f.posts.Load() > int64(f.cfg.After)
	}
	return f.posts.Add(1) > int64(f.cfg.After)
}

func (f *FaultServer) handle(w http.ResponseWriter, r *http.Request) {
	if !f.faulty(r) {
		f.healthy.Config.Handler.ServeHTTP(w, r)
		return
	}
	f.faulted.Add(1)
	switch f.cfg.Fault {
	case FaultRedirect302, FaultRedirect307:
		code := http.StatusFound
		if f.cfg.Fault == FaultRedirect307 {
			code = http.StatusTemporaryRedirect
		}
		http.Redirect(w, r, f.Other.URL+r.URL.Path, code)
	case FaultNegativeCount, FaultHugeCount, FaultMissingCount:
		rec := httptest.NewRecorder()
		f.healthy.Config.Handler.ServeHTTP(rec, r)
		writeRaw(w, rec.Code, rewriteCounts(rec.Body.Bytes(), f.cfg.Fault))
	case FaultPropsBusy:
		status := http.StatusServiceUnavailable
		if f.faulted.Load()%2 == 1 {
			status = http.StatusTooManyRequests
		}
		w.Header().Set("Retry-After", "0")
		writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": "busy"}})
	case FaultNeverAnswer:
		select {
		case <-r.Context().Done():
		case <-f.stop:
		}
	case FaultTrickle:
		f.trickle(w, r)
	case FaultCloseEmpty, FaultTruncated:
		closeConnection(w, f.cfg.Fault == FaultTruncated)
	case Fault500:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"code": 500, "message": "llama_decode failed", "type": "server_error"}})
	case Fault429:
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"code": 429, "message": "rate limited"}})
	case FaultInvalidJSON:
		writeRaw(w, http.StatusOK, []byte("<html>upstream error</html>"))
	case FaultHugeHeader:
		w.Header().Set("X-Padding", strings.Repeat("a", 16<<20))
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 1})
	case FaultHugeBody:
		writeHugeBody(w)
	case FaultRestart:
		f.kill()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	default:
		f.healthy.Config.Handler.ServeHTTP(w, r)
	}
}

// trickle answers a byte a second, until the request or the server ends (FaultTrickle).
func (f *FaultServer) trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for _, b := range []byte(`{"input_tokens":123,"usage":{"prompt_tokens":123},"choices":[{"message":{"content":"x"}}]}`) {
		_, _ = w.Write([]byte{b})
		w.(http.Flusher).Flush()
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
			return
		case <-f.stop:
			return
		}
	}
}

// closeConnection closes the connection without an answer (FaultCloseEmpty), or after the head
// of one and the first bytes of its body (truncated: FaultTruncated).
func closeConnection(w http.ResponseWriter, truncated bool) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if truncated {
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"input_tokens\": 12")
		_ = buf.Flush()
	}
	_ = conn.Close()
}

// writeHugeBody answers a body of 2 GB (FaultHugeBody), until the client stops reading.
func writeHugeBody(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "2000000000")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"input_tokens":1,"pad":"`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 2000 {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// rewriteCounts replaces (or drops) the counts of a healthy answer.
func rewriteCounts(body []byte, fault string) []byte {
	var v map[string]any
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	set := func(m map[string]any, k string) {
		if _, ok := m[k]; !ok {
			return
		}
		switch fault {
		case FaultNegativeCount:
			m[k] = -5
		case FaultHugeCount:
			m[k] = int64(1e15)
		default:
			delete(m, k)
		}
	}
	set(v, "input_tokens")
	if u, ok := v["usage"].(map[string]any); ok {
		set(u, "prompt_tokens")
	}
	if t, ok := v["timings"].(map[string]any); ok && fault == FaultMissingCount {
		delete(t, "prompt_n")
		delete(t, "cache_n")
	}
	out, _ := json.Marshal(v)
	return out
}
