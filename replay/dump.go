package replay

import (
	"fmt"
	"io"

	"github.com/strata-eval/strata-eval/corpora"
)

// WriteOpenAIChat writes the request as the model receives it after an arm, in the OpenAI
// Chat Completions shape {"messages":[…]} (corpora.WriteOpenAIChat): pictures as image_url
// parts with data URLs, tool calls as tool_calls, then the declared tools. Credentials in URLs of
// the texts are redacted (corpora.RedactMessages): the arm counted the text as recorded, the dump
// does not show them.
func WriteOpenAIChat(w io.Writer, res *Result, tools ...corpora.ToolDef) error {
	if res == nil {
		return fmt.Errorf("write openai chat: no result")
	}
	if err := corpora.WriteOpenAIChat(w, corpora.RedactMessages(res.Messages), tools...); err != nil {
		return fmt.Errorf("write openai chat (arm %s): %w", res.Arm, err)
	}
	return nil
}
