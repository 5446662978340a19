package engine

import (
	"bytes"
	"encoding/json"

	"github.com/strata-eval/strata-eval/corpora"
)

// body renders a request for the configured protocol. generate adds the generation settings
// (max_tokens, temperature 0); without it the body is the one a counting endpoint takes.
func (h *HTTP) body(req Request, generate bool, maxTokens ...int) ([]byte, error) {
	if err := heldRun(req); err != nil {
		return nil, err
	}
	s := BodySettings{Generate: generate, MaxTokens: h.cfg.MaxTokens, NumCtx: h.cfg.NumCtx}
	if len(maxTokens) > 0 {
		s.MaxTokens = maxTokens[0]
	}
	return h.proto.Body(h.cfg.Model, req, s)
}

// DumpBody is the body --dump writes for a request: the one the http engine e posts to its
// server's counting endpoint (the completion request adds only the generation settings), or,
// for an engine that sends nothing, the OpenAI Chat Completions body without a model.
// Credentials in URLs of the texts are redacted (corpora.RedactMessages): the arm counted the
// text as recorded, the dump does not show them, and only a message that holds one differs.
func DumpBody(e Engine, req Request) ([]byte, error) {
	req.Messages = corpora.RedactMessages(req.Messages)
	if h, ok := e.(*HTTP); ok {
		return h.body(req, false)
	}
	return openAIBody("", req, false, 0)
}

// bodyStart begins a JSON request body: `{` and the model when one is named.
func bodyStart(model string) *bytes.Buffer {
	var b bytes.Buffer
	b.WriteString(`{`)
	if model != "" {
		b.WriteString(`"model":`)
		b.Write(mustJSON(model))
		b.WriteString(`,`)
	}
	return &b
}

// heldRun says why a request cannot be sent to a server (nil when it can): a tool text holds a
// base64 run streamed past while reading, whose characters were not kept.
func heldRun(req Request) error {
	return corpora.HeldRun(req.Messages, req.Verbatim)
}

func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// countPictures counts image parts, inside tool results too.
func countPictures(msgs []corpora.Message) int { return corpora.CountImageParts(msgs) }

// withoutPictures returns the messages with every image part taken out (the rest shared).
func withoutPictures(msgs []corpora.Message) []corpora.Message {
	out := make([]corpora.Message, len(msgs))
	var strip func(ps []corpora.Part) []corpora.Part
	strip = func(ps []corpora.Part) []corpora.Part {
		kept := make([]corpora.Part, 0, len(ps))
		for _, p := range ps {
			switch {
			case p.Kind == corpora.PartImage:
				continue
			case p.Kind == corpora.PartToolResult && p.ToolResult != nil && len(p.ToolResult.Parts) > 0:
				r := *p.ToolResult
				r.Parts = strip(r.Parts)
				p.ToolResult = &r
			}
			kept = append(kept, p)
		}
		return kept
	}
	for i, m := range msgs {
		m.Parts = strip(m.Parts)
		out[i] = m
	}
	return out
}
