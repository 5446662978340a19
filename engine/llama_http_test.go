package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// llamaServer is an OpenAI-compatible chat completions server backed by the in-process
// llama.cpp engine: real prompt tokens (Count: llama.cpp's tokenizer, estimator rows for
// pictures), real greedy answers, real completion tokens and timings, and llama-server's
// refusal of a prompt beyond the context.
func llamaServer(t *testing.T, l *Llama) *httptest.Server {
	t.Helper()
	fail := func(w http.ResponseWriter, status int, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": body})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			fail(w, http.StatusBadRequest, map[string]any{"code": 400, "message": err.Error()})
			return
		}
		var col corpora.Collector
		if err := corpora.Read(r.Context(), "request.json", bytes.NewReader(data), corpora.FormatOpenAIChat, &col); err != nil || len(col.Conversations) != 1 {
			fail(w, http.StatusBadRequest, map[string]any{"code": 400, "message": "unreadable request", "type": "invalid_request_error"})
			return
		}
		var body struct {
			MaxTokens int    `json:"max_tokens"`
			Model     string `json:"model"`
		}
		_ = json.Unmarshal(data, &body)
		conv := col.Conversations[0]
		count, err := l.Count(r.Context(), conv.Messages, conv.Tools)
		if err != nil {
			fail(w, http.StatusInternalServerError, map[string]any{"code": 500, "message": err.Error()})
			return
		}
		g, err := l.Generate(r.Context(), Request{Messages: conv.Messages, Tools: conv.Tools}, body.MaxTokens)
		if ref, ok := AsRefused(err); ok {
			fail(w, http.StatusBadRequest, map[string]any{"code": 400, "message": "the request exceeds the available context size, try increasing it",
				"type": "exceed_context_size_error", "n_prompt_tokens": ref.PromptTokens, "n_ctx": ref.Context})
			return
		}
		if err != nil {
			fail(w, http.StatusInternalServerError, map[string]any{"code": 500, "message": err.Error()})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-llama", "object": "chat.completion", "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": g.FinishReason,
				"message": map[string]any{"role": "assistant", "content": g.Text}}},
			"usage": map[string]any{"prompt_tokens": count.PromptTokens, "completion_tokens": g.CompletionTokens,
				"total_tokens": count.PromptTokens + g.CompletionTokens},
			"timings": map[string]any{"cache_n": 0, "prompt_n": g.PromptTokens, "prompt_ms": g.Timings.PromptMS,
				"predicted_n": g.CompletionTokens, "predicted_ms": g.Timings.PredictedMS},
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPEngineAgainstLlamaServer(t *testing.T) {
	l := testLlama(t)
	srv := llamaServer(t, l)
	h, err := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}, Count: CountUsage, MaxTokens: 5, MaxRetries: -1, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Counts: the HTTP engine reads usage (and splits image rows by difference); both must
	// equal what llama.cpp counts in process.
	var col corpora.Collector
	if err := corpora.ReadSamples(ctx, &col); err != nil {
		t.Fatal(err)
	}
	checked, pictures := 0, 0
	start := time.Now()
	for _, c := range col.Conversations {
		for _, r := range c.Requests() {
			raw, err := json.Marshal(r.Messages)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) > 40_000 || checked >= 5 { // small requests only: each count evaluates the prompt
				continue
			}
			want, err := l.Count(ctx, r.Messages, c.Tools)
			if err != nil {
				t.Fatal(err)
			}
			if want.PromptTokens > 700 || (len(want.Images) == 0 && checked-pictures >= 3) {
				continue
			}
			got, err := h.Count(ctx, r.Messages, c.Tools)
			if err != nil {
				t.Fatalf("%s: http count: %v", r.ID(), err)
			}
			// Rows by difference may shift by a token or two: removing a picture lets the text
			// around it merge differently.
			if got.PromptTokens != want.PromptTokens || got.ImageRows < want.ImageRows-2 || got.ImageRows > want.ImageRows+2 {
				t.Errorf("%s: http engine counts %d (rows %d), llama.cpp %d (rows %d)", r.ID(), got.PromptTokens, got.ImageRows, want.PromptTokens, want.ImageRows)
			}
			checked++
			if len(want.Images) > 0 {
				pictures++
			}
		}
	}
	if checked < 3 || pictures == 0 {
		t.Fatalf("checked %d requests, %d with pictures; want ≥ 3 and ≥ 1", checked, pictures)
	}

	t.Logf("counts through HTTP: %v", time.Since(start))
	// Answers: the same greedy tokens through HTTP as in process.
	req := Request{Messages: []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "What does the screenshot of the failing build show?"}}}}}
	ans, err := h.Answer(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := l.Generate(ctx, req, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text != direct.Text || ans.CompletionTokens != direct.CompletionTokens || ans.PromptTokens != direct.PromptTokens || ans.FinishReason != direct.FinishReason {
		t.Errorf("http answer %q (%d+%d, %s), in process %q (%d+%d, %s)", ans.Text, ans.PromptTokens, ans.CompletionTokens, ans.FinishReason,
			direct.Text, direct.PromptTokens, direct.CompletionTokens, direct.FinishReason)
	}
	if ans.Timings == nil || ans.Timings.PromptN != direct.PromptTokens {
		t.Errorf("timings %+v, want prompt_n %d", ans.Timings, direct.PromptTokens)
	}

	// A prompt beyond the 4096-token context comes back as llama-server's refusal.
	long := Request{Messages: []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: strings.Repeat("token ", 5000)}}}}}
	_, err = h.Answer(ctx, long)
	if r, ok := AsRefused(err); !ok || r.Context != 4096 || r.PromptTokens < 5000 {
		t.Errorf("long prompt: %v, want a refusal naming 4096", err)
	}
	t.Logf("%d sample requests counted through HTTP (%d with pictures)", checked, pictures)
}
