package engine

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Protocol is an HTTP API the http engine speaks: where a completion is posted, the body a
// request becomes, how an answer is read, the headers that carry the key, how each counting
// method counts, the path that says a server is still there, and how a server is asked what
// it runs. A new protocol is one file (http_<name>.go), its test and one line in protocols;
// what several protocols share (capabilityRefusal, tokenizeCall, probeServer) is in common
// files.
type Protocol interface {
	// Name is the value of --api.
	Name() string
	// Summary says what the protocol is, for --api's help.
	Summary() string
	// CompletionPath is where a completion is posted; its answer carries the prompt's count.
	CompletionPath() string
	// CountMethods are the counting methods "auto" tries, in order.
	CountMethods() []string
	// CountCall is the request that counts req with a counting method other than usage (an
	// *unsupportedError when the protocol has none such: noCountMethod).
	CountCall(method, model string, req Request) (CountCall, error)
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
	// request (llama.cpp's /apply-template).
	ServesTemplates() bool
	// Probe asks the server h sends to what it runs (want: the run's --ctx, 0 for none).
	Probe(ctx context.Context, h *HTTP, want int) (ServerReport, error)
}

// CountCall is a request to a counting endpoint: Body posted to Path, the count in the
// answer's Field.
type CountCall struct {
	Path, Field string
	Body        []byte
}

// noCountMethod says a protocol has no endpoint for a counting method.
func noCountMethod(api, method string) error {
	return &FaultError{&unsupportedError{fmt.Sprintf("the %s API has no %s endpoint", api, method)}}
}

// tokenizeCall is vLLM's POST /tokenize with the chat messages (any protocol may find one).
func tokenizeCall(model string, req Request) (CountCall, error) {
	msgs, err := OpenAIMessages(req)
	if err != nil {
		return CountCall{}, err
	}
	var b bytes.Buffer
	b.WriteString(`{"model":`)
	b.Write(mustJSON(model))
	b.WriteString(`,"messages":`)
	b.Write(msgs)
	b.WriteString(`,"add_generation_prompt":true}`)
	return CountCall{Path: "/tokenize", Field: "count", Body: b.Bytes()}, nil
}

// probeServer asks a server spoken to over a protocol of its own kind (OpenAI's, Anthropic's)
// what it is: llama.cpp's /props first, then Ollama's /api/version (Ollama serves both APIs
// and is then asked over its own); a server that is neither is described by what /props
// said, if anything.
func probeServer(ctx context.Context, h *HTTP, want int) (ServerReport, error) {
	r, ok, err := probeLlamaServer(ctx, h)
	if err != nil {
		return r, err
	}
	if !ok && r.ContextErr == nil {
		if version, ollama, verr := h.ollamaVersion(ctx); verr == nil && ollama {
			return h.probeOllama(ctx, version, want)
		}
	}
	if models := h.modelsIdentity(ctx); models != "" {
		r.Identity = append(r.Identity, models)
	}
	return r, nil
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

// Probe asks the first server what it runs, as the protocol spoken asks (want: the run's
// --ctx, 0 for none).
func (h *HTTP) Probe(ctx context.Context, want int) (ServerReport, error) {
	r, err := h.proto.Probe(ctx, h, want)
	if err != nil {
		return r, err
	}
	return r, h.identify(ctx, &r)
}
