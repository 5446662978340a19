package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
)

// TestCacheKeyedOnServer: servers swapped behind one port between runs that share a response
// cache (another projector whose pictures cost more, another model file, another client
// setting) each give their own counts, never the cache's figures of the server before; the
// same server and settings again are answered from the cache (only the two probe counts are
// sent); a server that says nothing of itself has its counts sent every time, its answers
// cached and labelled.
func TestCacheKeyedOnServer(t *testing.T) {
	base := PromptTokens(newOffline(t))
	projector := func(extra int) testserver.Counter {
		return func(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (int, error) {
			n, err := base(ctx, msgs, tools)
			return n + extra*corpora.CountImageParts(msgs), err
		}
	}
	servers := map[string]*testserver.Server{
		"gemma3":   testserver.New(testserver.Config{Counter: projector(0), InputTokens: true, Props: true, Context: 1 << 20}),
		"smolvlm2": testserver.New(testserver.Config{Counter: projector(869), InputTokens: true, Props: true, Context: 1 << 20}),
		"model":    testserver.New(testserver.Config{Counter: projector(0), InputTokens: true, Props: true, Context: 1 << 20, ModelPath: "other.gguf", Offset: 5}),
		"silent":   testserver.New(testserver.Config{Counter: projector(0), InputTokens: true}),
	}
	for _, s := range servers {
		defer s.Close()
	}
	var current atomic.Pointer[testserver.Server]
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current.Load().Config.Handler.ServeHTTP(w, r)
	}))
	defer front.Close()
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sample := sampleRequest(t, "openai-responses-gif.json")
	req := Request{Messages: sample.Messages, Tools: sample.Conversation.Tools}
	ctx := context.Background()
	// run swaps name in behind the port and counts req with the cache (or without it: today's
	// figure), returning the count, the counting requests that reached the server and the report
	run := func(name string, c *Cache, settings ...string) (ServerCount, int, ServerReport) {
		t.Helper()
		s := servers[name]
		current.Store(s)
		before := s.Requests()["/v1/chat/completions/input_tokens"]
		h, err := NewHTTP(HTTPConfig{Endpoints: []string{front.URL}, Cache: c, KeySettings: settings})
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.Probe(ctx, 0)
		if err != nil {
			t.Fatalf("%s: probe: %v", name, err)
		}
		sc, err := h.ServerCount(ctx, req)
		if err != nil {
			t.Fatalf("%s: count: %v", name, err)
		}
		return sc, s.Requests()["/v1/chat/completions/input_tokens"] - before, r
	}
	for i, tc := range []struct {
		server   string
		settings []string
		sent     int // counting requests: 2 probes (of a server identified), then 2 counts (with and without pictures) unless cached
	}{
		{"gemma3", nil, 4},
		{"smolvlm2", nil, 4},
		{"model", nil, 4},
		{"gemma3", []string{"image-max-tokens=256"}, 4},
		{"gemma3", nil, 2},
		{"silent", nil, 2},
		{"silent", nil, 2},
	} {
		got, sent, report := run(tc.server, cache, tc.settings...)
		today, _, _ := run(tc.server, nil, tc.settings...)
		if got.PromptTokens != today.PromptTokens || got.ImageRows != today.ImageRows {
			t.Errorf("run %d (%s): prompt %d rows %d with the cache, the server gives %d and %d today", i, tc.server, got.PromptTokens, got.ImageRows, today.PromptTokens, today.ImageRows)
		}
		if sent != tc.sent {
			t.Errorf("run %d (%s): %d counting requests reached the server, want %d", i, tc.server, sent, tc.sent)
		}
		unidentified := strings.Contains(strings.Join(report.Warnings, "\n"), "too little of itself to be identified")
		if unidentified != (tc.server == "silent") {
			t.Errorf("run %d (%s): warnings %q", i, tc.server, report.Warnings)
		}
	}
	// the silent server's answers are cached all the same, labelled
	h, _ := NewHTTP(HTTPConfig{Endpoints: []string{front.URL}, Cache: cache})
	if _, err := h.Probe(ctx, 0); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		a, err := h.Answer(ctx, req)
		if err != nil || a.Cached != (i == 1) {
			t.Fatalf("answer %d: cached %v, %v", i, a.Cached, err)
		}
		if e, ok := cache.Get(a.Key); !ok || !strings.HasPrefix(e.Server, "unidentified server at ") {
			t.Errorf("answer %d: cache entry labelled %q", i, e.Server)
		}
	}
}
