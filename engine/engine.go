// Package engine counts (and, for live engines, answers) the requests an arm produced. The
// offline engine computes counts with the project's own tokenizers and image-row rules.
package engine

import (
	"context"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/measure/prompt"
)

// Count is the prompt cost of one request.
type Count struct {
	TextTokens   int
	Images       []ImageCount // every picture that reaches the model, in prompt order
	ImageRows    int          // sum of Images[i].Rows.Total
	PromptTokens int          // TextTokens + ImageRows
	TextSource   string       // tokenizer, server
	RowsSource   string       // tokenizer, estimate, mtmd, server ("" without pictures)
}

// ImageCount is the cost of one picture as the model receives it.
type ImageCount struct {
	Width, Height int
	Rows          imagerows.Rows
}

// PromptTokens counts the prompt tokens of a request with e: what a test server that counts
// as e does answers (internal/testkit/testserver).
func PromptTokens(e Engine) func(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (int, error) {
	return func(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (int, error) {
		c, err := e.Count(ctx, msgs, tools)
		return c.PromptTokens, err
	}
}

// Engine counts the prompt of a request as the model receives it.
type Engine interface {
	// Name identifies the engine in reports.
	Name() string
	// Count returns the prompt cost of the messages (parts of kind text, image, tool_call,
	// opaque) with the declared tools.
	Count(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (Count, error)
}

// The optional capabilities of an engine: run asks an engine for each, so that a new engine
// reports its model, servers and context by having the methods, without run knowing its type.

// ModelNamer names the model an engine counts with (results.json config.model).
type ModelNamer interface {
	Model() string
}

// EndpointLister lists the servers an engine sends to, user info redacted (config.endpoints).
type EndpointLister interface {
	Endpoints() []string
}

// ProtocolNamer names the protocol an engine speaks to its servers (config.api).
type ProtocolNamer interface {
	API() string
}

// SelfDescriber is an engine that runs the model itself and knows what it runs.
type SelfDescriber interface {
	Describe() Description
}

// Description is what an engine that runs the model itself says of it.
type Description struct {
	// Server describes what counts (config.server).
	Server string
	// Context is the model's context (0: unknown); --ctx wins over it.
	Context int
	// Blind says why no pixels reach the model ("" when they do): rows are still estimated.
	Blind string
}

// ServerProber is an engine whose servers can be asked what they run (each protocol asks
// in its own way: llama.cpp's /props, Ollama's /api/version, /api/show and /api/ps).
type ServerProber interface {
	// Probe asks the server; want is the run's --ctx (0 for none).
	Probe(ctx context.Context, want int) (ServerReport, error)
}

// ServerReport is what a server says of what it runs, as a run uses it.
type ServerReport struct {
	// Server describes the server (config.server; "" when it did not say).
	Server string
	// Context is the server's context (0: unknown). A --ctx larger than it gives way to it
	// (unless forced), and it is the run's context when no --ctx is given.
	Context int
	// ContextSet says Context is the one the model runs with whatever --ctx says (the server
	// set it from the requests and capped it): it decides the verdicts.
	ContextSet bool
	// ContextErr says why the context could not be read from ContextSource: a run without
	// --ctx stops.
	ContextErr    error
	ContextSource string
	// ModelPath is the model file the server runs ("" when it did not say); CompareTokenizer
	// says its tokens are those of that file, so --tokenizer is compared with it.
	ModelPath        string
	CompareTokenizer bool
	// Identity is what the server says of itself that changes a count (its model file, build,
	// chat template, context, modalities; a model's digest): part of the response cache's
	// key. NoPictures says the server said it takes no pictures.
	Identity   []string
	NoPictures bool
	// Truncates says the server cuts a prompt longer than its context instead of refusing it.
	Truncates bool
	// Warnings are said once, in the report.
	Warnings []string
	// Template, when not nil, chooses the template of the computed counts from the one the
	// run has (current, named name; given when --template named it) and the one the server
	// renders with: the template to use (nil: keep current) and what to warn of.
	Template func(current prompt.Template, name string, given bool, tokenizer string) (prompt.Template, []string, error)
}

// TemplateApplier is an engine whose server renders its chat template on request
// (llama.cpp's /apply-template); ok is false when it cannot.
type TemplateApplier interface {
	ApplyTemplate(ctx context.Context, req Request) (prompt string, ok bool, err error)
}
