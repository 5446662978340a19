package engine

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// runStreamer is a corpora.Collector that has the readers stream base64 runs of tool text of
// 4,096 characters or more past, counted by an offline engine.
type runStreamer struct {
	corpora.Collector
	off *Offline
}

func (r *runStreamer) NewRunCounter() corpora.RunCounter { return r.off.NewRunCounter() }
func (r *runStreamer) LargeRunChars() int                { return 4096 }

// TestHeldRunIsNotSent: a request whose tool text holds a base64 run streamed past while
// reading cannot be sent to a server, whose count would be of the marker: the HTTP engine's
// count, its verbatim count and --dump say so in one line and nothing reaches the server; the
// offline engine counts it.
func TestHeldRunIsNotSent(t *testing.T) {
	off := newOffline(t)
	shot := base64.StdEncoding.EncodeToString(testimages.PNG(300, 200, 5, testimages.WithGrain(90)))
	log := `{"model":"m","messages":[{"role":"user","content":"look"},{"role":"tool","tool_call_id":"c1","content":"the screen: ` + shot + ` done"}]}` + "\n"
	e := &runStreamer{off: off}
	if err := corpora.Read(context.Background(), "log.jsonl", strings.NewReader(log), corpora.FormatOpenAIChat, e); err != nil || len(e.Conversations) != 1 {
		t.Fatalf("read: %v, %d conversations", err, len(e.Conversations))
	}
	msgs := e.Conversations[0].Messages
	if corpora.HeldRun(msgs, false) == nil || corpora.HeldRun(msgs[:1], true) != nil {
		t.Fatal("the tool text holds no run streamed past")
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "not expected", http.StatusTeapot)
	}))
	defer srv.Close()
	h, err := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL + "/v1"}, Model: "m", MaxRetries: -1, Count: CountUsage})
	if err != nil {
		t.Fatal(err)
	}
	for _, verbatim := range []bool{false, true} {
		_, err := h.CountRequest(context.Background(), Request{Messages: msgs, Verbatim: verbatim})
		if err == nil || !strings.Contains(err.Error(), "read past, not kept") || strings.Contains(err.Error(), "\n") {
			t.Errorf("verbatim %v: %v", verbatim, err)
		}
	}
	if _, err := DumpBody(off, Request{Messages: msgs}); err == nil || !strings.Contains(err.Error(), "cannot be sent") {
		t.Errorf("dump: %v", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
	// the after arm's message: the run's note in the text, the recorded bytes still the run's
	lifted := append([]corpora.Message(nil), msgs...)
	tool := *lifted[1].Parts[0].ToolResult
	tool.Text = "the screen: [image omitted: too large] done"
	lifted[1].Parts = []corpora.Part{{Kind: corpora.PartToolResult, ToolResult: &tool}}
	if _, err := h.CountRequest(context.Background(), Request{Messages: lifted}); err == nil || strings.Contains(err.Error(), "cannot be sent") || hits.Load() == 0 {
		t.Errorf("a text without the run: %v, %d requests reached the server", err, hits.Load())
	}
	if _, err := h.CountRequest(context.Background(), Request{Messages: lifted, Verbatim: true}); err == nil || !strings.Contains(err.Error(), "cannot be sent") {
		t.Errorf("its recorded bytes sent verbatim: %v", err)
	}
	if c, err := off.Count(context.Background(), msgs, nil); err != nil || c.TextTokens < 100_000 {
		t.Errorf("offline: %d tokens, %v", c.TextTokens, err)
	}
}
