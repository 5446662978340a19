package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
)

// TestNothingRenderedIsNotSent: with a chat template that renders the user turns alone, a
// request that holds none (an MCP transcript's tool call and its result) renders as nothing; it
// is not sent (a server refuses an empty prompt), its arm keeps the computed counts and says
// why, the run says it once, and the requests with a user turn are counted by the server.
func TestNothingRenderedIsNotSent(t *testing.T) {
	arms, err := SelectArms("", []string{"after"})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(t.TempDir(), "user-only.jinja")
	src := "{% for m in messages %}{% if m.role == 'user' %}<|im_start|>user\n{{ m.content }}<|im_end|>\n{% endif %}{% endfor %}"
	if err := os.WriteFile(tmpl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", Template: tmpl, Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(off), InputTokens: true, Props: true, Context: 1 << 20})
	defer srv.Close()
	h, err := engine.NewHTTP(engine.HTTPConfig{Endpoints: []string{srv.URL}, Model: "tiny", Backoff: 1})
	if err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	paths := []string{"../corpora/samples/openai-chat-text-only.json", "../corpora/samples/mcp-stdio-2025-11-25.jsonl"}
	rep, err := Run(context.Background(), Config{Paths: paths, Workers: 1, Arms: arms, Offline: off, Engine: h,
		Tokenizer: "o200k_base", Notes: &notes, Turns: "all"})
	if err != nil || rep == nil {
		t.Fatalf("run: %v\n%s", err, notes.String())
	}
	notSent, counted := 0, 0
	for _, c := range rep.Cases {
		if c.Error != "" {
			t.Errorf("%s: %s", c.ID, c.Error)
		}
		for _, a := range c.Arms {
			switch {
			case a.NotSent != "":
				notSent++
				if a.CountDiff != nil || a.PromptTokens > 2 {
					t.Errorf("%s: not sent, yet compared or counted %d tokens", c.ID, a.PromptTokens)
				}
			case a.CountDiff != nil:
				counted++
			}
		}
	}
	if notSent == 0 || counted == 0 || strings.Count(notes.String(), "renders nothing") != 1 {
		t.Errorf("%d arm(s) not sent, %d counted by the server; notes:\n%s", notSent, counted, notes.String())
	}
	if !strings.Contains(strings.Join(rep.Config.Warnings, "\n"), "not sent") {
		t.Errorf("the report does not say how many arms were not sent: %q", rep.Config.Warnings)
	}
}
