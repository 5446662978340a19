package engine

// Anthropic Messages (--api anthropic): the body, the answer, the counting endpoint.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
)

// APIAnthropic is Anthropic Messages.
const APIAnthropic = "anthropic"

// anthropicProtocol is Anthropic Messages.
type anthropicProtocol struct{}

func (anthropicProtocol) Name() string                         { return APIAnthropic }
func (anthropicProtocol) Summary() string                      { return "Messages" }
func (anthropicProtocol) CompletionPath() string               { return "/v1/messages" }
func (anthropicProtocol) CountMethods() []string               { return []string{CountInputTokens, CountUsage} }
func (anthropicProtocol) HealthPath() string                   { return "/health" }
func (anthropicProtocol) SendsContext() bool                   { return false }
func (anthropicProtocol) ServesTemplates() bool                { return false }
func (anthropicProtocol) ParseAnswer(b []byte) (Answer, error) { return parseAnthropicAnswer(b) }
func (anthropicProtocol) Body(model string, req Request, s BodySettings) ([]byte, error) {
	return anthropicBody(model, req, s.Generate, s.MaxTokens)
}
func (anthropicProtocol) CountCall(method, model string, req Request) (CountCall, error) {
	switch method {
	case CountInputTokens:
		body, err := anthropicBody(model, req, false, 0)
		return CountCall{Path: "/v1/messages/count_tokens", Field: "input_tokens", Body: body}, err
	case CountTokenize:
		return tokenizeCall(model, req)
	}
	return CountCall{}, noCountMethod(APIAnthropic, method)
}
func (anthropicProtocol) SetHeaders(h http.Header, key string) {
	h.Set("anthropic-version", "2023-06-01")
	if key != "" {
		h.Set("x-api-key", key)
	}
}
func (anthropicProtocol) Probe(ctx context.Context, h *HTTP, want int) (ServerReport, error) {
	return probeServer(ctx, h, want)
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

func parseAnthropicAnswer(body []byte) (Answer, error) {
	var v struct {
		Model   string `json:"model"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return Answer{}, fmt.Errorf("messages response: %w", err)
	}
	ans := Answer{Model: v.Model, FinishReason: v.StopReason, PromptTokens: v.Usage.InputTokens, CompletionTokens: v.Usage.OutputTokens}
	for _, c := range v.Content {
		if c.Type == "text" {
			ans.Text += c.Text
		}
	}
	return ans, nil
}
