package engine

// What every protocol's servers say when they refuse a request: a capability the model lacks,
// a prompt longer than the context, a request judged bad.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

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

// badRequest says whether a status is the server's judgement of one request (malformed,
// too large, unprocessable): an error of the case, not a fault of the server.
func badRequest(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge || status == http.StatusUnprocessableEntity
}

// errorMessage extracts the message of an error body (OpenAI, llama.cpp, vLLM, Ollama,
// Anthropic shapes), or the body's start.
func errorMessage(data []byte) string {
	var v struct {
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case len(v.Detail) > 0 && json.Unmarshal(v.Detail, &s) == nil && s != "":
			return s
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}

// contextWords match the messages servers give for a prompt longer than the context.
var contextWords = regexp.MustCompile(`(?i)context|too long|too many tokens|maximum.{0,40}length|exceed`)

// refusal turns a 400/413 naming the context into a *RefusedError.
func refusal(status int, data []byte) (*RefusedError, bool) {
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return nil, false
	}
	msg := errorMessage(data)
	var v struct {
		Error struct {
			Type         string `json:"type"`
			NPromptToken int    `json:"n_prompt_tokens"`
			NCtx         int    `json:"n_ctx"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &v)
	if v.Error.Type != "exceed_context_size_error" && !contextWords.MatchString(msg) {
		return nil, false
	}
	ref := &RefusedError{Status: status, Message: msg}
	// sizes out of all bounds are not taken: the verdict stands, with the computed count
	if n, err := checkCountValue(int64(v.Error.NPromptToken), "n_prompt_tokens", maxServerCount); err == nil {
		ref.PromptTokens = n
	}
	if n, err := checkCountValue(int64(v.Error.NCtx), "n_ctx", maxServerCount); err == nil {
		ref.Context = n
	}
	return ref, true
}

// RequestRefusedError is a request a server failed twice with the same HTTP 5xx (not 503)
// while it answered a fixed request at once: the request's own error (its case's arm), not a
// fault of the server, which the circuit is for.
type RequestRefusedError struct{ Err error }

func (e *RequestRefusedError) Error() string {
	return fmt.Sprintf("%v (the server answers other requests: it refuses this one)", e.Err)
}

func (e *RequestRefusedError) Unwrap() error { return e.Err }

// Kind names the kind of refusal: its status and message.
func (e *RequestRefusedError) Kind() string {
	var se *StatusError
	if errors.As(e.Err, &se) {
		return fmt.Sprintf("HTTP %d %q", se.Status, se.Message)
	}
	return e.Err.Error()
}

// refusedAlone says whether err is an HTTP 5xx (not 503) from a server that still answers: a
// one-token completion of the probes' fixed text, sent at once (outside the concurrency
// limit, without retry), is answered 200.
func (h *HTTP) refusedAlone(ctx context.Context, ep *endpoint, err error) bool {
	var se *StatusError
	if !errors.As(err, &se) || se.Status < 500 || se.Status == http.StatusServiceUnavailable {
		return false
	}
	body, err := h.proto.Body(h.cfg.Model, Request{Messages: probeMessages(nil)}, BodySettings{Generate: true, MaxTokens: 1, NumCtx: h.cfg.NumCtx})
	if err != nil {
		return false
	}
	status, _, _, err := h.once(ctx, ep, call{method: http.MethodPost, path: h.proto.CompletionPath(), body: body, count: true, limit: maxAnswerBody(1)})
	return err == nil && status == http.StatusOK
}
