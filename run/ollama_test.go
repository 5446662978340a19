package run

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
)

// TestOllamaFoundBehindOpenAI: a server without llama.cpp's /props that answers Ollama's
// /api/version is asked what it runs over Ollama's API even when the run speaks OpenAI's
// protocol: the model's template from /api/show renders the computed counts, its context
// comes from /api/ps (the model loaded without num_ctx, which the OpenAI API does not send),
// and the report names Ollama, its version and the protocol.
func TestOllamaFoundBehindOpenAI(t *testing.T) {
	var loaded string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/api/version":
			_, _ = io.WriteString(w, `{"version":"0.17.4"}`)
		case "/api/show":
			_ = json.NewEncoder(w).Encode(map[string]any{"template": "{{ range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n",
				"capabilities": []string{"completion", "tools", "vision"}, "details": map[string]string{"family": "qwen3"}})
		case "/api/chat":
			loaded = string(body)
			_, _ = io.WriteString(w, `{"model":"tiny","message":{"role":"assistant","content":""},"done":true}`)
		case "/api/ps":
			_, _ = io.WriteString(w, `{"models":[{"name":"tiny:latest","model":"tiny:latest","context_length":4096}]}`)
		case "/v1/chat/completions":
			_, _ = io.WriteString(w, `{"model":"tiny","choices":[{"message":{"content":"ok"},"finish_reason":"length"}],"usage":{"prompt_tokens":100,"completion_tokens":1}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	h, err := engine.NewHTTP(engine.HTTPConfig{Endpoints: []string{srv.URL}, API: engine.APIOpenAI, Model: "tiny", NumCtx: 8192})
	if err != nil {
		t.Fatal(err)
	}
	arms, off := afterArmOffline(t)
	var notes strings.Builder
	rep, err := Run(context.Background(), Config{Paths: []string{"../corpora/samples/mcp-stdio-2025-11-25.jsonl"}, Workers: 1,
		Arms: arms, Offline: off, Engine: h, Tokenizer: "o200k_base", Context: 8192, Notes: &notes})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Config
	if c.Server != "Ollama 0.17.4 through its openai API, model tiny (qwen3)" || c.Template != "ollama:tiny" || c.Context != 4096 || c.API != "openai" {
		t.Errorf("server %q, template %q, context %d, api %q: want Ollama's", c.Server, c.Template, c.Context, c.API)
	}
	if strings.Contains(loaded, "num_ctx") {
		t.Errorf("the model is loaded with a num_ctx the OpenAI requests do not send: %s", loaded)
	}
	if !strings.Contains(notes.String(), "not --ctx 8192 (the openai API sends no num_ctx") {
		t.Errorf("no word that --ctx is not sent:\n%s", notes.String())
	}
}
