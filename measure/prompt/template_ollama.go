package prompt

// Ollama's prompts. Ollama does not render a model's Jinja chat template: its server executes
// a Go template (a Modelfile's TEMPLATE, or the one it picked for the GGUF, which /api/show
// reports) over the messages and tools of the request as it decoded them (server/prompt.go,
// template/template.go of github.com/ollama/ollama). OllamaTemplate does the same, through
// Ollama's own template package, over the request body that OllamaChat builds for
// `--api ollama`: the count is of what that server renders.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/openai"
	"github.com/ollama/ollama/parser"
	"github.com/ollama/ollama/template"
	"github.com/ollama/ollama/thinking"
	"github.com/ollama/ollama/tokenizer"
	"github.com/ollama/ollama/types/model"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// OllamaTemplate renders a request the way Ollama's server renders an /api/chat request for a
// model whose prompt comes from a Go template.
type OllamaTemplate struct {
	name  string
	model OllamaModel
	tmpl  *template.Template
	// chat is the conversation as Ollama's chat handler receives it over the protocol the
	// requests are sent with (OllamaChat for its native API).
	chat ollamaConversion
	// tok is Ollama's tokenizer of the model file, when the Modelfile names a readable GGUF of
	// an architecture Ollama's engine tokenizes itself (loadOllamaTokenizer).
	tok *tokenizer.BytePairEncoding
}

// OllamaModel is what Ollama's server adds to a chat request from the model: its Go template,
// its SYSTEM and MESSAGE commands, and the family and name that decide whether the reasoning
// of earlier assistant turns is cut (as /api/show or a Modelfile give them).
type OllamaModel struct {
	Template string        // the Go template (TEMPLATE)
	System   string        // SYSTEM: the system message when the request has none first
	Messages []api.Message // MESSAGE commands: turns put in front of the request's
	Family   string        // the model family (details.family; a GGUF's general.architecture)
	Name     string        // the model's name (deepseek-r1 has its reasoning cut as qwen3 does)
}

// NewOllamaTemplate parses the model's Go template.
func NewOllamaTemplate(name string, model OllamaModel) (*OllamaTemplate, error) {
	t, err := template.Parse(model.Template)
	if err != nil {
		return nil, fmt.Errorf("ollama template %s: %w", name, err)
	}
	return &OllamaTemplate{name: name, model: model, tmpl: t, chat: OllamaChat}, nil
}

// ollamaConversion builds the conversation of a request as Ollama's chat handler decodes it.
type ollamaConversion func(msgs []corpora.Message, tools []corpora.ToolDef) (OllamaRequest, error)

// ollamaConversions are the protocols Ollama takes a chat over, by the name of --api, with what
// its server makes of the request before the template runs.
var ollamaConversions = map[string]ollamaConversion{
	"ollama": OllamaChat,
	"openai": OllamaChatViaOpenAI,
}

// Through returns the template rendering requests sent over the protocol api ("ollama" for
// Ollama's native /api/chat, "openai" for its /v1/chat/completions), converted as Ollama's
// server converts them; an error names a protocol whose conversion is not known here.
func (t *OllamaTemplate) Through(api string) (*OllamaTemplate, error) {
	conv, ok := ollamaConversions[api]
	if !ok {
		return nil, fmt.Errorf("how Ollama converts a request of the %s protocol is not known here", api)
	}
	c := *t
	c.chat = conv
	return &c, nil
}

// LoadOllamaTemplate reads an Ollama model from a Modelfile (TEMPLATE, SYSTEM, MESSAGE, and
// the family from the GGUF of FROM when it is a readable file) or a Go template from a file
// holding it alone (.gotmpl, .tmpl; then the family is unknown).
func LoadOllamaTemplate(path string) (*OllamaTemplate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read ollama template: %w", err)
	}
	if !IsModelfile(path) {
		return NewOllamaTemplate(path, OllamaModel{Template: string(data)})
	}
	mf, err := parser.ParseFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var m OllamaModel
	found := false
	ggufPath := "" // the model file of FROM, when it is a readable GGUF
	for _, c := range mf.Commands {
		switch c.Name {
		case "template":
			m.Template, found = c.Args, true
		case "system":
			m.System = c.Args
		case "message":
			role, content, _ := strings.Cut(c.Args, ": ")
			m.Messages = append(m.Messages, api.Message{Role: role, Content: content})
		case "model":
			from := c.Args
			if !filepath.IsAbs(from) {
				from = filepath.Join(filepath.Dir(path), from)
			}
			if f, err := ggufmeta.Parse(from); err == nil {
				if arch, err := ggufmeta.String(f.Header.MetadataKV, "general.architecture"); err == nil {
					m.Family, ggufPath = arch, from
				}
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: the Modelfile has no TEMPLATE (Ollama would use the template it picked for the model: give that one, as `ollama show --template MODEL` prints it, in a .gotmpl file)", path)
	}
	t, err := NewOllamaTemplate(path, m)
	if err != nil || ggufPath == "" {
		return t, err
	}
	if t.tok, err = loadOllamaTokenizer(ggufPath, m.Family); err != nil {
		return nil, err
	}
	return t, nil
}

// OllamaTemplateFor is the template of a model as Ollama's /api/show describes it, counted with
// Ollama's own tokenizer of the GGUF at tokenizerPath when it is one of an architecture Ollama's
// engine tokenizes itself (else the Counter's tokenizer counts).
func OllamaTemplateFor(name string, model OllamaModel, tokenizerPath string) (*OllamaTemplate, error) {
	t, err := NewOllamaTemplate(name, model)
	if err != nil {
		return nil, err
	}
	f, err := ggufmeta.Parse(tokenizerPath)
	if err != nil {
		return t, nil // not a GGUF: o200k, a tokenizer.json
	}
	arch, err := ggufmeta.String(f.Header.MetadataKV, "general.architecture")
	if err != nil {
		return t, nil
	}
	if t.model.Family == "" {
		t.model.Family = arch
	}
	if t.tok, err = loadOllamaTokenizer(tokenizerPath, arch); err != nil {
		return nil, err
	}
	return t, nil
}

// IsModelfile says whether path names an Ollama Modelfile (Modelfile, or a name ending in
// .modelfile or .Modelfile).
func IsModelfile(path string) bool {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	return strings.EqualFold(base, "Modelfile") || strings.HasSuffix(strings.ToLower(base), ".modelfile")
}

// IsOllamaTemplateFile says whether path names a file TemplateFromSpec reads as an Ollama
// Go template rather than a Jinja one.
func IsOllamaTemplateFile(path string) bool {
	lower := strings.ToLower(path)
	return IsModelfile(path) || strings.HasSuffix(lower, ".gotmpl") || strings.HasSuffix(lower, ".tmpl")
}

// Name is the template's name (the file it came from).
func (t *OllamaTemplate) Name() string { return t.name }

// Render renders the request as Ollama does: the conversation of the request its protocol
// carries (the /api/chat body OllamaChat builds, or the OpenAI body as Ollama converts it), decoded by
// Ollama's own types, each picture's tag in front of its message's text, executed by Ollama's
// template package. The prompt is one framing segment (Ollama tokenizes the whole prompt with
// its special tokens recognised); each picture is a segment of its own where its tag stood,
// as Ollama's runner replaces the tag with the picture's embeddings.
func (t *OllamaTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	chat, err := t.chat(msgs, tools)
	if err != nil {
		return nil, err
	}
	var req struct {
		Messages []api.Message `json:"messages"`
		Tools    api.Tools     `json:"tools"`
	}
	if err := json.Unmarshal(chat.JSON, &req); err != nil {
		return nil, fmt.Errorf("ollama request: %w", err)
	}
	// server/routes.go ChatHandler: the model's MESSAGEs, then the request's; the model's
	// SYSTEM first when the request does not begin with a system message.
	turns := append(slices.Clone(t.model.Messages), req.Messages...)
	if len(req.Messages) > 0 && req.Messages[0].Role != "system" && t.model.System != "" {
		turns = append([]api.Message{{Role: "system", Content: t.model.System}}, turns...)
	}
	t.cutEarlierReasoning(turns)
	// server/prompt.go: every picture gets the tag [img-N] in front of its message's text
	// (or in place of an [img] the text holds). A nonce-free sentinel stands for the tag here,
	// so that the rendered prompt can be cut at the pictures.
	n := 0
	for i := range turns {
		m := &turns[i]
		prefix := ""
		for range m.Images {
			tag := ollamaImageSentinel(n)
			n++
			if !strings.Contains(m.Content, "[img]") {
				prefix += tag
			} else {
				m.Content = strings.Replace(m.Content, "[img]", tag, 1)
			}
		}
		m.Content = prefix + m.Content
	}
	values := template.Values{Messages: turns, Tools: req.Tools}
	if open, end := thinking.InferTags(t.tmpl.Template); (open != "" && end != "") || t.model.Family == "gptoss" || t.model.Family == "gpt-oss" {
		// A model that can think thinks unless the request says otherwise (it never does here).
		think := &api.ThinkValue{Value: true}
		values.Think, values.ThinkLevel, values.IsThinkSet = think.Bool(), think.String(), true
	}
	var b strings.Builder
	if err := t.tmpl.Execute(&b, values); err != nil {
		return nil, fmt.Errorf("render ollama template %s: %w", t.name, err)
	}
	w := &segmentWriter{}
	prompt := b.String()
	for k := range chat.Images {
		tag := ollamaImageSentinel(k)
		before, after, found := strings.Cut(prompt, tag)
		if !found {
			continue // the template left the message's text out, so the picture is not sent
		}
		w.special(before)
		w.image(chat.Images[k], "[img-"+strconv.Itoa(k)+"]")
		prompt = after
	}
	w.special(prompt)
	return w.segs, nil
}

// cutEarlierReasoning is Ollama's filterThinkTags: for the qwen3 family and deepseek-r1, the
// <think>…</think> block is cut from the assistant turns before the last user message.
func (t *OllamaTemplate) cutEarlierReasoning(msgs []api.Message) {
	if t.model.Family != "qwen3" && model.ParseName(t.model.Name).Model != "deepseek-r1" {
		return
	}
	lastUser := -1
	for i, m := range msgs {
		if m.Role == "user" {
			lastUser = i
		}
	}
	for i := range msgs[:max(lastUser, 0)] {
		if msgs[i].Role == "assistant" {
			p := &thinking.Parser{OpeningTag: "<think>", ClosingTag: "</think>"}
			_, msgs[i].Content = p.AddContent(msgs[i].Content)
		}
	}
}

// ollamaImageSentinel stands for picture k's tag while the template runs.
func ollamaImageSentinel(k int) string { return "\x00strata-eval-image-" + strconv.Itoa(k) + "\x00" }

// OllamaRequest is the part of an Ollama /api/chat request that holds the conversation.
type OllamaRequest struct {
	// JSON is `{"messages":[…],"tools":[…]}`: the fields the engine puts in the request body.
	JSON []byte
	// Images are the pictures the messages carry, in order (their bytes are in JSON as base64).
	Images []*corpora.Image
}

// ollamaMessage and ollamaTool are the JSON shapes of Ollama's api.Message and api.Tool.
type ollamaMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Images     [][]byte         `json:"images,omitempty"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type ollamaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// OllamaChat builds the conversation of an Ollama /api/chat request, as a client of Ollama's
// native API sends it: each message's texts joined by "\n" into its content, its pictures as
// base64 in images, the assistant's tool calls with their arguments as JSON objects, a tool
// message's tool name and call id; tools as function declarations. Arguments that are not a
// JSON object are an error: Ollama's API takes an object.
func OllamaChat(msgs []corpora.Message, tools []corpora.ToolDef) (OllamaRequest, error) {
	var out OllamaRequest
	wire := struct {
		Messages []ollamaMessage `json:"messages"`
		Tools    []ollamaTool    `json:"tools,omitempty"`
	}{Messages: make([]ollamaMessage, 0, len(msgs))}
	calls := map[string]string{} // call id → tool name, for tool messages without a name
	for i, m := range msgs {
		om := ollamaMessage{Role: string(m.Role), ToolCallID: m.ToolCallID}
		var texts []string
		for _, it := range flattenContent(m) {
			if it.image != nil {
				om.Images = append(om.Images, it.image.Data)
				out.Images = append(out.Images, it.image)
				continue
			}
			texts = append(texts, it.text)
		}
		om.Content = strings.Join(texts, "\n")
		for _, p := range m.Parts {
			if p.Kind != corpora.PartToolCall || p.ToolCall == nil {
				continue
			}
			var tc ollamaToolCall
			tc.ID = p.ToolCall.ID
			tc.Function.Index = len(om.ToolCalls)
			tc.Function.Name = p.ToolCall.Name
			args := strings.TrimSpace(p.ToolCall.Arguments)
			if args == "" {
				args = "{}"
			}
			if !json.Valid([]byte(args)) || args[0] != '{' {
				return OllamaRequest{}, fmt.Errorf("message %d: the arguments of tool call %q are not a JSON object, which Ollama's API requires", i, p.ToolCall.Name)
			}
			tc.Function.Arguments = json.RawMessage(args)
			om.ToolCalls = append(om.ToolCalls, tc)
			calls[p.ToolCall.ID] = p.ToolCall.Name
		}
		if m.Role == corpora.RoleTool {
			om.ToolName = m.Name
			if om.ToolName == "" {
				om.ToolName = calls[m.ToolCallID]
			}
		}
		wire.Messages = append(wire.Messages, om)
	}
	for _, d := range tools {
		var t ollamaTool
		t.Type = "function"
		t.Function.Name = d.Name
		t.Function.Description = d.Description
		t.Function.Parameters = d.Parameters
		if len(bytes.TrimSpace(t.Function.Parameters)) == 0 {
			t.Function.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		wire.Tools = append(wire.Tools, t)
	}
	data, err := json.Marshal(wire)
	if err != nil {
		return OllamaRequest{}, fmt.Errorf("ollama request: %w", err)
	}
	out.JSON = data
	return out, nil
}

// OllamaChatViaOpenAI builds the conversation Ollama's chat handler receives for an OpenAI
// Chat Completions request (/v1/chat/completions): the body the http engine sends (each
// message as corpora.WriteOpenAIMessage writes it, tool results flattened), converted by
// Ollama's own openai package (FromChatRequest: every part of a content array a message of
// its own, a picture's data URL its bytes, tool-call arguments decoded) and passed on as JSON,
// as its middleware does.
func OllamaChatViaOpenAI(msgs []corpora.Message, tools []corpora.ToolDef) (OllamaRequest, error) {
	var out OllamaRequest
	var b bytes.Buffer
	b.WriteString(`{"messages":[`)
	for i := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		flat := corpora.FlattenToolResults(msgs[i])
		if err := corpora.WriteOpenAIMessage(&b, &flat); err != nil {
			return OllamaRequest{}, fmt.Errorf("message %d (%s): %w", i, msgs[i].Loc, err)
		}
		for _, p := range flat.Parts {
			if p.Kind == corpora.PartImage && p.Image != nil {
				out.Images = append(out.Images, p.Image)
			}
		}
	}
	b.WriteByte(']')
	if t := corpora.OpenAITools(tools); t != nil {
		b.WriteString(`,"tools":`)
		b.Write(t)
	}
	b.WriteByte('}')
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(b.Bytes(), &req); err != nil {
		return OllamaRequest{}, fmt.Errorf("openai request for ollama: %w", err)
	}
	takeEveryPicture(req.Messages)
	chat, err := openai.FromChatRequest(req)
	if err != nil {
		return OllamaRequest{}, fmt.Errorf("ollama's conversion of the openai request: %w", err)
	}
	data, err := json.Marshal(struct {
		Messages []api.Message `json:"messages"`
		Tools    api.Tools     `json:"tools,omitempty"`
	}{chat.Messages, chat.Tools})
	if err != nil {
		return OllamaRequest{}, fmt.Errorf("ollama request: %w", err)
	}
	out.JSON = data
	return out, nil
}

// ollamaDataURLTypes are the picture types whose data URLs Ollama's openai package decodes
// (decodeImageURL); it refuses the others ("invalid image input").
var ollamaDataURLTypes = []string{"jpeg", "jpg", "png", "webp"}

// takeEveryPicture gives a picture whose data URL Ollama's openai package refuses (a GIF, a
// BMP) the blank type it takes, so that the computed count holds the request's every picture
// where the conversion puts it: the server answers such a request HTTP 400, which is the arm's
// verdict, while the computed counts stay those of the request.
func takeEveryPicture(msgs []openai.Message) {
	for _, m := range msgs {
		parts, _ := m.Content.([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			img, _ := part["image_url"].(map[string]any)
			url, _ := img["url"].(string)
			mime, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ";base64,")
			if !ok || !strings.HasPrefix(url, "data:") || slices.Contains(ollamaDataURLTypes, strings.TrimPrefix(mime, "image/")) && strings.HasPrefix(mime, "image/") {
				continue
			}
			img["url"] = "data:;base64," + data
		}
	}
}

// ollamaPretokenizers are the pre-tokenizer patterns Ollama's own engine uses for a
// model architecture (model/models/<arch> of github.com/ollama/ollama v0.17.4): a prompt of
// such a model is tokenized by Ollama's tokenizer package, whose splits differ from
// llama.cpp's on some punctuation runs ("}}}}\n": 3 tokens, llama.cpp 2).
var ollamaPretokenizers = map[string]string{
	"qwen2": ollamaQwenPattern,
	"qwen3": ollamaQwenPattern,
}

const ollamaQwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// loadOllamaTokenizer builds Ollama's tokenizer of the GGUF at path, as its engine builds it
// for the model's architecture; nil when Ollama's engine has no pattern here for it.
func loadOllamaTokenizer(path, arch string) (*tokenizer.BytePairEncoding, error) {
	pattern, ok := ollamaPretokenizers[arch]
	if !ok {
		return nil, nil
	}
	f, err := ggufmeta.Parse(path)
	if err != nil {
		return nil, err
	}
	kvs := f.Header.MetadataKV
	tokens, merges, types, err := tokenize.GGUFBPELists(path, kvs)
	if err != nil {
		return nil, err
	}
	v := &tokenizer.Vocabulary{Values: tokens, Types: types, Merges: merges, AddBOS: true}
	if kv, ok := kvs.Get("tokenizer.ggml.add_bos_token"); ok && kv.ValueType == gguf.GGUFMetadataValueTypeBool {
		v.AddBOS = kv.ValueBool()
	}
	if kv, ok := kvs.Get("tokenizer.ggml.bos_token_id"); ok && kv.ValueType == gguf.GGUFMetadataValueTypeUint32 {
		v.BOS = []int32{int32(kv.ValueUint32())}
	}
	if kv, ok := kvs.Get("tokenizer.ggml.eos_token_id"); ok && kv.ValueType == gguf.GGUFMetadataValueTypeUint32 {
		v.EOS = []int32{int32(kv.ValueUint32())}
	}
	bpe := tokenizer.NewBytePairEncoding(v, pattern)
	return &bpe, nil
}

// CountPrompt counts the rendered prompt with Ollama's own tokenizer, as Ollama's runner does
// (its special tokens recognised, a BOS added where the vocabulary says so); ok is false when
// the template has no such tokenizer (a .gotmpl file, an architecture not listed).
func (t *OllamaTemplate) CountPrompt(segs []Segment) (TextCount, bool) {
	if t.tok == nil {
		return TextCount{}, false
	}
	var out TextCount
	first := true
	for _, s := range segs {
		if s.Image != nil {
			out.Images = append(out.Images, s.Image)
			out.ImageStarts = append(out.ImageStarts, out.Tokens)
			continue
		}
		ids, err := t.tok.Encode(s.Text, first)
		if err != nil {
			return TextCount{}, false
		}
		first = false
		out.Tokens += len(ids)
	}
	return out, true
}
