package engine

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
)

func readResponse(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "responses", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseChatCompletion reads recorded bodies of llama.cpp's server, vLLM and Ollama.
func TestParseChatCompletion(t *testing.T) {
	for _, tc := range []struct {
		file           string
		prompt, compl  int
		model          string
		promptN, cache int
		hasTimings     bool
	}{
		{"llamacpp-chat.json", 1807, 6, "qwen3-vl-8b-instruct", 1807, 0, true},
		{"vllm-chat.json", 1811, 6, "Qwen/Qwen2.5-VL-7B-Instruct", 0, 0, false},
		{"ollama-chat.json", 1809, 6, "qwen2.5vl:7b", 0, 0, false},
	} {
		a, err := ParseChatCompletion(readResponse(t, tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if a.Text != "The square is red." || a.PromptTokens != tc.prompt || a.CompletionTokens != tc.compl || a.Model != tc.model || a.FinishReason != "stop" {
			t.Errorf("%s: %+v", tc.file, a)
		}
		if (a.Timings != nil) != tc.hasTimings {
			t.Fatalf("%s: timings %+v", tc.file, a.Timings)
		}
		if a.Timings != nil && (a.Timings.PromptN != tc.promptN || a.Timings.PromptMS != 912.337 || a.Timings.CacheN != tc.cache) {
			t.Errorf("%s: timings %+v", tc.file, a.Timings)
		}
	}
}

// TestRefusal tells oversized-prompt 400s (a verdict) from other errors.
func TestRefusal(t *testing.T) {
	for _, tc := range []struct {
		file    string
		status  int
		refused bool
		prompt  int
		ctx     int
		message string
	}{
		{"llamacpp-exceed-context.json", 400, true, 1395283, 262144, "the request exceeds the available context size, try increasing it"},
		{"vllm-exceed-context.json", 400, true, 0, 0, "This model's maximum context length is 32768 tokens."},
		{"anthropic-too-long.json", 400, true, 0, 0, "prompt is too long: 1395283 tokens > 200000 maximum"},
		{"llamacpp-exceed-context.json", 500, false, 0, 0, ""},
	} {
		r, ok := refusal(tc.status, readResponse(t, tc.file))
		if ok != tc.refused {
			t.Fatalf("%s %d: refused %v", tc.file, tc.status, ok)
		}
		if !ok {
			continue
		}
		if r.PromptTokens != tc.prompt || r.Context != tc.ctx || !strings.HasPrefix(r.Message, tc.message) {
			t.Errorf("%s: %+v", tc.file, r)
		}
	}
	if _, ok := refusal(400, []byte(`{"error":{"message":"messages: field required"}}`)); ok {
		t.Error("a plain bad request counted as a refusal")
	}
	// sizes out of all bounds are dropped; the refusal stands
	r, ok := refusal(400, []byte(`{"error":{"type":"exceed_context_size_error","message":"too long","n_prompt_tokens":-5,"n_ctx":1000000000000000}}`))
	if !ok || r.PromptTokens != 0 || r.Context != 0 {
		t.Errorf("absurd sizes in a refusal: %+v %v", r, ok)
	}
}

// recordedServer answers every path with a recorded body.
func recordedServer(t *testing.T, routes map[string]string) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		file, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		status := http.StatusOK
		if strings.Contains(file, "exceed") {
			status = http.StatusBadRequest
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(readResponse(t, file))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

var textRequest = Request{Messages: []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hello"}}}}}

// TestCountMethods: input_tokens when the server has it, vLLM's /tokenize next, the usage of
// a completion last; /props gives the context.
func TestCountMethods(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes map[string]string
		method string
		want   int
	}{
		{"llama.cpp", map[string]string{"/v1/chat/completions/input_tokens": "llamacpp-input-tokens.json", "/v1/chat/completions": "llamacpp-chat.json"}, CountInputTokens, 1807},
		{"vLLM", map[string]string{"/tokenize": "vllm-tokenize.json", "/v1/chat/completions": "vllm-chat.json"}, CountTokenize, 1811},
		{"Ollama", map[string]string{"/v1/chat/completions": "ollama-chat.json"}, CountUsage, 1809},
	} {
		srv, _ := recordedServer(t, tc.routes)
		h, err := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // the second count skips the methods found missing
			c, err := h.ServerCount(context.Background(), textRequest)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if c.Method != tc.method || c.PromptTokens != tc.want || c.TextSource != "server" {
				t.Errorf("%s: %+v", tc.name, c)
			}
		}
	}
	srv, _ := recordedServer(t, map[string]string{"/props": "llamacpp-props.json"})
	h, _ := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}})
	if info, ok, err := h.props(context.Background()); !ok || err != nil || info.Context != 262144 || info.Build != "b6990-8c583242" {
		t.Errorf("props: %+v %v %v", info, ok, err)
	}
}

// TestRefusedAnswerIsCached: a refusal is returned as *RefusedError and served from the
// cache the second time; a success too.
func TestAnswerCache(t *testing.T) {
	for _, tc := range []struct {
		file    string
		refused bool
	}{{"llamacpp-exceed-context.json", true}, {"llamacpp-chat.json", false}} {
		srv, hits := recordedServer(t, map[string]string{"/v1/chat/completions": tc.file})
		cache, err := OpenCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		h, _ := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}, Cache: cache, Model: "m"})
		for i := 0; i < 2; i++ {
			a, err := h.Answer(context.Background(), textRequest)
			r, isRefused := AsRefused(err)
			if isRefused != tc.refused {
				t.Fatalf("%s: err %v", tc.file, err)
			}
			if tc.refused && r.Context != 262144 {
				t.Errorf("%s: %+v", tc.file, r)
			}
			if !tc.refused && (a.Text != "The square is red." || a.Cached != (i == 1) || len(a.Key) != 64) {
				t.Errorf("%s run %d: %+v", tc.file, i, a)
			}
		}
		if hits.Load() != 1 {
			t.Errorf("%s: %d requests, want 1 (the second from the cache)", tc.file, hits.Load())
		}
		if n, _ := cache.Len(); n != 1 {
			t.Errorf("%s: %d cache entries", tc.file, n)
		}
	}
}

// TestRetries: 503 and 429 are retried with backoff up to the limit; 401 is not.
func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		fail, status, retries int
		wantErr               bool
		wantHits              int64
	}{
		{2, 503, 3, false, 3},
		{5, 429, 2, true, 3},
		{1, 401, 3, true, 1},
	} {
		var hits atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) <= int64(tc.fail) {
				w.WriteHeader(tc.status)
				w.Write([]byte(`{"error":{"message":"busy"}}`))
				return
			}
			w.Write(readResponse(t, "ollama-chat.json"))
		}))
		h, _ := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}, MaxRetries: tc.retries, Backoff: time.Millisecond, Count: CountUsage})
		_, err := h.ServerCount(context.Background(), textRequest)
		srv.Close()
		if (err != nil) != tc.wantErr || hits.Load() != tc.wantHits {
			t.Errorf("fail %d × %d, retries %d: err %v, %d requests", tc.fail, tc.status, tc.retries, err, hits.Load())
		}
	}
}

// TestCancel: a cancelled context stops a request in flight.
func TestCancel(t *testing.T) {
	srv := testserver.New(testserver.Config{Counter: PromptTokens(newOffline(t)), Delay: 5 * time.Second})
	defer srv.Close()
	h, _ := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := h.Answer(ctx, textRequest)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

// TestAPIKeyNeverInErrors: the key goes as a header and appears in no error message; user info
// in an endpoint URL is redacted.
func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-planted-9d8c"
	srv := testserver.New(testserver.Config{Counter: PromptTokens(newOffline(t)), APIKey: "other"})
	defer srv.Close()
	url := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
	h, err := NewHTTP(HTTPConfig{Endpoints: []string{url}, Getenv: func(string) string { return key }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Answer(context.Background(), textRequest)
	if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "401") {
		t.Errorf("error %v", err)
	}
}

// TestVerbatimSendsRecordedBytes: a verbatim request carries each OpenAI message's recorded
// bytes; others are rendered from their parts.
func TestVerbatimSendsRecordedBytes(t *testing.T) {
	raw := `{"role":"tool","tool_call_id":"c1","content":"Screenshot: iVBORw0KGgo AAAA"}`
	msgs := []corpora.Message{
		{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hi"}}, Raw: []byte(`{"id":"x","role":"user","contentParts":[]}`)},
		{Role: corpora.RoleTool, ToolCallID: "c1", Parts: []corpora.Part{{Kind: corpora.PartText, Text: "changed"}}, Raw: []byte(raw)},
	}
	got, err := OpenAIMessages(Request{Messages: msgs, Verbatim: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":"hi"},` + raw + `]`
	if string(got) != want {
		t.Errorf("verbatim messages\n got %s\nwant %s", got, want)
	}
	got, _ = OpenAIMessages(Request{Messages: msgs})
	if !strings.Contains(string(got), `"content":"changed"`) {
		t.Errorf("non-verbatim messages: %s", got)
	}
}

// TestAnthropicBody renders tool calls, results and pictures as Messages blocks.
func TestAnthropicBody(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	req := Request{Messages: []corpora.Message{
		{Role: corpora.RoleSystem, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "be brief"}}},
		{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "look"}}},
		{Role: corpora.RoleAssistant, Parts: []corpora.Part{{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "t1", Name: "shot", Arguments: `{"a":1}`}}}},
		{Role: corpora.RoleTool, ToolCallID: "t1", Parts: []corpora.Part{{Kind: corpora.PartText, Text: "done"}, {Kind: corpora.PartImage, Image: &corpora.Image{Data: png}}}},
	}}
	b, err := anthropicBody("claude", req, true, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"system":"be brief"`, `{"id":"t1","input":{"a":1},"name":"shot","type":"tool_use"}`,
		`"tool_use_id":"t1","type":"tool_result"`, `"media_type":"image/png"`, `"max_tokens":64`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("body lacks %s:\n%s", want, b)
		}
	}
}
