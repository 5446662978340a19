package prompt

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
	"github.com/strata-eval/strata-eval/internal/jsonpos"
)

// JinjaTemplate renders a model's own Jinja chat template (tokenizer.chat_template of a GGUF
// file, chat_template of tokenizer_config.json) with github.com/ardanlabs/jinja, fed what
// llama.cpp's server feeds its template (see newServerRequest; data is passed as ordered
// values so that `tojson` keeps key order). Pictures are placeholders in the content while
// the template renders (docs/pipeline.md §13.3) and come back as image segments.
//
// Content is found by construction: the template is rendered a second time with each content
// string (message content, reasoning, string values of tool-call arguments, tool descriptions)
// bracketed by markers that occur nowhere in the request, placed inside its leading and
// trailing white space so that trimming is unaffected. When that rendering, markers removed,
// equals the first, the text between a pair of markers is content and the rest is framing;
// text the template cut out of a content string (an unpaired marker) is framing. When the
// markers changed what the template did (it tested how a content string starts, or measured
// it), the whole prompt is framing, which is how llama-server tokenizes it.
type JinjaTemplate struct {
	name   string
	source string
	tmpl   *jinja.Template
	marker string
	bos    string
	eos    string
	// format is llama-server's handler of the template's chat format (nil: none); trim, whether
	// the server trims the messages' texts first.
	format *serverFormat
	trim   bool
	// noSystem and stringArgs are what llama-server's capability probe finds (see probe): the
	// template shows no system message, or no arguments given as an object; typedContent and
	// stringContent, whether it shows content given as a list of text parts, or as a string.
	noSystem, stringArgs        bool
	typedContent, stringContent bool
	// date is the date written as today's (date_string, datetime; zero: DefaultTemplateDate).
	date time.Time
	// wire remembers the wire texts of long contents.
	wire *wireMemo
}

// NewJinjaTemplate compiles a chat template. The image marker is guessed from the source
// (Qwen-VL's for Qwen-VL and other ChatML templates, Gemma's, Mistral's, Llama 3.2's;
// "<image>" otherwise). bos and eos are the
// tokenizer's bos_token and eos_token texts (may be empty).
func NewJinjaTemplate(name, source, bos, eos string) (*JinjaTemplate, error) {
	tmpl, err := jinja.Compile(toJSONFilter.ReplaceAllString(source, "| "+serverToJSONFilter))
	if err != nil {
		return nil, fmt.Errorf("compile chat template %s: %w", name, err)
	}
	marker := "<image>"
	for _, m := range []string{"<|vision_start|>", "<start_of_image>", "[IMG]", "<|image|>", "<|im_start|>"} {
		if strings.Contains(source, m) {
			marker = map[string]string{"<|vision_start|>": qwenImageMarker, "<start_of_image>": gemmaImageMarker,
				"[IMG]": mistralImageMarker, "<|image|>": llamaImageMarker, "<|im_start|>": qwenImageMarker}[m]
			break
		}
	}
	t := &JinjaTemplate{name: name, source: source, tmpl: tmpl, marker: marker, bos: bos, eos: eos, wire: newWireMemo(),
		format: formatOf(source), trim: trimsContent(source)}
	t.probe()
	return t, nil
}

// probe finds what llama-server's capability check (common/jinja/caps.cpp) finds and then
// acts on: whether the template shows content given as a string and as a list of text parts
// (see contentValue); a template that does not show a system message gets it merged into the
// next message; one that does not read arguments given as an object gets them as the recorded
// text. The server asks whether the template read the value; the probe, whether the value
// reached the output (a list or dict printed whole does not count).
func (t *JinjaTemplate) probe() {
	// arg is ASCII: a template may write arguments with tojson(ensure_ascii=True).
	const sys, arg = "System message \U000F0000", "value strata-probe-0f0000"
	render := func(msgs []corpora.Message, tools []corpora.ToolDef) string {
		req := newServerRequest(msgs, tools, nil)
		contents := make([]string, len(req.msgs))
		for i, m := range req.msgs {
			contents[i] = joinContent(m.content, nil)
		}
		out, err := t.tmpl.RenderValues(t.data(&req, contents, nil, templateDate(t.date)))
		if err != nil {
			return ""
		}
		return out
	}
	text := func(role corpora.Role, s string) corpora.Message {
		return corpora.Message{Role: role, Parts: []corpora.Part{{Kind: corpora.PartText, Text: s}}}
	}
	user := func(content jinja.Value) string {
		d := jinja.NewDict()
		d.AsDict().Set("role", jinja.NewString("user"))
		d.AsDict().Set("content", content)
		data := t.data(&serverRequest{}, nil, nil, templateDate(t.date))
		data["messages"] = jinja.NewList([]jinja.Value{d})
		out, err := t.tmpl.RenderValues(data)
		if err != nil {
			return ""
		}
		return out
	}
	t.stringContent = strings.Contains(user(jinja.NewString(sys)), sys)
	typed := user(textParts([]string{sys}, jinja.NewString))
	t.typedContent = strings.Contains(typed, sys) && !strings.Contains(typed, "'type': 'text'")
	if !t.stringContent && !t.typedContent {
		t.stringContent = true // neither: the server leaves content as it is
	}
	t.noSystem = !strings.Contains(render([]corpora.Message{text(corpora.RoleSystem, sys), text(corpora.RoleUser, "User message")}, nil), sys)
	argsJSON, _ := json.Marshal(map[string]string{"arg": arg})
	calls := []corpora.Message{
		text(corpora.RoleUser, "User message"),
		{Role: corpora.RoleAssistant, Parts: []corpora.Part{{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "call00001", Name: "tool1", Arguments: string(argsJSON)}}}},
		{Role: corpora.RoleTool, ToolCallID: "call00001", Parts: []corpora.Part{{Kind: corpora.PartText, Text: "Tool response"}}},
		text(corpora.RoleAssistant, "The tool response was 'tool response'"),
		text(corpora.RoleUser, "User message"),
	}
	tools := []corpora.ToolDef{{Name: "tool1", Description: "Tool description",
		Parameters: json.RawMessage(`{"type":"object","properties":{"arg":{"type":"string","description":"Arg description"}},"required":["arg"]}`)}}
	// Printing the object itself reads none of its members (the server then passes the text).
	out := render(calls, tools)
	used := strings.Contains(out, arg) && !strings.Contains(out, "{'arg': '"+arg)
	t.stringArgs = out != "" && strings.Contains(out, "tool1") && !used
}

// Name is the template's name (the file it came from).
func (t *JinjaTemplate) Name() string { return t.name }

// Render renders the request with the add_generation_prompt flag set.
func (t *JinjaTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools, t.wire)
	if t.trim {
		trimContent(&req)
	}
	pm := newPromptMarkers(&req, t.source, t.bos, t.eos)
	contents := make([]string, len(req.msgs))
	for i, m := range req.msgs {
		contents[i] = pm.content(m.content)
	}
	if t.noSystem && len(req.msgs) > 0 && req.msgs[0].role == corpora.RoleSystem {
		// llama-server's workaround: the system text and "\n" lead the next message.
		if len(req.msgs) > 1 {
			contents[1] = contents[0] + "\n" + contents[1]
		}
		req.msgs, contents = req.msgs[1:], contents[1:]
	}
	now := templateDate(t.date)
	plain, err := t.tmpl.RenderValues(t.formatData(&req, contents, nil, now))
	if err != nil {
		return nil, fmt.Errorf("render chat template %s: %w", t.name, err)
	}
	if t.format != nil && t.format.suffix != nil {
		plain += t.format.suffix(plain)
	}
	mark := func(s string) string { return pm.mark(s) }
	marked, err := t.tmpl.RenderValues(t.formatData(&req, contents, mark, now))
	if err == nil && t.format != nil && t.format.suffix != nil {
		marked += t.format.suffix(pm.unmark(marked))
	}
	w := &segmentWriter{}
	if err != nil || pm.unmark(marked) != plain {
		if err := pm.emit(w, plain, false, t.marker); err != nil {
			return nil, fmt.Errorf("render chat template %s: %w", t.name, err)
		}
		return w.segs, nil
	}
	if err := pm.segment(w, marked, t.marker); err != nil {
		return nil, fmt.Errorf("render chat template %s: %w", t.name, err)
	}
	return w.segs, nil
}

// formatData is data with the messages as the server's handler of the template's chat format
// changes them (the capability probe renders without: the server probes the template alone).
func (t *JinjaTemplate) formatData(req *serverRequest, contents []string, mark func(string) string, now time.Time) map[string]jinja.Value {
	data := t.data(req, contents, mark, now)
	if t.format != nil && t.format.adjust != nil {
		str := jinja.NewString
		if mark != nil {
			str = func(s string) jinja.Value { return jinja.NewString(mark(s)) }
		}
		msgs := data["messages"].AsList()
		msgs.Items = t.format.adjust(formatInput{src: t.source, req: req, contents: contents, str: str}, msgs.Items)
	}
	return data
}

// data is the template's context as llama.cpp's server builds it (common/chat.cpp):
// messages, tools, bos_token, eos_token, enable_thinking (true), add_generation_prompt and the
// extra context datetime and date_string (the local date). mark, when not nil, brackets
// content strings.
func (t *JinjaTemplate) data(req *serverRequest, contents []string, mark func(string) string, now time.Time) map[string]jinja.Value {
	str := func(s string) jinja.Value { return jinja.NewString(s) }
	content := str
	if mark != nil {
		content = func(s string) jinja.Value { return jinja.NewString(mark(s)) }
	}
	list := make([]jinja.Value, 0, len(req.msgs))
	for i, m := range req.msgs {
		d := jinja.NewDict()
		md := d.AsDict()
		md.Set("role", str(string(m.role)))
		md.Set("content", t.contentValue(m, contents[i], content))
		if m.reasoning != "" {
			md.Set("reasoning_content", content(m.reasoning))
		}
		if m.name != "" {
			md.Set("name", str(m.name))
		}
		if m.toolCallID != "" {
			md.Set("tool_call_id", str(m.toolCallID))
		}
		if len(m.calls) > 0 {
			cl := make([]jinja.Value, 0, len(m.calls))
			for _, c := range m.calls {
				fn := jinja.NewDict()
				fn.AsDict().Set("name", str(c.name))
				if c.argsOK && !t.stringArgs {
					fn.AsDict().Set("arguments", jinjaNode(c.args, content))
				} else {
					fn.AsDict().Set("arguments", content(c.argsText))
				}
				call := jinja.NewDict()
				call.AsDict().Set("type", str("function"))
				call.AsDict().Set("function", fn)
				if c.id != "" {
					call.AsDict().Set("id", str(c.id))
				}
				cl = append(cl, call)
			}
			md.Set("tool_calls", jinja.NewList(cl))
		}
		list = append(list, d)
	}
	data := map[string]jinja.Value{
		"messages":              jinja.NewList(list),
		"bos_token":             str(t.bos),
		"eos_token":             str(t.eos),
		"enable_thinking":       jinja.NewBool(true),
		"add_generation_prompt": jinja.NewBool(true),
		"datetime":              str(now.Format("Jan 02 2006")),
		"date_string":           str(now.Format("02 Jan 2006")),
		serverToJSONFilter:      jinja.NewCallable(serverToJSONFilter, serverToJSONCallable),
		"strftime_now":          jinja.NewCallable("strftime_now", strftimeAt(now)),
	}
	if len(req.tools) > 0 {
		tl := make([]jinja.Value, 0, len(req.tools))
		for _, td := range req.tools {
			fn := jinja.NewDict()
			fn.AsDict().Set("name", str(td.name))
			fn.AsDict().Set("description", content(td.description))
			fn.AsDict().Set("parameters", jinjaNode(td.params, str))
			tool := jinja.NewDict()
			tool.AsDict().Set("type", str("function"))
			tool.AsDict().Set("function", fn)
			tl = append(tl, tool)
		}
		data["tools"] = jinja.NewList(tl)
	}
	return data
}

// The template's tojson filter is replaced by serverToJSONCallable, llama-server's tojson
// (common/jinja/value.cpp): key order kept, nothing HTML-escaped, U+2028 as it is, doubles as
// %g, indent without sorting keys — the engine's own differs on each of these.
var toJSONFilter = regexp.MustCompile(`\|\s*tojson\b`)

const serverToJSONFilter = "strata_server_tojson"

// serverToJSONCallable is tojson(value, ensure_ascii=false, indent=none, separators=none,
// sort_keys=false) as llama-server implements it.
func serverToJSONCallable(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.Value{}, fmt.Errorf("tojson: no value")
	}
	arg := func(name string, pos int) jinja.Value {
		if v, ok := kwargs[name]; ok {
			return v
		}
		if pos < len(args) {
			return args[pos]
		}
		return jinja.Undefined()
	}
	indent := -1
	if v := arg("indent", 2); v.IsInt() {
		indent = int(v.AsInt())
	}
	if arg("sort_keys", 4).IsTruthy() {
		return jinja.Value{}, fmt.Errorf("tojson sort_keys=true not implemented")
	}
	itemSep, keySep := ", ", ": "
	if indent >= 0 {
		itemSep = ","
	}
	if v := arg("separators", 3); v.IsList() {
		items := v.AsList().Items
		if len(items) > 0 {
			itemSep = items[0].String()
		}
		if len(items) > 1 {
			keySep = items[1].String()
		}
	}
	var b strings.Builder
	jinjaToNode(args[0]).write(&b, indent, 0, itemSep, keySep)
	out := b.String()
	if arg("ensure_ascii", 1).IsTruthy() {
		out = asciiJSON(out)
	}
	return jinja.NewString(out), nil
}

// jinjaToNode converts a Jinja value to a JSON value (undefined, none and callables are null).
func jinjaToNode(v jinja.Value) jsonNode {
	switch {
	case v.IsBool():
		return jsonNode{kind: jsonBool, b: v.AsBool()}
	case v.IsInt():
		return jsonNode{kind: jsonInt, i: v.AsInt()}
	case v.IsFloat():
		return jsonNode{kind: jsonFloat, f: v.AsFloat()}
	case v.IsString():
		return jsonNode{kind: jsonString, s: v.AsString()}
	case v.IsList():
		n := jsonNode{kind: jsonArray, items: []jsonNode{}}
		for _, it := range v.AsList().Items {
			n.items = append(n.items, jinjaToNode(it))
		}
		return n
	case v.IsDict():
		d := v.AsDict()
		n := jsonNode{kind: jsonObject}
		for _, k := range d.OrderedKeys() {
			val, _ := d.Get(k)
			n.keys = append(n.keys, k)
			n.items = append(n.items, jinjaToNode(val))
		}
		return n
	}
	return jsonNode{kind: jsonNull}
}

// contentValue is a message's content as llama-server hands it to the template: a message
// with two or more text parts and no picture is a list of {"type": "text", "text": …} parts
// when the template shows such lists; otherwise the joined text, itself wrapped in a list for a
// template that shows lists only.
func (t *JinjaTemplate) contentValue(m serverMessage, joined string, content func(string) jinja.Value) jinja.Value {
	switch parts := listedParts(m); {
	case parts != nil && t.typedContent:
		return textParts(parts, content)
	case t.typedContent && !t.stringContent:
		return textParts([]string{joined}, content)
	}
	return content(joined)
}

// textParts is a list of text content parts.
func textParts(texts []string, content func(string) jinja.Value) jinja.Value {
	parts := make([]jinja.Value, len(texts))
	for i, s := range texts {
		d := jinja.NewDict()
		d.AsDict().Set("type", jinja.NewString("text"))
		d.AsDict().Set("text", content(s))
		parts[i] = d
	}
	return jinja.NewList(parts)
}

// jinjaNode converts a JSON value to Jinja values; str makes the string values.
func jinjaNode(n jsonNode, str func(string) jinja.Value) jinja.Value {
	switch n.kind {
	case jsonBool:
		return jinja.NewBool(n.b)
	case jsonInt:
		return jinja.NewInt(n.i)
	case jsonFloat:
		return jinja.NewFloat(n.f)
	case jsonString:
		return str(n.s)
	case jsonArray:
		items := make([]jinja.Value, len(n.items))
		for i, it := range n.items {
			items[i] = jinjaNode(it, str)
		}
		return jinja.NewList(items)
	case jsonObject:
		d := jinja.NewDict()
		for i, k := range n.keys {
			d.AsDict().Set(k, jinjaNode(n.items[i], str))
		}
		return d
	}
	return jinja.None()
}

// LoadChatTemplate reads a model's chat template: from a `.gguf` file
// (tokenizer.chat_template), a tokenizer_config.json (chat_template, a string or the
// "default" entry of a list), a directory holding tokenizer_config.json, or a `.jinja` file.
// It also returns the bos and eos token texts when the source names them (a GGUF's are its
// vocabulary's BOS and EOS tokens).
func LoadChatTemplate(path string) (source, bos, eos string, err error) {
	if info, serr := os.Stat(path); serr == nil && info.IsDir() {
		path = filepath.Join(path, "tokenizer_config.json")
	}
	switch {
	case strings.EqualFold(filepath.Ext(path), ".gguf"):
		f, err := ggufmeta.Parse(path)
		if err != nil {
			return "", "", "", err
		}
		src, err := ggufmeta.String(f.Header.MetadataKV, "tokenizer.chat_template")
		if err != nil {
			return "", "", "", fmt.Errorf("%s: %w", path, err)
		}
		bos, eos := ggufSpecialTexts(f)
		return src, bos, eos, nil
	case strings.EqualFold(filepath.Ext(path), ".json"):
		data, err := os.ReadFile(path)
		if err != nil {
			return "", "", "", fmt.Errorf("read chat template: %w", err)
		}
		var cfg struct {
			ChatTemplate json.RawMessage `json:"chat_template"`
			BOS          json.RawMessage `json:"bos_token"`
			EOS          json.RawMessage `json:"eos_token"`
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			return "", "", "", fmt.Errorf("%s: %w", path, jsonpos.ErrorAt(data, err))
		}
		src, err := chatTemplateField(cfg.ChatTemplate)
		if err != nil {
			return "", "", "", fmt.Errorf("%s at /chat_template: %w", path, err)
		}
		return src, tokenField(cfg.BOS), tokenField(cfg.EOS), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", "", fmt.Errorf("read chat template: %w", err)
	}
	return string(data), "", "", nil
}

// ggufSpecialTexts are the texts of a GGUF vocabulary's BOS and EOS tokens, which llama-server
// hands the template as bos_token and eos_token ("" for a token it lacks).
func ggufSpecialTexts(f *gguf.GGUFFile) (bos, eos string) {
	kvs := f.Header.MetadataKV
	tokens, _ := ggufmeta.Strings(kvs, "tokenizer.ggml.tokens")
	text := func(key string) string {
		kv, ok := kvs.Get(key)
		if !ok || kv.ValueType != gguf.GGUFMetadataValueTypeUint32 || int(kv.ValueUint32()) >= len(tokens) {
			return ""
		}
		return tokens[kv.ValueUint32()]
	}
	return text("tokenizer.ggml.bos_token_id"), text("tokenizer.ggml.eos_token_id")
}

// TokenizerSpecialTexts returns the texts of the BOS and EOS tokens of a tokenizer file: a
// GGUF vocabulary's, or those the tokenizer_config.json beside a tokenizer.json names ("" for
// one it does not name, and for the built-in encodings).
func TokenizerSpecialTexts(tokenizer string) (bos, eos string) {
	switch strings.ToLower(filepath.Ext(tokenizer)) {
	case ".gguf":
		f, err := ggufmeta.Parse(tokenizer)
		if err != nil {
			return "", ""
		}
		return ggufSpecialTexts(f)
	case ".json":
		data, err := os.ReadFile(filepath.Join(filepath.Dir(tokenizer), "tokenizer_config.json"))
		if err != nil {
			return "", ""
		}
		var cfg struct {
			BOS json.RawMessage `json:"bos_token"`
			EOS json.RawMessage `json:"eos_token"`
		}
		if json.Unmarshal(data, &cfg) != nil {
			return "", ""
		}
		return tokenField(cfg.BOS), tokenField(cfg.EOS)
	}
	return "", ""
}

func chatTemplateField(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var list []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return "", fmt.Errorf("no chat template (want a string or a list of {name, template})")
	}
	for _, e := range list {
		if e.Name == "default" {
			return e.Template, nil
		}
	}
	return list[0].Template, nil
}

// tokenField reads a token given as a string or as {"content": …}.
func tokenField(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Content
	}
	return ""
}

// TemplateForTokenizer is TemplateFromSpec for a model whose tokens are those of the tokenizer
// file tokenizer (TokenizerSpecialTexts): a template read from a file gets the tokenizer's BOS
// and EOS texts as bos_token and eos_token, as llama-server hands a template its model's, so
// that a .jinja file, which names none, writes the BOS the model's does. The file's own are
// kept where the tokenizer names none.
func TemplateForTokenizer(spec, tokenizer string) (Template, error) {
	bos, eos := TokenizerSpecialTexts(tokenizer)
	return TemplateFromSpecTokens(spec, bos, eos)
}

// TemplateFromSpec returns a built-in template by name, the model's own Jinja template read
// from a path (.gguf, tokenizer_config.json, a directory holding it, or a .jinja file), or an
// Ollama Go template (a Modelfile's TEMPLATE, a .gotmpl or .tmpl file).
func TemplateFromSpec(spec string) (Template, error) { return TemplateFromSpecTokens(spec, "", "") }

// TemplateFromSpecTokens is TemplateFromSpec with the model's BOS and EOS texts, which a
// template read from a file gets as bos_token and eos_token (the file's own where they are "").
func TemplateFromSpecTokens(spec, modelBOS, modelEOS string) (Template, error) {
	if t, err := TemplateByName(spec); err == nil {
		return t, nil
	}
	if _, err := os.Stat(spec); err != nil {
		return nil, fmt.Errorf("template %q: not a built-in template (%s) nor a readable file", spec, strings.Join(TemplateNames(), ", "))
	}
	if IsOllamaTemplateFile(spec) {
		return LoadOllamaTemplate(spec)
	}
	src, bos, eos, err := LoadChatTemplate(spec)
	if err != nil {
		return nil, err
	}
	if modelBOS != "" {
		bos = modelBOS
	}
	if modelEOS != "" {
		eos = modelEOS
	}
	return NewJinjaTemplate(spec, src, bos, eos)
}

// strftimeAt is the template's strftime_now, at the template date rather than the clock: the
// Python strftime directives chat templates use (%Y %m %d %B %b %A %a %H %M %S %p %I %Z %%).
func strftimeAt(now time.Time) func(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	goFormat := strings.NewReplacer("%Y", "2006", "%m", "01", "%d", "02", "%H", "15", "%M", "04", "%S", "05",
		"%B", "January", "%b", "Jan", "%A", "Monday", "%a", "Mon", "%p", "PM", "%I", "03", "%Z", "MST", "%%", "%")
	return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		format := "%Y-%m-%d"
		if len(args) > 0 && args[0].IsString() {
			format = args[0].AsString()
		}
		return jinja.NewString(now.Format(goFormat.Replace(format))), nil
	}
}
