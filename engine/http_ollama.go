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
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/strata-eval/strata-eval/measure/prompt"
)

// APIOllama is Ollama's native chat API.
const APIOllama = "ollama"

// ollamaProtocol is Ollama's native /api/chat (http_ollama.go).
type ollamaProtocol struct{}

func (ollamaProtocol) Name() string { return APIOllama }
func (ollamaProtocol) Summary() string {
	return "Ollama's /api/chat; --ctx is sent as num_ctx"
}
func (ollamaProtocol) CompletionPath() string               { return "/api/chat" }
func (ollamaProtocol) CountMethods() []string               { return []string{CountUsage} } // prompt_eval_count
func (ollamaProtocol) ParseAnswer(b []byte) (Answer, error) { return parseOllamaAnswer(b) }
func (ollamaProtocol) SetHeaders(h http.Header, key string) { bearerKey(h, key) }
func (ollamaProtocol) HealthPath() string                   { return "/api/version" }
func (ollamaProtocol) SendsContext() bool                   { return true }
func (ollamaProtocol) ServesTemplates() bool                { return false }
func (ollamaProtocol) CountCall(method, model string, req Request) (CountCall, error) {
	if method == CountTokenize {
		return tokenizeCall(model, req)
	}
	return CountCall{}, noCountMethod(APIOllama, method)
}
func (ollamaProtocol) Probe(ctx context.Context, h *HTTP, want int) (ServerReport, error) {
	version, _, _ := h.ollamaVersion(ctx) // the version is said in the report where Ollama says it
	return h.probeOllama(ctx, version, want)
}
func (ollamaProtocol) Body(model string, req Request, s BodySettings) ([]byte, error) {
	n := s.MaxTokens
	if !s.Generate {
		n = 1
	}
	return ollamaBody(model, req, n, s.NumCtx)
}

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

// ollamaModel is what Ollama says of the model a run sends to.
type ollamaModel struct {
	// Context is the context the loaded model runs with (/api/ps context_length): num_ctx as
	// the run sent it, or Ollama's default, capped at the model's trained context.
	Context int
	// Template, System, Family and Capabilities come from /api/show.
	Template     string
	System       string
	Messages     []api.Message
	Family       string
	Capabilities []string
	// Identity is the model's digest (/api/tags), its parameters and template (/api/show).
	Identity []string
}

// ollamaShow asks Ollama for the model: /api/show, then a load of the model with the run's
// options (an /api/chat without messages) and /api/ps for the context it runs with.
func (h *HTTP) ollamaShow(ctx context.Context) (ollamaModel, error) {
	ep := h.endpoints[0]
	var m ollamaModel
	show := func(data []byte) error {
		var v struct {
			Template     string        `json:"template"`
			Parameters   string        `json:"parameters"`
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
		m.Identity = append(m.Identity, "parameters="+v.Parameters, "template="+v.Template, "system="+v.System)
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
	if digest := h.ollamaDigest(ctx); digest != "" {
		m.Identity = append(m.Identity, "digest="+digest)
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

// ollamaDigest is the digest /api/tags lists for the model ("" when it lists none).
func (h *HTTP) ollamaDigest(ctx context.Context) string {
	var digest string
	check := func(data []byte) error {
		var v struct {
			Models []struct {
				Name   string `json:"name"`
				Model  string `json:"model"`
				Digest string `json:"digest"`
			} `json:"models"`
		}
		if json.Unmarshal(data, &v) != nil {
			return &unsupportedError{"/api/tags is not JSON"}
		}
		for _, m := range v.Models {
			if ollamaSameModel(m.Name, h.cfg.Model) || ollamaSameModel(m.Model, h.cfg.Model) {
				digest = m.Digest
			}
		}
		return nil
	}
	if ok, err := h.probeGET(ctx, "/api/tags", check); !ok || err != nil {
		return ""
	}
	return digest
}

// ollamaVersion asks the first endpoint for Ollama's GET /api/version: its version, and
// false (no error) when the server is not Ollama (no such path, an answer without a version).
func (h *HTTP) ollamaVersion(ctx context.Context) (string, bool, error) {
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

// probeOllama asks Ollama for the model the run sends to (/api/show, then /api/ps once it is
// loaded with the run's num_ctx): the context it really runs with decides the verdicts, and a
// prompt longer than that context is truncated by Ollama, not refused. The computed counts
// render the model's Go template (--template's, else the one the server reports) over the
// conversation as Ollama converts the protocol the requests are sent with.
func (h *HTTP) probeOllama(ctx context.Context, version string, want int) (ServerReport, error) {
	info, err := h.ollamaShow(ctx)
	if errors.Is(err, ErrServerGone) {
		return ServerReport{}, err
	}
	if err != nil {
		return ServerReport{}, fmt.Errorf("cannot read the model's context from Ollama: %w", err)
	}
	r := ServerReport{Server: "Ollama", Context: info.Context, ContextSet: true, Truncates: true,
		Identity: append(info.Identity, "version="+version), NoPictures: !slices.Contains(info.Capabilities, "vision")}
	if version != "" {
		r.Server += " " + version
	}
	if _, native := h.proto.(ollamaProtocol); !native {
		r.Server += " through its " + h.API() + " API"
	}
	r.Server += ", model " + h.Model()
	if info.Family != "" {
		r.Server += " (" + info.Family + ")"
	}
	if want > 0 && info.Context < want {
		why := "num_ctx is capped at the model's trained context"
		if !h.proto.SendsContext() {
			why = fmt.Sprintf("the %s API sends no num_ctx: the Modelfile's PARAMETER num_ctx or OLLAMA_CONTEXT_LENGTH sets it", h.API())
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("Ollama runs %s with a context of %d, not --ctx %d (%s)", h.Model(), info.Context, want, why))
	}
	r.Template = func(current prompt.Template, name string, given bool, tokenizer string) (prompt.Template, []string, error) {
		return h.ollamaTemplate(info, current, name, given, tokenizer)
	}
	return r, nil
}

// ollamaTemplate chooses the template of the computed counts: --template's when it is an Ollama
// template, else the one the server reports (a --template of another kind is kept, with a
// warning), rendered over the conversation as Ollama converts the protocol spoken.
func (h *HTTP) ollamaTemplate(info ollamaModel, current prompt.Template, name string, given bool, tokenizer string) (prompt.Template, []string, error) {
	t, ok := current.(*prompt.OllamaTemplate)
	switch {
	case !ok && given:
		return nil, []string{fmt.Sprintf("Ollama renders the prompt with the model's Go template, not %q: server − computed counts the difference (pass --template with the model's Modelfile or a .gotmpl holding `ollama show --template %s`, or no --template to take the server's)", name, h.Model())}, nil
	case !ok:
		var err error
		if t, err = prompt.OllamaTemplateFor("ollama:"+h.Model(), prompt.OllamaModel{Template: info.Template, System: info.System,
			Messages: info.Messages, Family: info.Family, Name: h.Model()}, tokenizer); err != nil {
			return nil, nil, fmt.Errorf("the template Ollama reports for %s: %w", h.Model(), err)
		}
	}
	through, err := t.Through(h.API())
	if err != nil {
		return t, []string{fmt.Sprintf("%v: the computed counts render the conversation as Ollama's native API takes it", err)}, nil
	}
	return through, nil, nil
}
