package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ardanlabs/jinja"
	"github.com/strata-eval/strata-eval/corpora"
)

// JinjaTemplate renders a model's own Jinja chat template (tokenizer.chat_template of a GGUF
// file, chat_template of tokenizer_config.json) with github.com/ardanlabs/jinja. Data is
// passed as ordered values so that `tojson` keeps key order. Pictures are flattened to the
// family's marker text before rendering (docs/pipeline.md §13.3) and come back as image
// segments; message content comes back as ordinary segments, the rest as framing.
type JinjaTemplate struct {
	name   string
	tmpl   *jinja.Template
	marker string
	bos    string
	eos    string
}

// imageSentinel brackets a picture's index while the template renders (private-use runes
// that no template inspects).
const (
	sentinelOpen  = "\uE000"
	sentinelClose = "\uE001"
)

// NewJinjaTemplate compiles a chat template. The image marker is guessed from the source
// (Qwen-VL's for Qwen-VL and other ChatML templates, Gemma's, Mistral's, Llama 3.2's;
// "<image>" otherwise). bos and eos are the
// tokenizer's bos_token and eos_token texts (may be empty).
func NewJinjaTemplate(name, source, bos, eos string) (*JinjaTemplate, error) {
	tmpl, err := jinja.Compile(source)
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
	return &JinjaTemplate{name: name, tmpl: tmpl, marker: marker, bos: bos, eos: eos}, nil
}

// Name is the template's name (the file it came from).
func (t *JinjaTemplate) Name() string { return t.name }

// Render renders the request with the add_generation_prompt flag set.
func (t *JinjaTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	var images []*corpora.Image
	var contents []string
	list := make([]jinja.Value, 0, len(msgs))
	for _, m := range msgs {
		var b strings.Builder
		prevText := false
		for _, it := range flattenContent(m) {
			if it.image != nil {
				b.WriteString(sentinelOpen + strconv.Itoa(len(images)) + sentinelClose)
				images = append(images, it.image)
				prevText = false
				continue
			}
			if prevText {
				b.WriteString("\n")
			}
			b.WriteString(it.text)
			prevText = true
		}
		content := b.String()
		contents = append(contents, content)
		d := jinja.NewDict()
		md := d.AsDict()
		md.Set("role", jinja.NewString(string(m.Role)))
		md.Set("content", jinja.NewString(content))
		if m.Role == corpora.RoleTool {
			if m.ToolCallID != "" {
				md.Set("tool_call_id", jinja.NewString(m.ToolCallID))
			}
			if m.Name != "" {
				md.Set("name", jinja.NewString(m.Name))
			}
		}
		if calls := toolCalls(m); len(calls) > 0 {
			var cl []jinja.Value
			for _, c := range calls {
				fn := jinja.NewDict()
				fn.AsDict().Set("name", jinja.NewString(c.Name))
				fn.AsDict().Set("arguments", jinja.NewString(c.Arguments))
				call := jinja.NewDict()
				call.AsDict().Set("id", jinja.NewString(c.ID))
				call.AsDict().Set("type", jinja.NewString("function"))
				call.AsDict().Set("function", fn)
				cl = append(cl, call)
			}
			md.Set("tool_calls", jinja.NewList(cl))
		}
		list = append(list, d)
	}
	data := map[string]jinja.Value{
		"messages":              jinja.NewList(list),
		"add_generation_prompt": jinja.NewBool(true),
		"bos_token":             jinja.NewString(t.bos),
		"eos_token":             jinja.NewString(t.eos),
	}
	if len(tools) > 0 {
		var tl []jinja.Value
		for _, td := range tools {
			fn := jinja.NewDict()
			fn.AsDict().Set("name", jinja.NewString(td.Name))
			if td.Description != "" {
				fn.AsDict().Set("description", jinja.NewString(td.Description))
			}
			if p := bytes.TrimSpace(td.Parameters); len(p) > 0 && string(p) != "null" {
				v, err := jsonToJinja(p)
				if err != nil {
					return nil, fmt.Errorf("template %s: tool %s parameters: %w", t.name, td.Name, err)
				}
				fn.AsDict().Set("parameters", v)
			}
			tool := jinja.NewDict()
			tool.AsDict().Set("type", jinja.NewString("function"))
			tool.AsDict().Set("function", fn)
			tl = append(tl, tool)
		}
		data["tools"] = jinja.NewList(tl)
	}
	out, err := t.tmpl.RenderValues(data)
	if err != nil {
		return nil, fmt.Errorf("render chat template %s: %w", t.name, err)
	}
	return t.segment(out, contents, images)
}

// segment cuts rendered text into framing, content and image segments: each message's
// content is looked for in order (trimmed if the template trimmed it).
func (t *JinjaTemplate) segment(out string, contents []string, images []*corpora.Image) ([]Segment, error) {
	w := &segmentWriter{}
	emit := func(s string, content bool) error {
		for s != "" {
			i := strings.Index(s, sentinelOpen)
			if i < 0 {
				break
			}
			j := strings.Index(s[i:], sentinelClose)
			if j < 0 {
				return fmt.Errorf("render chat template %s: broken picture marker in the output", t.name)
			}
			n, err := strconv.Atoi(s[i+len(sentinelOpen) : i+j])
			if err != nil || n < 0 || n >= len(images) {
				return fmt.Errorf("render chat template %s: bad picture marker %q", t.name, s[i:i+j])
			}
			t.write(w, s[:i], content)
			w.image(images[n], t.marker)
			s = s[i+j+len(sentinelClose):]
		}
		t.write(w, s, content)
		return nil
	}
	pos := 0
	for _, c := range contents {
		for _, cand := range []string{c, strings.TrimSpace(c)} {
			if cand == "" {
				break
			}
			if i := strings.Index(out[pos:], cand); i >= 0 {
				if err := emit(out[pos:pos+i], false); err != nil {
					return nil, err
				}
				if err := emit(cand, true); err != nil {
					return nil, err
				}
				pos += i + len(cand)
				break
			}
		}
	}
	if err := emit(out[pos:], false); err != nil {
		return nil, err
	}
	return w.segs, nil
}

func (t *JinjaTemplate) write(w *segmentWriter, s string, content bool) {
	if content {
		w.text(s)
	} else {
		w.special(s)
	}
}

// jsonToJinja converts JSON text to Jinja values, keeping object key order.
func jsonToJinja(raw []byte) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := jinjaValue(dec)
	if err != nil {
		return jinja.Value{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jinja.Value{}, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func jinjaValue(dec *json.Decoder) (jinja.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return jinja.Value{}, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			var items []jinja.Value
			for dec.More() {
				it, err := jinjaValue(dec)
				if err != nil {
					return jinja.Value{}, err
				}
				items = append(items, it)
			}
			_, err := dec.Token()
			return jinja.NewList(items), err
		}
		d := jinja.NewDict()
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return jinja.Value{}, err
			}
			val, err := jinjaValue(dec)
			if err != nil {
				return jinja.Value{}, err
			}
			ks, _ := k.(string)
			d.AsDict().Set(ks, val)
		}
		_, err := dec.Token()
		return d, err
	case string:
		return jinja.NewString(v), nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return jinja.NewInt(i), nil
		}
		f, err := v.Float64()
		if err != nil {
			return jinja.Value{}, err
		}
		return jinja.NewFloat(f), nil
	case bool:
		return jinja.NewBool(v), nil
	}
	return jinja.None(), nil
}

// LoadChatTemplate reads a model's chat template: from a `.gguf` file
// (tokenizer.chat_template), a tokenizer_config.json (chat_template, a string or the
// "default" entry of a list), a directory holding tokenizer_config.json, or a `.jinja` file.
// It also returns the bos and eos token texts when the source names them.
func LoadChatTemplate(path string) (source, bos, eos string, err error) {
	if info, serr := os.Stat(path); serr == nil && info.IsDir() {
		path = filepath.Join(path, "tokenizer_config.json")
	}
	switch {
	case strings.EqualFold(filepath.Ext(path), ".gguf"):
		f, err := parseGGUF(path)
		if err != nil {
			return "", "", "", err
		}
		src, err := ggufString(f.Header.MetadataKV, "tokenizer.chat_template")
		if err != nil {
			return "", "", "", fmt.Errorf("%s: %w", path, err)
		}
		return src, "", "", nil
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
			return "", "", "", fmt.Errorf("%s: %w", path, jsonErrorAt(data, err))
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

// TemplateFromSpec returns a built-in template by name, or the model's own Jinja template
// read from a path (.gguf, tokenizer_config.json, a directory holding it, or a .jinja file).
func TemplateFromSpec(spec string) (Template, error) {
	if t, err := TemplateByName(spec); err == nil {
		return t, nil
	}
	if _, err := os.Stat(spec); err != nil {
		return nil, fmt.Errorf("template %q: not a built-in template (%s) nor a readable file", spec, strings.Join(TemplateNames(), ", "))
	}
	src, bos, eos, err := LoadChatTemplate(spec)
	if err != nil {
		return nil, err
	}
	return NewJinjaTemplate(spec, src, bos, eos)
}
