package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// Counter counts the prompt tokens of a request as the server's model would:
// engine.PromptTokens of an engine (the offline engine, or the in-process llama.cpp engine).
type Counter func(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (int, error)

// Config configures a Server.
type Config struct {
	// Counter counts every request the server receives (real tokens and image rows).
	// Required.
	Counter Counter
	// Context is the server's context size: a longer prompt gets llama.cpp's 400
	// exceed_context_size_error (0: no limit).
	Context int
	// InputTokens serves POST /v1/chat/completions/input_tokens (llama.cpp ≥ b9540).
	InputTokens bool
	// Props serves GET /props with Context as n_ctx and ModelPath as model_path
	// ("test-model.gguf" when empty).
	Props     bool
	ModelPath string
	// Timings adds llama.cpp's timings object to completions.
	Timings bool
	// APIKey, when set, is required as "Authorization: Bearer KEY" (401 otherwise).
	APIKey string
	// Prepare, when set, is the server's own pipeline: it turns the request it receives into
	// what the model gets before counting and answering, as a server with its own lifting
	// pipeline does (tests pass the after arm of package replay).
	Prepare func(ctx context.Context, req corpora.Request) ([]corpora.Message, error)
	// Offset is added to every count (a server that diverges from the reference).
	Offset int
	// FailFirst answers the first FailFirst completion and counting requests with FailStatus
	// (503 when zero) and a Retry-After of 0.
	FailFirst  int
	FailStatus int
	// Delay holds every answer back (for timeouts and cancellation).
	Delay time.Duration
	// NoPictures answers a request with a picture as llama-server without --mmproj does:
	// HTTP 500 "image input is not supported".
	NoPictures bool
	// DieAfter, when above zero, stops the server (its port then refuses connections) once
	// it has answered that many POST requests: a server killed mid-run.
	DieAfter int
	// Answer returns the reply to a request as the model sees it (default: "I see N
	// picture(s).").
	Answer func(msgs []corpora.Message) string
	// ApplyTemplate, when set, serves llama.cpp's POST /apply-template: the prompt the
	// server's chat template makes of the request.
	ApplyTemplate func(msgs []corpora.Message, tools []corpora.ToolDef) (string, error)
}

// Server is an OpenAI-compatible server on loopback for tests: it reads each request
// with the project's own OpenAI reader, counts it with a real engine and answers with usage
// (and llama.cpp timings) as llama.cpp's server does.
type Server struct {
	*httptest.Server
	cfg Config

	mu       sync.Mutex
	requests map[string]int
	failed   int
	bodies   [][]byte
	// inFlight and maxInFlight count the POST requests being answered.
	inFlight, maxInFlight int
	posts                 int
	dying                 sync.Once
}

// New starts a Server; Close stops it.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, requests: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.completions)
	if cfg.InputTokens {
		mux.HandleFunc("POST /v1/chat/completions/input_tokens", s.inputTokens)
	}
	if cfg.ApplyTemplate != nil {
		mux.HandleFunc("POST /apply-template", s.applyTemplate)
	}
	if cfg.Props {
		model := cfg.ModelPath
		if model == "" {
			model = "test-model.gguf"
		}
		mux.HandleFunc("GET /props", func(w http.ResponseWriter, r *http.Request) {
			s.note(r.URL.Path, nil)
			writeJSON(w, http.StatusOK, map[string]any{"default_generation_settings": map[string]any{"n_ctx": cfg.Context},
				"model_path": model, "build_info": "b0000-test"})
		})
	}
	s.Server = httptest.NewServer(s.authorize(s.track(mux)))
	return s
}

// MaxInFlight returns the most POST requests the server was answering at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// track counts the POST requests in flight and stops the server after DieAfter of them.
func (s *Server) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		next.ServeHTTP(w, r)
		s.mu.Lock()
		s.inFlight--
		s.posts++
		die := s.cfg.DieAfter > 0 && s.posts >= s.cfg.DieAfter
		s.mu.Unlock()
		if die {
			// Close waits for the requests being answered, this one included: not from here
			s.dying.Do(func() { go s.Server.Close() })
		}
	})
}

// Requests returns how many requests each path received.
func (s *Server) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.requests))
	for k, v := range s.requests {
		out[k] = v
	}
	return out
}

// Bodies returns the bodies received, in order.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

func (s *Server) note(path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[path]++
	if body != nil {
		s.bodies = append(s.bodies, body)
	}
}

// shouldFail consumes one injected failure.
func (s *Server) shouldFail() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed < s.cfg.FailFirst {
		s.failed++
		return true
	}
	return false
}

func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.APIKey {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "Invalid API Key", "type": "authentication_error"}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// read parses and counts a request; it writes the error answer itself and returns ok=false.
func (s *Server) read(w http.ResponseWriter, r *http.Request) (msgs []corpora.Message, body map[string]json.RawMessage, n int, ok bool) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": err.Error()}})
		return nil, nil, 0, false
	}
	s.note(r.URL.Path, data)
	if s.cfg.Delay > 0 {
		select {
		case <-time.After(s.cfg.Delay):
		case <-r.Context().Done():
			return nil, nil, 0, false
		}
	}
	if s.shouldFail() {
		status := s.cfg.FailStatus
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Retry-After", "0")
		writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": "Loading model", "type": "unavailable_error"}})
		return nil, nil, 0, false
	}
	if err := json.Unmarshal(data, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": "invalid JSON: " + err.Error()}})
		return nil, nil, 0, false
	}
	conv, ok := readConversation(w, r, data)
	if !ok {
		return nil, nil, 0, false
	}
	msgs = conv.Messages
	if s.cfg.NoPictures && corpora.CountImageParts(msgs) > 0 {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"code": 500,
			"message": "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
			"type":    "server_error"}})
		return nil, nil, 0, false
	}
	if s.cfg.Prepare != nil {
		prepared, err := s.cfg.Prepare(r.Context(), corpora.Request{Conversation: conv, Messages: conv.Messages})
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"code": 500, "message": err.Error()}})
			return nil, nil, 0, false
		}
		msgs = prepared
	}
	tokens, err := s.cfg.Counter(r.Context(), msgs, conv.Tools)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"code": 500, "message": err.Error()}})
		return nil, nil, 0, false
	}
	return msgs, body, tokens + s.cfg.Offset, true
}

func (s *Server) inputTokens(w http.ResponseWriter, r *http.Request) {
	_, _, n, ok := s.read(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	msgs, body, n, ok := s.read(w, r)
	if !ok {
		return
	}
	if s.cfg.Context > 0 && n >= s.cfg.Context {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400,
			"message": "the request exceeds the available context size, try increasing it",
			"type":    "exceed_context_size_error", "n_prompt_tokens": n, "n_ctx": s.cfg.Context}})
		return
	}
	maxTokens := 0
	_ = json.Unmarshal(body["max_tokens"], &maxTokens)
	text := fmt.Sprintf("I see %d picture(s).", corpora.CountImageParts(msgs))
	if s.cfg.Answer != nil {
		text = s.cfg.Answer(msgs)
	}
	finish := "stop"
	if maxTokens > 0 {
		if words := strings.Fields(text); len(words) > maxTokens {
			text, finish = strings.Join(words[:maxTokens], " "), "length"
		}
	}
	completion := len(strings.Fields(text))
	var model string
	_ = json.Unmarshal(body["model"], &model)
	resp := map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1764496800, "model": model,
		"system_fingerprint": "b0000-test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": text}}},
		"usage": map[string]any{"prompt_tokens": n, "completion_tokens": completion, "total_tokens": n + completion,
			"prompt_tokens_details": map[string]any{"cached_tokens": 0}},
	}
	if s.cfg.Timings {
		resp["timings"] = map[string]any{"cache_n": 0, "prompt_n": n, "prompt_ms": float64(n) / 10,
			"prompt_per_token_ms": 0.1, "prompt_per_second": 10000.0, "predicted_n": completion,
			"predicted_ms": float64(completion) * 20, "predicted_per_token_ms": 20.0, "predicted_per_second": 50.0}
	}
	writeJSON(w, http.StatusOK, resp)
}

// readConversation reads a request body with the project's OpenAI reader; it writes the error
// answer itself and returns ok=false.
func readConversation(w http.ResponseWriter, r *http.Request, data []byte) (*corpora.Conversation, bool) {
	var col corpora.Collector
	if err := corpora.Read(r.Context(), "request.json", bytes.NewReader(data), corpora.FormatOpenAIChat, &col); err != nil || len(col.Conversations) != 1 {
		msg := fmt.Sprintf("cannot read the request (%v, %d problem(s))", err, len(col.Problems))
		if len(col.Problems) > 0 {
			msg += ": " + col.Problems[0].Error()
		}
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": msg, "type": "invalid_request_error"}})
		return nil, false
	}
	return col.Conversations[0], true
}

// applyTemplate answers POST /apply-template with the prompt of cfg.ApplyTemplate.
func (s *Server) applyTemplate(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": err.Error()}})
		return
	}
	s.note(r.URL.Path, nil)
	conv, ok := readConversation(w, r, data)
	if !ok {
		return
	}
	prompt, err := s.cfg.ApplyTemplate(conv.Messages, conv.Tools)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"code": 500, "message": err.Error()}})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompt": prompt})
}
