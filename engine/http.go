package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// Counting methods of the HTTP engine, in the order "auto" tries them.
const (
	CountInputTokens = "input_tokens" // POST …/input_tokens or /v1/messages/count_tokens: no generation
	CountTokenize    = "tokenize"     // vLLM's POST /tokenize with the chat messages
	CountUsage       = "usage"        // a one-token completion's usage.prompt_tokens
)

// DefaultAPIKeyEnv is the environment variable the API key is read from by default.
const DefaultAPIKeyEnv = "STRATA_EVAL_API_KEY"

// HTTPConfig configures the HTTP engine.
type HTTPConfig struct {
	// Endpoints are server base URLs (http://127.0.0.1:8080, with or without /v1); requests
	// are spread over them in turn.
	Endpoints []string
	// API names the protocol (ProtocolNames; openai when empty).
	API string
	// Model is the model name sent with every request ("default" when empty).
	Model string
	// APIKeyEnv names the environment variable holding the API key (DefaultAPIKeyEnv when
	// empty); Getenv reads it (os.Getenv when nil). The key is sent only as a header.
	APIKeyEnv string
	Getenv    func(string) string
	// Timeout bounds one answer generation (5 minutes when zero).
	Timeout time.Duration
	// CountTimeout bounds a request to a counting endpoint (input_tokens, /tokenize) or /props,
	// head and body (10 s when zero): counting does not generate.
	CountTimeout time.Duration
	// IdleTimeout cuts short a body that stays silent that long (10 s when zero).
	IdleTimeout time.Duration
	// ServerWait is how long a server that refuses connections, answers 503 or 429 is waited
	// for before the run gives up on it (10 s when zero).
	ServerWait time.Duration
	// StartWait is how long a server that has not answered yet is waited for while it refuses
	// connections (0: not at all, the first refused connection says nothing listens there).
	StartWait time.Duration
	// WaitNote is how long a request waits before Notes hears of it, and before the server's
	// /health is asked whether it is still there (10 s when zero).
	WaitNote time.Duration
	// Notes receives the lines about long waits (nil: none).
	Notes io.Writer
	// MaxRetries is how often a 429, a 5xx or a transport error is retried (3 when zero; -1
	// for none); Backoff is the first wait, doubled each retry (500 ms when zero).
	MaxRetries int
	Backoff    time.Duration
	// Concurrency caps the requests in flight over all endpoints (4 when zero).
	Concurrency int
	// MaxTokens caps an answer's length (256 when zero).
	MaxTokens int
	// Count is the counting method: auto (default), input_tokens, tokenize or usage.
	Count string
	// NumCtx is the context the server is asked to run the model with, where the protocol
	// sends one (Protocol.SendsContext: Ollama's options.num_ctx; 0: the model's own setting or
	// the server's default).
	NumCtx int
	// NoRowSplit turns off measuring image rows as the difference between the prompt with
	// its pictures and without them (one more count per request with pictures).
	NoRowSplit bool
	// Cache stores responses (nil: none).
	Cache *Cache
	// KeySettings are the client settings that change a count (the template, its date, the
	// image-token limits): they are part of every cache key.
	KeySettings []string
	// Client is the HTTP client (a plain one when nil).
	Client *http.Client
}

// HTTP counts and answers requests with OpenAI-compatible (or Anthropic Messages) servers.
type HTTP struct {
	cfg       HTTPConfig
	proto     Protocol
	endpoints []*endpoint
	next      atomic.Uint64
	sem       chan struct{}
	key       string
	client    *http.Client
	// ids numbers the requests, for the circuit; lastNote throttles the waiting lines.
	ids      atomic.Uint64
	ident    serverKey
	noteMu   sync.Mutex
	lastNote time.Time
}

// endpoint is one server and what it was found to support.
type endpoint struct {
	base    string // scheme://host[:port][/prefix], without a trailing /v1
	display string // base with any user info redacted, for messages
	mu      sync.Mutex
	// unsupported marks counting methods the server answered 404/405/501 (or an unusable
	// body) to.
	unsupported map[string]bool
	// counted marks counting methods the server answered with a count: an answer without one
	// is then a fault, not a sign of another kind of server.
	counted map[string]bool
	// health says whether the server takes pictures and whether it is still there.
	health health
	// heard says a connection to the server was made once: a connection refused before then says
	// nothing listens there (unless StartWait waits for it), not that it went away.
	heard atomic.Bool
	// down is cancelled when the circuit opens: the requests still in flight are cut short.
	down       context.Context
	cancelDown context.CancelFunc
}

// ServerCount is a count reported by a server, with how it was obtained.
type ServerCount struct {
	Count
	// Method is the counting method of the total (input_tokens, tokenize, usage).
	Method string
	// Endpoint is the server that counted (user info redacted).
	Endpoint string
	// Timings are llama.cpp's timings when the count came from a completion.
	Timings *Timings
}

// ServerCounter is an engine whose counts come from a server.
type ServerCounter interface {
	ServerCount(ctx context.Context, req Request) (ServerCount, error)
}

// NewHTTP checks the configuration and returns the engine. Nothing is sent until the first
// count or answer.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("http engine: no --endpoint given")
	}
	proto, err := ProtocolNamed(cfg.API)
	if err != nil {
		return nil, fmt.Errorf("http engine: %w", err)
	}
	cfg.API = proto.Name()
	if !proto.SendsContext() {
		cfg.NumCtx = 0
	}
	switch cfg.Count {
	case "", "auto":
		cfg.Count = "auto"
	case CountInputTokens, CountTokenize, CountUsage:
	default:
		return nil, fmt.Errorf("http engine: unknown counting method %q (known: auto, input_tokens, tokenize, usage)", cfg.Count)
	}
	if cfg.Model == "" {
		cfg.Model = "default"
	}
	if cfg.APIKeyEnv == "" {
		cfg.APIKeyEnv = DefaultAPIKeyEnv
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 3
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	for _, d := range []*time.Duration{&cfg.CountTimeout, &cfg.IdleTimeout, &cfg.ServerWait, &cfg.WaitNote} {
		if *d <= 0 {
			*d = 10 * time.Second
		}
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 256
	}
	h := &HTTP{cfg: cfg, proto: proto, sem: make(chan struct{}, cfg.Concurrency), key: cfg.Getenv(cfg.APIKeyEnv), client: newClient(cfg.Client)}
	for _, raw := range cfg.Endpoints {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("http engine: endpoint %q: want an http:// or https:// URL", redactURL(raw))
		}
		u.RawQuery, u.Fragment = "", ""
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
		ep := &endpoint{base: strings.TrimSuffix(u.String(), "/"), display: u.Redacted(),
			unsupported: map[string]bool{}, counted: map[string]bool{}}
		ep.down, ep.cancelDown = context.WithCancel(context.Background())
		h.endpoints = append(h.endpoints, ep)
	}
	return h, nil
}

// newClient returns a copy of c (a client of its own when nil) that follows no redirect and
// reads no response head larger than maxHeaderBytes.
func newClient(c *http.Client) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxResponseHeaderBytes = maxHeaderBytes
		out.Transport = t
	}
	out.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &out
}

// redactURL hides the password of a URL that does not parse as one.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndex(raw, "@"); i >= 0 {
		return "…" + raw[i:]
	}
	return raw
}

// Name identifies the engine in reports and cache keys.
func (h *HTTP) Name() string { return "http" }

// Model is the model name sent with each request.
func (h *HTTP) Model() string { return h.cfg.Model }

// API is the name of the protocol spoken.
func (h *HTTP) API() string { return h.cfg.API }

// Protocol is the protocol spoken.
func (h *HTTP) Protocol() Protocol { return h.proto }

// Endpoints lists the servers, user info redacted.
func (h *HTTP) Endpoints() []string {
	var out []string
	for _, e := range h.endpoints {
		out = append(out, e.display)
	}
	return out
}

// Concurrency is the most requests the engine keeps in flight; a run needs at least as many
// cases under way to reach it.
func (h *HTTP) Concurrency() int { return h.cfg.Concurrency }

// pick returns the next endpoint in turn, passing over those that are gone (the next in
// turn when every one is: its requests then fail at once).
func (h *HTTP) pick() *endpoint {
	first := h.next.Add(1) - 1
	for i := range uint64(len(h.endpoints)) {
		ep := h.endpoints[int((first+i)%uint64(len(h.endpoints)))]
		if ep.circuitErr() == nil {
			return ep
		}
	}
	return h.endpoints[int(first%uint64(len(h.endpoints)))]
}

// Count counts the messages on a server.
func (h *HTTP) Count(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (Count, error) {
	return h.CountRequest(ctx, Request{Messages: msgs, Tools: tools})
}

// CountRequest counts a request on a server.
func (h *HTTP) CountRequest(ctx context.Context, req Request) (Count, error) {
	sc, err := h.ServerCount(ctx, req)
	return sc.Count, err
}

// ServerCount counts a request on one server: the total with the first counting method the
// server supports, and, when the request carries pictures (and it is not verbatim), the
// same request without them, so that image rows are the difference. Every count says
// "server" as its source.
func (h *HTTP) ServerCount(ctx context.Context, req Request) (ServerCount, error) {
	ep := h.pick()
	sc := ServerCount{Endpoint: ep.display}
	if err := ep.lacking(ErrNoPictures); err != nil && countPictures(req.Messages) > 0 {
		return sc, err // the server said so once: the request is not sent again
	}
	if err := ep.lacking(ErrNoTools); err != nil && len(req.Tools) > 0 {
		return sc, err // the server said so once: the request is not sent again
	}
	total, method, timings, err := h.countTotal(ctx, ep, req)
	if err != nil {
		return sc, err
	}
	sc.Method, sc.Timings = method, timings
	sc.PromptTokens, sc.TextTokens, sc.TextSource = total, total, "server"
	if h.cfg.NoRowSplit || req.Verbatim || countPictures(req.Messages) == 0 {
		return sc, nil
	}
	bare := Request{Messages: withoutPictures(req.Messages), Tools: req.Tools, MaxCount: req.MaxCount}
	text, _, _, err := h.countTotal(ctx, ep, bare)
	if err != nil {
		return sc, fmt.Errorf("count without pictures: %w", err)
	}
	sc.TextTokens = text
	sc.ImageRows = max(total-text, 0)
	sc.RowsSource = "server"
	return sc, nil
}

// countTotal counts a request with the configured method, or with the first that the
// server supports under "auto".
func (h *HTTP) countTotal(ctx context.Context, ep *endpoint, req Request) (int, string, *Timings, error) {
	methods := []string{h.cfg.Count}
	if h.cfg.Count == "auto" {
		methods = h.proto.CountMethods()
	}
	var lastErr error
	for _, m := range methods {
		if h.cfg.Count == "auto" && ep.isUnsupported(m) {
			continue
		}
		n, t, err := h.countWith(ctx, ep, m, req)
		if err == nil {
			ep.markCounted(m)
			return n, m, t, nil
		}
		var ue *unsupportedError
		if h.cfg.Count == "auto" && errors.As(err, &ue) {
			ep.markUnsupported(m)
			lastErr = err
			continue
		}
		return 0, m, nil, err
	}
	if lastErr == nil {
		lastErr = errors.New("no counting method left")
	}
	return 0, "", nil, &FaultError{fmt.Errorf("count on %s: %w", ep.display, lastErr)}
}

func (e *endpoint) isUnsupported(m string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.unsupported[m]
}

func (e *endpoint) markCounted(m string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.counted[m] = true
}

func (e *endpoint) hasCounted(m string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.counted[m]
}

func (e *endpoint) markUnsupported(m string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unsupported[m] = true
}

// unsupportedError says a server lacks a counting method.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string { return e.msg }

func (h *HTTP) countWith(ctx context.Context, ep *endpoint, method string, req Request) (int, *Timings, error) {
	if method == CountUsage {
		ans, err := h.complete(ctx, ep, req, 1)
		if err != nil {
			return 0, nil, err
		}
		return ans.PromptTokens, ans.Timings, nil
	}
	if err := heldRun(req); err != nil {
		return 0, nil, err
	}
	cc, err := h.proto.CountCall(method, h.cfg.Model, req)
	if err != nil {
		return 0, nil, err
	}
	var n int
	check := func(data []byte) error {
		var v map[string]json.RawMessage
		if json.Unmarshal(data, &v) != nil || v[cc.Field] == nil {
			msg := fmt.Sprintf("no %s in the answer", cc.Field)
			if ep.hasCounted(method) {
				return errors.New(msg) // it counted before: a fault
			}
			// another kind of server: the next counting method may do
			return &unsupportedError{fmt.Sprintf("%s%s: %s", ep.display, cc.Path, msg)}
		}
		var err error
		n, err = checkCount(v[cc.Field], cc.Field, req.MaxCount)
		return err
	}
	if _, err := h.post(ctx, ep, call{method: http.MethodPost, path: cc.Path, body: cc.Body, count: true, limit: maxCountBody, check: check,
		noCache: req.fresh, counts: true}); err != nil {
		return 0, nil, notFoundAsUnsupported(err)
	}
	return n, nil, nil
}

func notFoundAsUnsupported(err error) error {
	var se *StatusError
	if errors.As(err, &se) {
		switch se.Status {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			return &FaultError{&unsupportedError{se.Error()}}
		}
	}
	return err
}

// Answer asks the model for its reply (temperature 0, at most MaxTokens tokens).
func (h *HTTP) Answer(ctx context.Context, req Request) (Answer, error) {
	return h.complete(ctx, h.pick(), req, h.cfg.MaxTokens)
}

// complete asks for a completion of at most maxTokens tokens; a one-token completion is a
// count, whose answer must carry the prompt's size.
func (h *HTTP) complete(ctx context.Context, ep *endpoint, req Request, maxTokens int) (Answer, error) {
	body, err := h.body(req, true, maxTokens)
	if err != nil {
		return Answer{}, err
	}
	path, parse := h.proto.CompletionPath(), h.proto.ParseAnswer
	var ans Answer
	check := func(data []byte) error {
		var err error
		if ans, err = parse(data); err != nil {
			return err
		}
		if ans.PromptTokens == 0 && ans.Timings != nil {
			ans.PromptTokens = ans.Timings.PromptN + ans.Timings.CacheN
		}
		if ans.PromptTokens == 0 && maxTokens == 1 {
			return errors.New("no usage.prompt_tokens in the answer")
		}
		ans.PromptTokens, err = checkCountValue(int64(ans.PromptTokens), "prompt_tokens", req.MaxCount)
		return err
	}
	resp, err := h.post(ctx, ep, call{method: http.MethodPost, path: path, body: body, limit: maxAnswerBody(maxTokens), check: check,
		noCache: req.fresh, counts: maxTokens == 1})
	if err != nil {
		return Answer{}, err
	}
	ans.Key, ans.Cached = resp.key, resp.cached
	return ans, nil
}

// StatusError is an HTTP answer other than 200 that is not a refusal.
type StatusError struct {
	Endpoint string
	Path     string
	Status   int
	Message  string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s%s: HTTP %d: %s", e.Endpoint, e.Path, e.Status, e.Message)
}

// response is a server's answer to one request.
type response struct {
	body   []byte
	key    string
	cached bool
}

// call is one request to an endpoint, with what its answer may be.
type call struct {
	method, path string
	body         []byte
	// count marks a counting endpoint (or /props): the whole request gets CountTimeout, not
	// Timeout.
	count bool
	// limit caps the answer's body.
	limit int64
	// check validates a 200 answer before it is used or cached (an *unsupportedError says
	// the server is of another kind, anything else that the answer is invalid).
	check func([]byte) error
	// noCache keeps the answer out of the response cache; counts marks an answer that is a
	// count (cached only for a server that is identified).
	noCache, counts bool
}

// post sends c to ep: from the cache when it holds a valid answer, else with the concurrency
// limit, the deadlines of its kind and bounded retries with backoff on 429, 5xx and transport
// errors. A 400/413 that names the context is returned as a *RefusedError. Every failure is
// told to the endpoint's circuit; once it is open, nothing more is sent there.
func (h *HTTP) post(ctx context.Context, ep *endpoint, c call) (response, error) {
	key := h.cacheKey(c)
	if key != "" {
		if r, ok, err := h.fromCache(key, c); ok {
			return r, err
		}
	}
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return response{}, ctx.Err()
	}
	defer func() { <-h.sem }()
	id := h.ids.Add(1)
	wait := h.cfg.Backoff
	for attempt := 0; ; attempt++ {
		if err := ep.circuitErr(); err != nil {
			return response{}, &FaultError{err}
		}
		status, data, retryAfter, err := h.once(ctx, ep, c)
		if err != nil && ctx.Err() != nil {
			return response{}, ctx.Err()
		}
		r, done, retry, err := h.judge(ep, c, key, status, data, err)
		if done {
			return r, err
		}
		refused := h.refusedAlone(ctx, ep, err)
		if refused && attempt > 0 {
			return response{}, &RequestRefusedError{Err: err} // the same answer again: the request's own
		}
		if open := h.countFault(ep, id, err, refused); open != nil {
			return response{}, &FaultError{open}
		}
		sig := faultSignature(err)
		if !retry || (attempt >= h.cfg.MaxRetries && !retriedPastLimit(sig)) {
			if attempt > 0 {
				err = fmt.Errorf("%w (after %d retries)", err, attempt)
			}
			return response{}, &FaultError{err}
		}
		if err := h.pause(ctx, wait, retryAfter, sig); err != nil {
			return response{}, err
		}
		wait = min(2*wait, time.Minute)
	}
}

// countFault tells ep's circuit of a failed attempt, unless the server refused only this
// request: it returns the circuit when the attempt opened it.
func (h *HTTP) countFault(ep *endpoint, id uint64, err error, refused bool) *CircuitError {
	if refused {
		return nil
	}
	return ep.fault(id, err, h.waitFor(ep))
}

// cacheKey is c's key in the response cache: the engine, the protocol, the model, the
// server's identity and the request; "" for a call kept out of it, and for a count by a
// server that is not identified.
func (h *HTTP) cacheKey(c call) string {
	server, known, _ := h.identity()
	if c.noCache || (c.counts && !known) {
		return ""
	}
	return CacheKey(h.Name()+"/"+h.cfg.API, h.cfg.Model, server, c.path, c.body)
}

// waitFor is how long ep is waited for while it refuses connections: ServerWait once it has
// answered, StartWait before.
func (h *HTTP) waitFor(ep *endpoint) time.Duration {
	if ep.heard.Load() {
		return h.cfg.ServerWait
	}
	return h.cfg.StartWait
}

// fromCache returns the cached answer to c under key: ok when the cache holds a valid answer
// or a refusal.
func (h *HTTP) fromCache(key string, c call) (response, bool, error) {
	r, ok := h.cfg.Cache.Get(key)
	if !ok {
		return response{}, false, nil
	}
	if r.Status == http.StatusOK && c.check(r.Body) == nil {
		return response{body: r.Body, key: key, cached: true}, true, nil
	}
	if ref, ok := refusal(r.Status, r.Body); ok {
		return response{}, true, ref
	}
	return response{}, false, nil
}

// judge sorts the outcome of one attempt: done with the answer or the error that ends the
// request (the server answered), or the failure err to tell the circuit, retried when retry.
func (h *HTTP) judge(ep *endpoint, c call, key string, status int, data []byte, err error) (r response, done, retry bool, _ error) {
	var re *RedirectError
	var de *deadlineError
	var permanent error // a 5xx saying the request cannot succeed
	msg := errorMessage(data)
	switch {
	case err == nil && status >= 500:
		permanent = permanentFailure(ep, c.path, status, msg)
	case err == nil:
		permanent = capabilityRefusal(ep, status, msg)
	}
	statusErr := &StatusError{Endpoint: ep.display, Path: c.path, Status: status, Message: msg}
	switch {
	case errors.As(err, &re):
		return r, false, false, err
	case err != nil:
		// a deadline is not waited out again: the circuit counts it
		return r, false, !errors.As(err, &de), fmt.Errorf("%s%s: %w", ep.display, c.path, err)
	case status == http.StatusOK:
		if cerr := c.check(data); cerr != nil {
			var ue *unsupportedError
			if errors.As(cerr, &ue) {
				ep.answered()
				return r, true, false, &FaultError{cerr}
			}
			return r, false, false, &InvalidAnswerError{Endpoint: ep.display, Path: c.path, Reason: cerr.Error()}
		}
		ep.answered()
		h.store(key, c.path, status, data)
		return response{body: data, key: key}, true, false, nil
	case pictureRejected(status, msg):
		ep.answered() // the server judged a picture of this request, not a fault of the server
		return r, true, false, statusErr
	case permanent != nil:
		ep.answered()
		return r, true, false, &FaultError{permanent} // no retry
	case status == http.StatusTooManyRequests || status >= 500:
		return r, false, true, statusErr
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented:
		ep.answered() // a method the server lacks, not a fault
		return r, true, false, &FaultError{statusErr}
	}
	if ref, ok := refusal(status, data); ok {
		ep.answered()
		h.store(key, c.path, status, data)
		return r, true, false, ref
	}
	if badRequest(status) {
		ep.answered() // the server judged this request, not a fault of the server
		return r, true, false, statusErr
	}
	return r, false, false, statusErr
}

// pause waits before a retry: wait with jitter, or the server's Retry-After; a server away is
// asked again within a second, and no wait outlasts the server wait.
func (h *HTTP) pause(ctx context.Context, wait, retryAfter time.Duration, sig string) error {
	d := wait + time.Duration(rand.Int64N(int64(wait)/4+1))
	if retryAfter > 0 {
		d = min(retryAfter, 60*time.Second)
	}
	if retriedPastLimit(sig) {
		d = min(d, time.Second) // a server away is asked again often
	}
	if waited(sig) {
		d = min(d, h.cfg.ServerWait) // the circuit opens once the wait is over
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *HTTP) store(key, path string, status int, data []byte) {
	if key == "" || !json.Valid(data) {
		return
	}
	_, _, label := h.identity()
	// A cache that cannot be written costs a later run time, never this run's result.
	_ = h.cfg.Cache.Put(&CachedResponse{Key: key, Engine: h.Name() + "/" + h.cfg.API, Model: h.cfg.Model, Server: label, Path: path,
		Status: status, Body: json.RawMessage(data)})
}

// once sends one attempt; it returns the status, the body and the Retry-After delay. The
// attempt has its kind's deadline (CountTimeout or Timeout), its body an idle deadline, and a
// long wait is said on Notes while the server's /health is asked whether it is still there.
func (h *HTTP) once(ctx context.Context, ep *endpoint, c call) (int, []byte, time.Duration, error) {
	limit := h.cfg.Timeout
	if c.count {
		limit = h.cfg.CountTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	deadline := time.AfterFunc(limit, func() { cancel(&deadlineError{fmt.Sprintf("no answer within %v", limit)}) })
	defer deadline.Stop()
	stopDown := context.AfterFunc(ep.down, func() { cancel(ep.circuitErr()) })
	defer stopDown()
	if limit > h.cfg.WaitNote/2 {
		stop := make(chan struct{})
		defer close(stop)
		go h.watch(ctx, ep, c.path, time.Now(), cancel, stop)
	}
	var rd io.Reader
	if c.body != nil {
		rd = bytes.NewReader(c.body)
	}
	// a connection made says something listens there, whatever it answers
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { ep.heard.Store(true) }})
	req, err := http.NewRequestWithContext(traced, c.method, ep.base+c.path, rd)
	if err != nil {
		return 0, nil, 0, errors.New("bad request URL")
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	h.proto.SetHeaders(req.Header, h.key)
	resp, err := h.client.Do(req)
	if err != nil {
		if cause := cutShort(ctx); cause != nil {
			return 0, nil, 0, cause
		}
		return 0, nil, 0, unwrapURLError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		to := resp.Header.Get("Location")
		if u, err := req.URL.Parse(to); err == nil {
			to = u.Redacted()
		}
		return 0, nil, 0, &RedirectError{From: ep.display + c.path, To: to, Status: resp.StatusCode}
	}
	data, err := readBody(resp, c.limit, h.cfg.IdleTimeout, cancel)
	if err != nil {
		if cause := cutShort(ctx); cause != nil {
			return 0, nil, 0, cause
		}
		return 0, nil, 0, err
	}
	var retryAfter time.Duration
	if s, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && s > 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	return resp.StatusCode, data, retryAfter, nil
}

// cutShort returns why an attempt's context was cancelled by the engine itself (a deadline,
// an open circuit), or nil.
func cutShort(ctx context.Context) error {
	var de *deadlineError
	var ce *CircuitError
	if cause := context.Cause(ctx); ctx.Err() != nil && (errors.As(cause, &de) || errors.As(cause, &ce)) {
		return cause
	}
	return nil
}

// unwrapURLError drops the URL of a client error: the caller names it, redacted.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// probeGET asks the first endpoint GET path, retried like any request, check reading the
// answer: false (and no error) when the server has no such path (404, 405, 501, or an answer
// check finds of another kind of server: an *unsupportedError); an error when it could not
// be read.
func (h *HTTP) probeGET(ctx context.Context, path string, check func([]byte) error) (bool, error) {
	_, err := h.post(ctx, h.endpoints[0], call{method: http.MethodGet, path: path, count: true, limit: maxPropsBody, check: check, noCache: true})
	var se *StatusError
	var ue *unsupportedError
	if errors.As(err, &ue) || (errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusMethodNotAllowed || se.Status == http.StatusNotImplemented)) {
		return false, nil
	}
	return err == nil, err
}
