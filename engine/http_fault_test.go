package engine

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/syncbuf"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
)

// faultConfig is an engine configuration with deadlines short enough for tests.
func faultConfig(url string, cache *Cache) HTTPConfig {
	return HTTPConfig{Endpoints: []string{url}, Cache: cache, Backoff: 20 * time.Millisecond, CountTimeout: 700 * time.Millisecond,
		IdleTimeout: 400 * time.Millisecond, ServerWait: 1500 * time.Millisecond, WaitNote: 300 * time.Millisecond, Timeout: 2 * time.Second}
}

// TestFaultsNeverGiveAWrongCount sends eight counts, four at a time, to a server injecting
// one fault: no count is returned for a faulty answer, the engine stops asking within seconds
// (the circuit opens and names the endpoint), the redirect target hears nothing, and the
// cache holds nothing invalid: the same counts against the healed server equal those of a
// healthy one.
func TestFaultsNeverGiveAWrongCount(t *testing.T) {
	off := newOffline(t)
	req := sampleRequest(t, "openai-chat-text-only.json")
	r := Request{Messages: req.Messages, Tools: req.Conversation.Tools, MaxCount: 100000}
	want, err := off.Count(context.Background(), req.Messages, req.Conversation.Tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, fault := range testserver.Faults {
		if fault == testserver.FaultPropsBusy {
			continue // TestPropsRetried
		}
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			srv, err := testserver.NewFaultServer(testserver.FaultConfig{Server: testserver.Config{Counter: PromptTokens(off), InputTokens: true}, Fault: fault, RestartAfter: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cache, err := OpenCache(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			h, err := NewHTTP(faultConfig(srv.URL, cache))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			var wg sync.WaitGroup
			errs := make([]error, 8)
			counts := make([]ServerCount, 8)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					counts[i], errs[i] = h.ServerCount(context.Background(), r)
				}()
			}
			wg.Wait()
			took := time.Since(start)
			if took > 6*time.Second {
				t.Errorf("eight counts took %v", took)
			}
			var stopped bool
			for i, err := range errs {
				switch {
				case err == nil && counts[i].PromptTokens != want.PromptTokens:
					t.Errorf("count %d: %d tokens from a faulty server, want %d or an error", i, counts[i].PromptTokens, want.PromptTokens)
				case err != nil && !strings.Contains(err.Error(), srv.URL) && !strings.Contains(err.Error(), strings.TrimPrefix(srv.URL, "http://")):
					t.Errorf("count %d: error %q names no endpoint", i, err)
				case errors.Is(err, ErrServerFailing) || errors.Is(err, ErrServerGone):
					stopped = true
				}
			}
			switch fault {
			case testserver.FaultRestart:
				// the server came back within the wait: the counts are right
				for i, err := range errs {
					if err != nil {
						t.Errorf("count %d against a server restarted within the wait: %v", i, err)
					}
				}
			default:
				if !stopped {
					t.Errorf("the circuit never opened: %v", errs)
				}
			}
			if n := len(srv.Other.Requests()); n != 0 {
				t.Errorf("the redirect target received %v", srv.Other.Requests())
			}
			srv.Heal()
			healed, err := NewHTTP(faultConfig(srv.URL, cache))
			if err != nil {
				t.Fatal(err)
			}
			c, err := healed.ServerCount(context.Background(), r)
			if err != nil || c.PromptTokens != want.PromptTokens {
				t.Errorf("after healing: %d tokens, %v; want %d", c.PromptTokens, err, want.PromptTokens)
			}
		})
	}
}

// TestRedirectNamesBothURLs: a redirect is an error naming the endpoint and where it points.
func TestRedirectNamesBothURLs(t *testing.T) {
	srv, err := testserver.NewFaultServer(testserver.FaultConfig{Server: testserver.Config{Counter: PromptTokens(newOffline(t)), InputTokens: true}, Fault: testserver.FaultRedirect307})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	h, _ := NewHTTP(faultConfig(srv.URL, nil))
	_, err = h.ServerCount(context.Background(), textRequest)
	var re *RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), srv.URL+"/v1/chat/completions/input_tokens") || !strings.Contains(err.Error(), srv.Other.URL+"/v1/chat/completions/input_tokens") {
		t.Errorf("error %v does not name both URLs", err)
	}
}

// TestInvalidCountsNotCached: -5, 10^15 and a missing count are errors naming the endpoint,
// and none is cached.
func TestInvalidCountsNotCached(t *testing.T) {
	for _, fault := range []string{testserver.FaultNegativeCount, testserver.FaultHugeCount, testserver.FaultMissingCount} {
		srv, err := testserver.NewFaultServer(testserver.FaultConfig{Server: testserver.Config{Counter: PromptTokens(newOffline(t)), InputTokens: true}, Fault: fault})
		if err != nil {
			t.Fatal(err)
		}
		cache, _ := OpenCache(t.TempDir())
		h, _ := NewHTTP(faultConfig(srv.URL, cache))
		_, err = h.ServerCount(context.Background(), Request{Messages: textRequest.Messages, MaxCount: 10000})
		if err == nil || !strings.Contains(err.Error(), srv.URL) {
			t.Errorf("%s: error %v", fault, err)
		}
		if n, _ := cache.Len(); n != 0 {
			t.Errorf("%s: %d cache entries, want none", fault, n)
		}
		srv.Close()
	}
}

// TestPropsRetried: /props answered 429 and 503 is retried; when it never answers, Props says
// so with an error (the run stops unless --ctx is given) instead of no context. A server of
// another kind (405, a web page) has no /props, which is no error.
func TestPropsRetried(t *testing.T) {
	srv, err := testserver.NewFaultServer(testserver.FaultConfig{Server: testserver.Config{Counter: PromptTokens(newOffline(t)), InputTokens: true, Props: true, Context: 4096}, Fault: testserver.FaultPropsBusy})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := faultConfig(srv.URL, nil)
	cfg.ServerWait = 300 * time.Millisecond
	h, _ := NewHTTP(cfg)
	if _, ok, err := h.props(context.Background()); ok || err == nil || !strings.Contains(err.Error(), "/props") {
		t.Errorf("busy /props: ok %v, err %v", ok, err)
	}
	if srv.Faulted() < 2 {
		t.Errorf("/props asked %d times, want retries", srv.Faulted())
	}
	srv.Heal()
	h, _ = NewHTTP(cfg)
	if info, ok, err := h.props(context.Background()); !ok || err != nil || info.Context != 4096 {
		t.Errorf("healthy /props: %+v %v %v", info, ok, err)
	}
	// a server of another kind has no /props: no context from it, and no error
	for _, answer := range []func(http.ResponseWriter){
		func(w http.ResponseWriter) { w.WriteHeader(http.StatusMethodNotAllowed) },
		func(w http.ResponseWriter) { w.Write([]byte("<html>a web page</html>")) },
	} {
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { answer(w) }))
		h, _ := NewHTTP(faultConfig(other.URL, nil))
		if _, ok, err := h.props(context.Background()); ok || err != nil {
			t.Errorf("a server without /props: ok %v, err %v", ok, err)
		}
		other.Close()
	}
}

// TestLongWaitIsSaid: a request that waits long is said on Notes, and a server that does not
// answer /health either is given up within seconds, before the generation deadline.
func TestLongWaitIsSaid(t *testing.T) {
	srv, err := testserver.NewFaultServer(testserver.FaultConfig{Server: testserver.Config{Counter: PromptTokens(newOffline(t)), InputTokens: true}, Fault: testserver.FaultNeverAnswer})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var notes syncbuf.Buffer
	cfg := faultConfig(srv.URL, nil)
	cfg.Timeout, cfg.Notes, cfg.MaxRetries = time.Minute, &notes, -1
	h, _ := NewHTTP(cfg)
	start := time.Now()
	_, err = h.Answer(context.Background(), textRequest)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("a stalled server: %v after %v", err, time.Since(start))
	}
	if !strings.HasPrefix(notes.String(), "strata-eval: waiting ") || !strings.Contains(notes.String(), " for "+srv.URL+"/v1/chat/completions\n") {
		t.Errorf("notes: %q", notes.String())
	}
}

// TestBadRequestIsTheCase: a 400 that is not a refusal judges one request: an error of the
// case, not a server fault, and however many there are the circuit stays closed.
func TestBadRequestIsTheCase(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error": {"code": 400, "message": "invalid image"}}`))
	}))
	defer srv.Close()
	h, _ := NewHTTP(faultConfig(srv.URL, nil))
	for i := range 6 {
		_, err := h.ServerCount(context.Background(), textRequest)
		if err == nil || IsServerFault(err) || errors.Is(err, ErrServerFailing) || !strings.Contains(err.Error(), "invalid image") {
			t.Fatalf("count %d: %v, want the 400 as an error of the case", i, err)
		}
	}
}

// TestPictureNotLoadedIsTheCase: llama-server's HTTP 500 "Failed to load image or audio file"
// (a picture its build cannot decode) judges one request like a 400: an error of the case, not
// a server fault, sent once (no retry), and the circuit stays closed however many there are.
func TestPictureNotLoadedIsTheCase(t *testing.T) {
	var hits sync.Map // path → *int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n, _ := hits.LoadOrStore(r.URL.Path, new(int))
		*n.(*int)++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error": {"code": 500, "message": "Failed to load image or audio file", "type": "server_error"}}`))
	}))
	defer srv.Close()
	h, _ := NewHTTP(faultConfig(srv.URL, nil))
	const requests = 6
	for i := range requests {
		_, err := h.ServerCount(context.Background(), textRequest)
		if err == nil || IsServerFault(err) || errors.Is(err, ErrServerFailing) || errors.Is(err, ErrNoPictures) ||
			!strings.Contains(err.Error(), "Failed to load image") {
			t.Fatalf("count %d: %v, want the 500 as an error of the case", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	hits.Range(func(path, n any) bool {
		if *n.(*int) > requests {
			t.Errorf("%s was asked %d times for %d requests: a picture it cannot load was retried", path, *n.(*int), requests)
		}
		return true
	})
}

// TestSlowServerCompletes: a server slow to answer, but there (its /health answered, a 404
// included), is waited for: the wait is said, and the answer comes.
func TestSlowServerCompletes(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: PromptTokens(newOffline(t)), Delay: 1200 * time.Millisecond})
	defer srv.Close()
	var notes syncbuf.Buffer
	cfg := faultConfig(srv.URL, nil)
	cfg.Timeout, cfg.Notes = time.Minute, &notes
	h, _ := NewHTTP(cfg)
	if a, err := h.Answer(context.Background(), textRequest); err != nil || a.Text == "" {
		t.Fatalf("a slow server: %+v, %v", a, err)
	}
	if !strings.Contains(notes.String(), "strata-eval: waiting ") {
		t.Errorf("the wait was not said: %q", notes.String())
	}
}
