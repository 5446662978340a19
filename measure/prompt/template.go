// Package prompt renders a request as a model's server renders it (a Jinja chat template as
// llama.cpp's server, an Ollama Go template, the built-in ones) and counts the text tokens of
// the prompt; runs of text met before are counted once.
package prompt

import (
	"fmt"
	"strings"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// Segment is one piece of a rendered prompt.
//
//   - Special: template framing; the vocabulary's special and added tokens in Text are
//     recognised (`<|im_start|>` is one token).
//   - Image != nil: a picture. Text holds the family's marker text for display only; it is
//     not counted as text, because markers and image rows are counted by the image-row
//     component.
//   - Otherwise: content (message text and reasoning, tool arguments and results, tool
//     declarations), tokenized as ordinary text in which special-token strings are just
//     characters. What a template writes itself (turn framing, <think> blocks, JSON syntax)
//     and pieces it cuts out of a content string are framing (docs/pipeline.md §13.3).
type Segment struct {
	Text    string
	Image   *corpora.Image
	Special bool
}

// Template renders a request's messages and declared tools into prompt segments, ending
// with the generation prompt of the assistant turn.
type Template interface {
	// Name is the name --template accepts.
	Name() string
	// Render renders the messages and tools.
	Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error)
}

// TemplateByName returns a built-in chat template: "chatml", "qwen" (Qwen2.5/Qwen3 with
// tools, also "qwen3", "qwen2.5"), "llama3", "gemma", "mistral".
func TemplateByName(name string) (Template, error) {
	switch strings.ToLower(name) {
	case "chatml":
		return newChatMLTemplate()
	case "qwen", "qwen3", "qwen2.5", "qwen2", "qwen-vl":
		return qwenTemplate{wire: newWireMemo()}, nil
	case "llama3", "llama-3", "llama3.1", "llama3.2":
		return llama3Template{wire: newWireMemo()}, nil
	case "gemma", "gemma3":
		return gemmaTemplate{wire: newWireMemo()}, nil
	case "mistral", "mistral-v7", "mistral-small":
		return mistralTemplate{wire: newWireMemo()}, nil
	}
	return nil, fmt.Errorf("unknown chat template %q (built in: %s)", name, strings.Join(TemplateNames(), ", "))
}

// DefaultTemplateDate is the date a template writes as today's (llama3's "Today Date", mistral's
// system prompt, a Jinja template's date_string and datetime) unless WithTemplateDate sets
// another: a fixed date, so that a count does not change from one day to the next.
const DefaultTemplateDate = "2026-01-01"

// ParseTemplateDate reads a template date: YYYY-MM-DD, or "today" for the local date, as
// llama-server writes it.
func ParseTemplateDate(s string) (time.Time, error) {
	if strings.EqualFold(s, "today") {
		return time.Now(), nil
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date: want YYYY-MM-DD or today", s)
	}
	return d, nil
}

// templateDate is d, or DefaultTemplateDate when d is the zero time.
func templateDate(d time.Time) time.Time {
	if d.IsZero() {
		d, _ = time.Parse(time.DateOnly, DefaultTemplateDate)
	}
	return d
}

// WithTemplateDate returns t writing d as today's date (the zero time: DefaultTemplateDate); a
// template that writes no date is returned as it is.
func WithTemplateDate(t Template, d time.Time) Template {
	switch tt := t.(type) {
	case llama3Template:
		tt.date = d
		return tt
	case mistralTemplate:
		tt.date = d
		return tt
	case *JinjaTemplate:
		c := *tt
		c.date = d
		return &c
	}
	return t
}

// chatMLSource is llama.cpp's ChatML template (common/chat.cpp, CHATML_TEMPLATE_SRC), which
// llama-server renders for --chat-template chatml and for a model without a template of its
// own: each message's role and content, nothing of tools or tool calls.
const chatMLSource = "{%- for message in messages -%}\n" +
	"  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n" +
	"{%- endfor -%}\n" +
	"{%- if add_generation_prompt -%}\n" +
	"  {{- '<|im_start|>assistant\n' -}}\n" +
	"{%- endif -%}"

// newChatMLTemplate is the built-in chatml: llama.cpp's ChatML source, rendered as
// llama-server renders a Jinja template.
func newChatMLTemplate() (*JinjaTemplate, error) {
	return NewJinjaTemplate("chatml", chatMLSource, "", "")
}

// TemplateNames lists the built-in templates.
func TemplateNames() []string {
	return []string{"chatml", "qwen", "llama3", "gemma", "mistral"}
}

// RenderString joins segments into the prompt text a server would see; images appear as
// their marker text.
func RenderString(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// segmentWriter accumulates segments. Neighbouring framing segments are merged (they are
// short); content is never concatenated: each content string stays its own segment, so a
// multi-megabyte tool text is not copied (the counter treats neighbouring content segments
// as one run, see Counter.CountSegments).
type segmentWriter struct{ segs []Segment }

func (w *segmentWriter) special(s string) {
	if s == "" {
		return
	}
	if n := len(w.segs); n > 0 && w.segs[n-1].Special && w.segs[n-1].Image == nil {
		w.segs[n-1].Text += s
		return
	}
	w.segs = append(w.segs, Segment{Text: s, Special: true})
}

func (w *segmentWriter) text(s string) {
	if s == "" {
		return
	}
	w.segs = append(w.segs, Segment{Text: s})
}

func (w *segmentWriter) image(img *corpora.Image, marker string) {
	w.segs = append(w.segs, Segment{Text: marker, Image: img})
}

// contentItem is one item of a message's flattened content: text or a picture.
type contentItem struct {
	text  string
	image *corpora.Image
	ascii bool // text is known to be ASCII (set by newServerRequest)
}

// flattenContent returns a message's content in order: text parts (and tool results' text),
// pictures. Tool calls, opaque parts (reasoning, signatures) and references (content not in
// the recording) are left out.
func flattenContent(m corpora.Message) []contentItem {
	var out []contentItem
	var add func(p corpora.Part)
	add = func(p corpora.Part) {
		switch p.Kind {
		case corpora.PartText:
			out = append(out, contentItem{text: p.Text})
		case corpora.PartImage:
			if p.Image != nil {
				out = append(out, contentItem{image: p.Image})
			}
		case corpora.PartToolResult:
			r := p.ToolResult
			if r == nil {
				return
			}
			// As the engines send a tool result (corpora.FlattenToolResults): its parts, its
			// text, else the MCP result as recorded.
			switch {
			case len(r.Parts) > 0 && !r.IsText:
				for _, q := range r.Parts {
					add(q)
				}
			case r.Text != "" || r.IsText:
				out = append(out, contentItem{text: r.Text})
			case r.MCP != nil && len(r.MCP.Raw) > 0:
				out = append(out, contentItem{text: string(r.MCP.Raw)})
			}
		}
	}
	for _, p := range m.Parts {
		add(p)
	}
	return out
}

// toolCalls returns a message's tool calls.
func toolCalls(m corpora.Message) []*corpora.ToolCall {
	var out []*corpora.ToolCall
	for _, p := range m.Parts {
		if p.Kind == corpora.PartToolCall && p.ToolCall != nil {
			out = append(out, p.ToolCall)
		}
	}
	return out
}

// toolJSON renders a declared tool as llama.cpp's server hands it to the template,
// {"type": "function", "function": {"name", "description", "parameters"}}, written as the
// server's tojson writes it (indent < 0: one line; see jsonNode.toJSON).
func toolJSON(t serverTool, indent int) string {
	return serverToJSON(t.node(), indent)
}

// TextCount is the text side of a request's prompt: tokens of framing and content, and the
// pictures in prompt order (their rows and markers are counted elsewhere).
type TextCount struct {
	// Tokens counts every text token: framing (special tokens included) and content.
	Tokens int `json:"tokens"`
	// SpecialTokens is how many of Tokens are special/control tokens of the framing.
	SpecialTokens int `json:"special_tokens"`
	// Images are the pictures of the prompt, in order.
	Images []*corpora.Image `json:"-"`
	// ImageStarts are, per picture, the text tokens before it in the prompt (the BOS the
	// vocabulary adds not among them: mtmd adds it once the pictures are placed); a picture's
	// position adds the rows of the pictures before it.
	ImageStarts []int `json:"-"`
	// Unknown says why Tokens is not the prompt's count ("" when it is): a text holds a base64
	// run streamed past whose count is missing, failed or another tokenizer's.
	Unknown string `json:"-"`
}
