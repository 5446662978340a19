// Package engine counts (and, for live engines, answers) the requests an arm produced. The
// offline engine computes counts with the project's own tokenizers and image-row rules.
package engine

import (
	"context"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/measure/imagerows"
)

// Count is the prompt cost of one request.
type Count struct {
	TextTokens   int
	Images       []ImageCount // every picture that reaches the model, in prompt order
	ImageRows    int          // sum of Images[i].Rows.Total
	PromptTokens int          // TextTokens + ImageRows
	TextSource   string       // tokenizer, server
	RowsSource   string       // tokenizer, estimate, server ("" without pictures)
}

// ImageCount is the cost of one picture as the model receives it.
type ImageCount struct {
	Width, Height int
	Rows          imagerows.Rows
}

// PromptTokens counts the prompt tokens of a request with e: what a test server that counts
// as e does answers (internal/testserver).
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
