package engine

// Ollama's native API (--api ollama): POST /api/chat with the conversation as
// prompt.OllamaChat builds it (pictures as base64 in images, tool-call arguments as objects),
// the prompt's count in prompt_eval_count; POST /api/show for the model's template and family;
// GET /api/ps for the context the loaded model really runs with.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/strata-eval/strata-eval/measure/prompt"
)

// APIOllama is Ollama's native chat API.
const APIOllama = "ollama"

// ollamaBody is an /api/chat body: one answer (stream off), temperature 0, num_predict tokens
// generated, and the context num_ctx when the run sets one.
func ollamaBody(model string, req Request, maxTokens, numCtx int) ([]byte, error) {
	chat, err := prompt.OllamaChat(req.Messages, req.Tools)
	if err != nil {
		return nil, err
	}
	b := bodyStart(model)
	fmt.Fprintf(b, `"stream":false,"options":{"temperature":0,"num_predict":%d`, max(maxTokens, 1))
	if numCtx > 0 {
		fmt.Fprintf(b, `,"num_ctx":%d`, numCtx)
	}
	b.WriteString(`},`)
	b.Write(chat.JSON[1:]) // {"messages":…,"tools":…}: its fields follow
	return b.Bytes(), nil
}

// parseOllamaAnswer reads an /api/chat answer: the message's content, prompt_eval_count and
// eval_count.
func parseOllamaAnswer(body []byte) (Answer, error) {
	var v struct {
		Model   string `json:"model"`
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		DoneReason      string `json:"done_reason"`
		PromptEvalCount *int64 `json:"prompt_eval_count"`
		EvalCount       int    `json:"eval_count"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return Answer{}, fmt.Errorf("the answer is not an Ollama chat answer: %w", err)
	}
	ans := Answer{Text: v.Message.Content, Model: v.Model, FinishReason: v.DoneReason, CompletionTokens: v.EvalCount}
	if v.PromptEvalCount != nil {
		n, err := checkCountValue(*v.PromptEvalCount, "prompt_eval_count", maxServerCount)
		if err != nil {
			return Answer{}, err
		}
		ans.PromptTokens = n
	}
	return ans, nil
}

// OllamaModel is what Ollama says of the model a run sends to.
type OllamaModel struct {
	// Context is the context the loaded model runs with (/api/ps context_length): num_ctx as
	// the run sent it, or Ollama's default, capped at the model's trained context.
	Context int
	// Template, System, Family and Capabilities come from /api/show.
	Template     string
	System       string
	Messages     []api.Message
	Family       string
	Capabilities []string
}

// OllamaShow asks Ollama for the model: /api/show, then a load of the model with the run's
// options (an /api/chat without messages) and /api/ps for the context it runs with.
func (h *HTTP) OllamaShow(ctx context.Context) (OllamaModel, error) {
	ep := h.endpoints[0]
	var m OllamaModel
	show := func(data []byte) error {
		var v struct {
			Template     string        `json:"template"`
			System       string        `json:"system"`
			Messages     []api.Message `json:"messages"`
			Capabilities []string      `json:"capabilities"`
			Details      struct {
				Family string `json:"family"`
			} `json:"details"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("/api/show is not JSON: %w", err)
		}
		m.Template, m.System, m.Messages, m.Family, m.Capabilities = v.Template, v.System, v.Messages, v.Details.Family, v.Capabilities
		return nil
	}
	body := mustJSON(map[string]string{"model": h.cfg.Model})
	if _, err := h.post(ctx, ep, call{method: http.MethodPost, path: "/api/show", body: body, count: true, limit: maxPropsBody, check: show, noCache: true}); err != nil {
		return m, err
	}
	if !slices.Contains(m.Capabilities, "vision") {
		// Ollama drops the pictures of a model that cannot see, and counts the rest: such a
		// count is not the request's, so requests with pictures are not sent.
		for _, e := range h.endpoints {
			e.lacks(ErrNoPictures, http.StatusOK,
				fmt.Sprintf("/api/show lists no vision capability for %s (capabilities: %s)", h.cfg.Model, strings.Join(m.Capabilities, ", ")))
		}
	}
	load, err := ollamaBody(h.cfg.Model, Request{}, 1, h.cfg.NumCtx)
	if err != nil {
		return m, err
	}
	ignore := func([]byte) error { return nil }
	if _, err := h.post(ctx, ep, call{method: http.MethodPost, path: "/api/chat", body: load, count: true, limit: maxCountBody, check: ignore, noCache: true}); err != nil {
		return m, fmt.Errorf("load the model: %w", err)
	}
	ps := func(data []byte) error {
		var v struct {
			Models []struct {
				Name          string          `json:"name"`
				Model         string          `json:"model"`
				ContextLength json.RawMessage `json:"context_length"`
			} `json:"models"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("/api/ps is not JSON: %w", err)
		}
		for _, r := range v.Models {
			if ollamaSameModel(r.Name, h.cfg.Model) || ollamaSameModel(r.Model, h.cfg.Model) {
				n, err := checkCount(r.ContextLength, "context_length", maxServerCount)
				m.Context = n
				return err
			}
		}
		return fmt.Errorf("/api/ps does not list %s", h.cfg.Model)
	}
	if _, err := h.post(ctx, ep, call{method: http.MethodGet, path: "/api/ps", count: true, limit: maxPropsBody, check: ps, noCache: true}); err != nil {
		return m, err
	}
	return m, nil
}

// OllamaVersion asks the first endpoint for Ollama's GET /api/version: its version, and
// false (no error) when the server is not Ollama (no such path, an answer without a version).
func (h *HTTP) OllamaVersion(ctx context.Context) (string, bool, error) {
	var version string
	check := func(data []byte) error {
		var v struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(data, &v) != nil || v.Version == "" {
			return &unsupportedError{"/api/version: no version in the answer"} // not Ollama
		}
		version = v.Version
		return nil
	}
	ok, err := h.probeGET(ctx, "/api/version", check)
	return version, ok, err
}

// ollamaSameModel says whether Ollama's name for a model is the one the run asked for ("tiny"
// is "tiny:latest").
func ollamaSameModel(listed, asked string) bool {
	return listed == asked || listed == asked+":latest"
}

// ErrNoTools says a server's model cannot take tool declarations.
var ErrNoTools = errors.New("the server's model does not take tools")

// capabilityWords match a 400 saying the model lacks a capability (Ollama: `"tiny" does not
// support tools`, `… does not support images`).
var capabilityWords = regexp.MustCompile(`(?i)does not support (tools|images|vision|insert|thinking)`)

// capabilityRefusal classifies a 400 naming a capability the model lacks: pictures and tools
// are remembered for the endpoint, so that the run says so once and sends no more such request.
func capabilityRefusal(ep *endpoint, status int, msg string) error {
	if status != http.StatusBadRequest {
		return nil
	}
	m := capabilityWords.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	switch m[1] {
	case "images", "vision":
		return ep.lacks(ErrNoPictures, status, msg)
	case "tools":
		return ep.lacks(ErrNoTools, status, msg)
	}
	return nil
}
