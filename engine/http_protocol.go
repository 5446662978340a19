package engine

import (
	"fmt"
	"net/http"
	"strings"
)

// Protocol is an HTTP API the http engine speaks: where a completion and a count are posted,
// the body a request becomes, how an answer is read, the headers that carry the key, the
// counting methods "auto" tries and the path that says a server is still there. A new
// protocol is a value of it in protocols.
type Protocol interface {
	// Name is the value of --api.
	Name() string
	// Summary says what the protocol is, for --api's help.
	Summary() string
	// CompletionPath is where a completion is posted; its answer carries the prompt's count.
	CompletionPath() string
	// CountPath is the counting endpoint that takes the completion body and answers
	// input_tokens ("" when the protocol has none).
	CountPath() string
	// CountMethods are the counting methods "auto" tries, in order.
	CountMethods() []string
	// Body renders a request for model ("" leaves the model out).
	Body(model string, req Request, s BodySettings) ([]byte, error)
	// ParseAnswer reads a completion's answer: its text, the prompt's and the answer's counts.
	ParseAnswer(body []byte) (Answer, error)
	// SetHeaders puts the protocol's headers and the API key (when not "") on a request.
	SetHeaders(h http.Header, key string)
	// HealthPath is asked (GET) whether a server that is slow to answer is still there.
	HealthPath() string
	// SendsContext says whether a request carries the context the server is to run the model
	// with (BodySettings.NumCtx).
	SendsContext() bool
	// ServesTemplates says whether a server of the protocol may render its chat template on
	// request (llama.cpp's /apply-template) and say its context (/props).
	ServesTemplates() bool
}

// BodySettings are the settings of a request body besides the conversation.
type BodySettings struct {
	// Generate adds the generation settings (MaxTokens, temperature 0); without it the body
	// is the one a counting endpoint takes.
	Generate  bool
	MaxTokens int
	// NumCtx is the context the server is asked to run the model with, where the protocol
	// carries one (Ollama's options.num_ctx; 0: the server's own).
	NumCtx int
}

// protocols are the protocols of --api, the default first.
var protocols = []Protocol{openAIProtocol{}, anthropicProtocol{}, ollamaProtocol{}}

// ProtocolNames lists the values of --api, the default first.
func ProtocolNames() []string {
	var out []string
	for _, p := range protocols {
		out = append(out, p.Name())
	}
	return out
}

// ProtocolHelp describes the values of --api for its help.
func ProtocolHelp() string {
	var out []string
	for _, p := range protocols {
		out = append(out, p.Name()+" ("+p.Summary()+")")
	}
	return strings.Join(out, ", ")
}

// ProtocolNamed returns the protocol of --api name ("" for the default).
func ProtocolNamed(name string) (Protocol, error) {
	if name == "" {
		return protocols[0], nil
	}
	for _, p := range protocols {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown API %q (known: %s)", name, strings.Join(ProtocolNames(), ", "))
}

// bearerKey sends the key as a bearer token (OpenAI, Ollama).
func bearerKey(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// openAIProtocol is OpenAI Chat Completions, as llama.cpp's server, vLLM, Ollama and LM
// Studio serve it.
type openAIProtocol struct{}

func (openAIProtocol) Name() string { return APIOpenAI }
func (openAIProtocol) Summary() string {
	return "Chat Completions: llama-server, vLLM, Ollama's /v1, LM Studio"
}
func (openAIProtocol) CompletionPath() string { return "/v1/chat/completions" }
func (openAIProtocol) CountPath() string      { return "/v1/chat/completions/input_tokens" }
func (openAIProtocol) CountMethods() []string {
	return []string{CountInputTokens, CountTokenize, CountUsage}
}
func (openAIProtocol) Body(model string, req Request, s BodySettings) ([]byte, error) {
	return openAIBody(model, req, s.Generate, s.MaxTokens)
}
func (openAIProtocol) ParseAnswer(body []byte) (Answer, error) { return ParseChatCompletion(body) }
func (openAIProtocol) SetHeaders(h http.Header, key string)    { bearerKey(h, key) }
func (openAIProtocol) HealthPath() string                      { return "/health" }
func (openAIProtocol) SendsContext() bool                      { return false }
func (openAIProtocol) ServesTemplates() bool                   { return true }

// anthropicProtocol is Anthropic Messages.
type anthropicProtocol struct{}

func (anthropicProtocol) Name() string                         { return APIAnthropic }
func (anthropicProtocol) Summary() string                      { return "Messages" }
func (anthropicProtocol) CompletionPath() string               { return "/v1/messages" }
func (anthropicProtocol) CountPath() string                    { return "/v1/messages/count_tokens" }
func (anthropicProtocol) CountMethods() []string               { return []string{CountInputTokens, CountUsage} }
func (anthropicProtocol) HealthPath() string                   { return "/health" }
func (anthropicProtocol) SendsContext() bool                   { return false }
func (anthropicProtocol) ServesTemplates() bool                { return false }
func (anthropicProtocol) ParseAnswer(b []byte) (Answer, error) { return parseAnthropicAnswer(b) }
func (anthropicProtocol) Body(model string, req Request, s BodySettings) ([]byte, error) {
	return anthropicBody(model, req, s.Generate, s.MaxTokens)
}
func (anthropicProtocol) SetHeaders(h http.Header, key string) {
	h.Set("anthropic-version", "2023-06-01")
	if key != "" {
		h.Set("x-api-key", key)
	}
}

// ollamaProtocol is Ollama's native /api/chat (http_ollama.go).
type ollamaProtocol struct{}

func (ollamaProtocol) Name() string { return APIOllama }
func (ollamaProtocol) Summary() string {
	return "Ollama's /api/chat; --ctx is sent as num_ctx"
}
func (ollamaProtocol) CompletionPath() string               { return "/api/chat" }
func (ollamaProtocol) CountPath() string                    { return "" }
func (ollamaProtocol) CountMethods() []string               { return []string{CountUsage} } // prompt_eval_count
func (ollamaProtocol) ParseAnswer(b []byte) (Answer, error) { return parseOllamaAnswer(b) }
func (ollamaProtocol) SetHeaders(h http.Header, key string) { bearerKey(h, key) }
func (ollamaProtocol) HealthPath() string                   { return "/api/version" }
func (ollamaProtocol) SendsContext() bool                   { return true }
func (ollamaProtocol) ServesTemplates() bool                { return false }
func (ollamaProtocol) Body(model string, req Request, s BodySettings) ([]byte, error) {
	n := s.MaxTokens
	if !s.Generate {
		n = 1
	}
	return ollamaBody(model, req, n, s.NumCtx)
}
