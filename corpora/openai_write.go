package corpora

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteOpenAIChat writes messages in the OpenAI Chat Completions shape, {"messages":[…]}, as
// a model server receives them: a message with a single text part has a string content; one
// with pictures has a content array whose pictures are image_url parts with data URLs (typed by
// their signature, else by their label). Tool calls become tool_calls; tool messages keep
// their tool_call_id and name; an assistant's recorded reasoning_content is kept (llama.cpp's
// server renders it, see ReasoningContent). Other opaque parts (thinking signatures) and
// tool-result parts are not part of this shape and are left out. Picture bytes are encoded
// straight to w. Tools, when given, follow as the request's "tools" array (OpenAITools), as the
// model receives them.
func WriteOpenAIChat(w io.Writer, msgs []Message, tools ...ToolDef) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	d := &chatDumper{w: bw}
	d.raw(`{"messages":[`)
	for i := range msgs {
		if i > 0 {
			d.raw(",")
		}
		d.message(&msgs[i])
	}
	d.raw("]")
	if t := OpenAITools(tools); t != nil {
		d.raw(`,"tools":`)
		d.raw(string(t))
	}
	d.raw("}\n")
	if d.err != nil {
		return d.err
	}
	return bw.Flush()
}

// WriteOpenAIMessage writes one message as WriteOpenAIChat writes each of its messages.
func WriteOpenAIMessage(w io.Writer, m *Message) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	d := &chatDumper{w: bw}
	d.message(m)
	if d.err != nil {
		return d.err
	}
	return bw.Flush()
}

// chatDumper writes JSON pieces and keeps the first error.
type chatDumper struct {
	w   *bufio.Writer
	err error
}

func (d *chatDumper) raw(s string) {
	if d.err == nil {
		_, d.err = d.w.WriteString(s)
	}
}

// str writes s as a JSON string (HTML characters not escaped).
func (d *chatDumper) str(s string) {
	if d.err != nil {
		return
	}
	if MentionsLargeRun(s) { // its characters were not kept
		d.err = heldRunIn([]Part{{Text: s}})
		return
	}
	b, err := marshalNoHTML(s)
	if err != nil {
		d.err = err
		return
	}
	_, d.err = d.w.Write(b)
}

// marshalNoHTML encodes v as JSON without escaping <, > and &.
func marshalNoHTML(v any) ([]byte, error) {
	var buf jsonBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.b[:len(buf.b)-1], nil // drop the encoder's newline
}

type jsonBuffer struct{ b []byte }

func (j *jsonBuffer) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }

func (d *chatDumper) message(m *Message) {
	d.raw(`{"role":`)
	d.str(string(m.Role))
	if m.Name != "" && m.Role != RoleAssistant {
		d.raw(`,"name":`)
		d.str(m.Name)
	}
	if m.ToolCallID != "" {
		d.raw(`,"tool_call_id":`)
		d.str(m.ToolCallID)
	}
	var content []*Part
	var calls []*ToolCall
	hasImage := false
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.Kind {
		case PartText:
			content = append(content, p)
		case PartImage:
			if p.Image != nil {
				content = append(content, p)
				hasImage = true
			}
		case PartToolCall:
			if p.ToolCall != nil {
				calls = append(calls, p.ToolCall)
			}
		}
	}
	d.raw(`,"content":`)
	switch {
	case len(content) == 0 && len(calls) > 0:
		d.raw("null")
	case len(content) == 0:
		d.raw(`""`)
	case len(content) == 1 && !hasImage:
		d.str(content[0].Text)
	default:
		d.raw("[")
		for i, p := range content {
			if i > 0 {
				d.raw(",")
			}
			if p.Kind == PartText {
				d.raw(`{"type":"text","text":`)
				d.str(p.Text)
				d.raw("}")
				continue
			}
			d.image(p.Image)
		}
		d.raw("]")
	}
	if m.Role == RoleAssistant {
		if r := ReasoningContent(m); r != "" {
			d.raw(`,"reasoning_content":`)
			d.str(r)
		}
	}
	if len(calls) > 0 {
		d.raw(`,"tool_calls":[`)
		for i, c := range calls {
			if i > 0 {
				d.raw(",")
			}
			d.raw(`{"id":`)
			d.str(c.ID)
			d.raw(`,"type":"function","function":{"name":`)
			d.str(c.Name)
			d.raw(`,"arguments":`)
			d.str(c.Arguments)
			d.raw("}}")
		}
		d.raw("]")
	}
	d.raw("}")
}

// image writes an image_url part whose URL is the picture's data URL.
func (d *chatDumper) image(img *Image) {
	if img.Large != nil && d.err == nil { // its bytes were not kept
		d.err = fmt.Errorf("an image of %d bytes was read past, not kept: it cannot be written", img.Large.Bytes)
	}
	mime := SniffImage(img.Data)
	if mime == "" {
		mime = strings.ToLower(strings.TrimSpace(strings.SplitN(img.DeclaredType, ";", 2)[0]))
	}
	if !plainMIME(mime) {
		mime = "application/octet-stream"
	}
	d.raw(`{"type":"image_url","image_url":{"url":"data:`)
	d.raw(mime) // plainMIME: no character needs escaping
	d.raw(";base64,")
	if d.err == nil {
		enc := base64.NewEncoder(base64.StdEncoding, d.w)
		if _, err := enc.Write(img.Data); err != nil {
			d.err = err
		} else {
			d.err = enc.Close()
		}
	}
	d.raw(`"`)
	if img.Detail != "" {
		d.raw(`,"detail":`)
		d.str(img.Detail)
	}
	d.raw("}}")
}

// plainMIME says whether m is a non-empty MIME type of token characters only.
func plainMIME(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '.' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// OpenAITools returns tools as the "tools" array of a Chat Completions request: each one a
// function with its name, description and parameters (an empty object schema when the
// recording has none, or none that is valid JSON); nil when there are no tools.
func OpenAITools(tools []ToolDef) []byte {
	if len(tools) == 0 {
		return nil
	}
	type fn struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type tool struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	out := make([]tool, 0, len(tools))
	for _, t := range tools {
		params := t.Parameters
		if len(params) == 0 || !json.Valid(params) {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, tool{Type: "function", Function: fn{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	b, err := marshalNoHTML(out)
	if err != nil {
		return nil
	}
	return b
}

// ReasoningContent returns the reasoning_content string an OpenAI Chat Completions assistant
// message was recorded with (kept as an opaque part at …/reasoning_content), or "". Only that
// key counts: it is the one llama.cpp's server reads and passes to the chat template.
func ReasoningContent(m *Message) string {
	for _, p := range m.Parts {
		if p.Kind != PartOpaque || !strings.HasSuffix(p.Loc.Pointer, "/reasoning_content") {
			continue
		}
		var s string
		if json.Unmarshal([]byte(p.Text), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
