package engine

// OpenAI Chat Completions (--api openai): the body, the answer, the counting endpoints.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
)

// APIOpenAI is OpenAI Chat Completions (llama.cpp server, vLLM, Ollama, LM Studio).
const APIOpenAI = "openai"

// openAIProtocol is OpenAI Chat Completions, as llama.cpp's server, vLLM, Ollama and LM
// Studio serve it.
type openAIProtocol struct{}

func (openAIProtocol) Name() string { return APIOpenAI }
func (openAIProtocol) Summary() string {
	return "Chat Completions: llama-server, vLLM, Ollama's /v1, LM Studio"
}
func (openAIProtocol) CompletionPath() string { return "/v1/chat/completions" }
func (openAIProtocol) CountMethods() []string {
	return []string{CountInputTokens, CountTokenize, CountUsage}
}
func (openAIProtocol) CountCall(method, model string, req Request) (CountCall, error) {
	switch method {
	case CountInputTokens:
		body, err := openAIBody(model, req, false, 0)
		return CountCall{Path: "/v1/chat/completions/input_tokens", Field: "input_tokens", Body: body}, err
	case CountTokenize:
		return tokenizeCall(model, req)
	}
	return CountCall{}, noCountMethod(APIOpenAI, method)
}
func (openAIProtocol) Body(model string, req Request, s BodySettings) ([]byte, error) {
	return openAIBody(model, req, s.Generate, s.MaxTokens)
}
func (openAIProtocol) ParseAnswer(body []byte) (Answer, error) { return ParseChatCompletion(body) }
func (openAIProtocol) SetHeaders(h http.Header, key string)    { bearerKey(h, key) }
func (openAIProtocol) HealthPath() string                      { return "/health" }
func (openAIProtocol) SendsContext() bool                      { return false }
func (openAIProtocol) ServesTemplates() bool                   { return true }
func (openAIProtocol) Probe(ctx context.Context, h *HTTP, want int) (ServerReport, error) {
	return probeServer(ctx, h, want)
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

// ParseChatCompletion reads an OpenAI-compatible chat completion body: the first choice's
// content, usage and llama.cpp's timings.
func ParseChatCompletion(body []byte) (Answer, error) {
	var v struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
		Timings *Timings `json:"timings"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return Answer{}, fmt.Errorf("chat completion: %w", err)
	}
	if len(v.Choices) == 0 {
		return Answer{}, errors.New("chat completion: no choices")
	}
	ans := Answer{Model: v.Model, FinishReason: v.Choices[0].FinishReason, Timings: v.Timings}
	ans.Text = contentText(v.Choices[0].Message.Content)
	if v.Usage != nil {
		ans.PromptTokens, ans.CompletionTokens = v.Usage.PromptTokens, v.Usage.CompletionTokens
	}
	return ans, nil
}

// contentText returns a content value's text: a string, or the text parts of an array.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "output_text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
