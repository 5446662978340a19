package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

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

// openAIBody renders a request as an OpenAI Chat Completions body for model ("" leaves the
// key out). generate adds the generation settings (maxTokens, temperature 0).
func openAIBody(model string, req Request, generate bool, maxTokens int) ([]byte, error) {
	if err := heldRun(req); err != nil {
		return nil, err
	}
	msgs, err := OpenAIMessages(req)
	if err != nil {
		return nil, err
	}
	b := bodyStart(model)
	b.WriteString(`"messages":`)
	b.Write(msgs)
	if tools := corpora.OpenAITools(req.Tools); tools != nil {
		b.WriteString(`,"tools":`)
		b.Write(tools)
	}
	if generate {
		fmt.Fprintf(b, `,"max_tokens":%d,"temperature":0,"stream":false`, maxTokens)
	}
	b.WriteString("}")
	return b.Bytes(), nil
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

// tokenizeBody is vLLM's /tokenize body for chat messages.
func (h *HTTP) tokenizeBody(req Request) ([]byte, error) {
	if err := heldRun(req); err != nil {
		return nil, err
	}
	msgs, err := OpenAIMessages(req)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"model":`)
	b.Write(mustJSON(h.cfg.Model))
	b.WriteString(`,"messages":`)
	b.Write(msgs)
	b.WriteString(`,"add_generation_prompt":true}`)
	return b.Bytes(), nil
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

// OpenAIMessages renders the messages of a request as an OpenAI Chat Completions messages
// array, exactly as the arm produced them (the shape of --dump: pictures as image_url parts
// with data URLs, text as text). A verbatim request sends each message's recorded bytes when
// they are an OpenAI chat message, and renders the others from their parts, tool results as
// the client sent them.
func OpenAIMessages(req Request) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range req.Messages {
		if i > 0 {
			b.WriteByte(',')
		}
		m := &req.Messages[i]
		if req.Verbatim && openAIShaped(m.Raw) {
			if err := json.Compact(&b, m.Raw); err != nil {
				return nil, fmt.Errorf("message %d (%s): recorded bytes: %w", i, m.Loc, err)
			}
			continue
		}
		flat := corpora.FlattenToolResults(*m)
		if err := corpora.WriteOpenAIMessage(&b, &flat); err != nil {
			return nil, fmt.Errorf("message %d (%s): %w", i, m.Loc, err)
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// openAIShaped says whether raw is a Chat Completions message: an object with a chat role,
// no "type" (Responses items) and no Chatbox fields, whose content parts are of chat kinds.
func openAIShaped(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var role string
	if json.Unmarshal(v["role"], &role) != nil {
		return false
	}
	switch role {
	case "system", "developer", "user", "assistant", "tool", "function":
	default:
		return false
	}
	for _, k := range []string{"type", "contentParts", "id"} {
		if _, ok := v[k]; ok {
			return false
		}
	}
	content := v["content"]
	var parts []map[string]json.RawMessage
	if json.Unmarshal(content, &parts) != nil {
		return true // a string, null or absent
	}
	for _, p := range parts {
		var t string
		_ = json.Unmarshal(p["type"], &t)
		switch t {
		case "text", "image_url", "input_audio", "file", "refusal":
		default:
			return false
		}
	}
	return true
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

// anthropicBody renders a request as an Anthropic Messages body: system text apart, tool calls
// as tool_use blocks, tool messages as tool_result blocks of a user turn (consecutive ones
// merged), pictures as base64 image blocks.
func anthropicBody(model string, req Request, generate bool, maxTokens int) ([]byte, error) {
	type msg struct {
		Role    string `json:"role"`
		Content []any  `json:"content"`
	}
	var system []string
	var msgs []msg
	add := func(role string, blocks []any) {
		if len(blocks) == 0 {
			blocks = []any{map[string]any{"type": "text", "text": ""}}
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, msg{Role: role, Content: blocks})
	}
	for _, m := range req.Messages {
		m = corpora.FlattenToolResults(m)
		switch m.Role {
		case corpora.RoleSystem:
			var parts []string
			for _, p := range m.Parts {
				if p.Kind == corpora.PartText {
					parts = append(parts, p.Text)
				}
			}
			system = append(system, strings.Join(parts, "\n"))
		case corpora.RoleTool:
			add("user", []any{map[string]any{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": anthropicBlocks(m.Parts)}})
		case corpora.RoleAssistant:
			add("assistant", anthropicBlocks(m.Parts))
		default:
			add("user", anthropicBlocks(m.Parts))
		}
	}
	body := map[string]any{"messages": msgs}
	if model != "" {
		body["model"] = model
	}
	if len(system) > 0 {
		body["system"] = strings.Join(system, "\n\n")
	}
	if len(req.Tools) > 0 {
		var tools []map[string]any
		for _, t := range req.Tools {
			schema := t.Parameters
			if len(schema) == 0 || !json.Valid(schema) {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": schema})
		}
		body["tools"] = tools
	}
	if generate {
		body["max_tokens"] = maxTokens
		body["temperature"] = 0
	}
	return mustJSON(body), nil
}

func anthropicBlocks(ps []corpora.Part) []any {
	var out []any
	for _, p := range ps {
		switch p.Kind {
		case corpora.PartText:
			out = append(out, map[string]any{"type": "text", "text": p.Text})
		case corpora.PartImage:
			if p.Image == nil {
				continue
			}
			mime := corpora.SniffImage(p.Image.Data)
			if mime == "" {
				mime = "image/png"
			}
			out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mime,
				"data": base64.StdEncoding.EncodeToString(p.Image.Data)}})
		case corpora.PartToolCall:
			if p.ToolCall == nil {
				continue
			}
			input := json.RawMessage(p.ToolCall.Arguments)
			if !json.Valid(input) || !bytes.HasPrefix(bytes.TrimSpace(input), []byte("{")) {
				input = json.RawMessage(`{}`)
			}
			out = append(out, map[string]any{"type": "tool_use", "id": p.ToolCall.ID, "name": p.ToolCall.Name, "input": input})
		}
	}
	return out
}

// ApplyTemplate asks a llama.cpp server for the prompt its chat template makes of req
// (POST /apply-template, the body of a count). ok is false when the server has no such
// endpoint (not llama.cpp) or the protocol is not one llama.cpp serves.
func (h *HTTP) ApplyTemplate(ctx context.Context, req Request) (prompt string, ok bool, err error) {
	if !h.proto.ServesTemplates() {
		return "", false, nil
	}
	body, err := h.body(req, false)
	if err != nil {
		return "", false, err
	}
	ep := h.pick()
	var answer *string
	check := func(data []byte) error {
		var v struct {
			Prompt *string `json:"prompt"`
		}
		if json.Unmarshal(data, &v) != nil || v.Prompt == nil {
			return &unsupportedError{fmt.Sprintf("%s/apply-template: no prompt in the answer", ep.display)}
		}
		answer = v.Prompt
		return nil
	}
	// The prompt holds the request's text: the answer may be as large as the request.
	limit := int64(len(body)) + maxPropsBody
	if _, err := h.post(ctx, ep, call{method: http.MethodPost, path: "/apply-template", body: body, count: true, limit: limit, check: check, noCache: true}); err != nil {
		var unsupported *unsupportedError
		if errors.As(notFoundAsUnsupported(err), &unsupported) {
			return "", false, nil
		}
		return "", false, err
	}
	return *answer, true, nil
}
