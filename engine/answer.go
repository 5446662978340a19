package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/strata-eval/strata-eval/corpora"
)

// Request is what an arm hands an engine: the messages, the declared tools, and whether the
// messages go out verbatim (each message's recorded bytes when it has them).
type Request struct {
	Messages []corpora.Message
	Tools    []corpora.ToolDef
	// Verbatim sends every message exactly as the client recorded it (corpora.Message.Raw),
	// for servers with their own lifting pipeline (the "verbatim" server side).
	Verbatim bool
	// MaxCount is the largest prompt count the caller finds plausible for the request; a
	// server's count above it (or below zero) is an invalid answer, never used or cached
	// (0: only the engine's own bound, 2^28).
	MaxCount int
	// fresh sends the request whatever the cache holds, and keeps its answer out of it (the
	// probes that identify a server).
	fresh bool
}

// RequestCounter is an engine that counts a Request (verbatim or not). Engines that are not
// one count Request.Messages with Engine.Count.
type RequestCounter interface {
	CountRequest(ctx context.Context, req Request) (Count, error)
}

// Answer is a model's reply to a request, with what the server reported about it.
type Answer struct {
	// Text is the assistant's reply (text parts joined).
	Text string `json:"text"`
	// PromptTokens and CompletionTokens are the server's usage (0 when not reported).
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	// Timings are llama.cpp server's timings, when it sent them.
	Timings *Timings `json:"timings,omitempty"`
	// FinishReason is the server's finish_reason / stop_reason.
	FinishReason string `json:"finish_reason,omitempty"`
	// Model is the model name the server answered with.
	Model string `json:"model,omitempty"`
	// Key is the response-cache key of the request; Cached says the answer came from the cache.
	Key    string `json:"key,omitempty"`
	Cached bool   `json:"cached,omitempty"`
}

// Timings are the prompt and generation timings llama.cpp's server adds to every response.
type Timings struct {
	CacheN      int     `json:"cache_n"`
	PromptN     int     `json:"prompt_n"`
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
}

// Answerer is an engine that generates: it answers a request with the model.
type Answerer interface {
	Engine
	Answer(ctx context.Context, req Request) (Answer, error)
}

// RefusedError is a server's refusal of a prompt that does not fit its context (an HTTP 400
// naming the context size): a verdict of the case, not a failure of the run.
type RefusedError struct {
	Status  int
	Message string // the server's message, as sent
	// PromptTokens and Context are the prompt size and context size, when the server named them.
	PromptTokens int
	Context      int
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused by the server (HTTP %d): %s", e.Status, e.Message)
}

// AsRefused returns the refusal err carries, if any.
func AsRefused(err error) (*RefusedError, bool) {
	var r *RefusedError
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// CountOf counts req with e: through RequestCounter when e is one, else with e.Count.
func CountOf(ctx context.Context, e Engine, req Request) (Count, error) {
	if rc, ok := e.(RequestCounter); ok {
		return rc.CountRequest(ctx, req)
	}
	return e.Count(ctx, req.Messages, req.Tools)
}
