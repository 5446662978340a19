package prompt

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// templateCase is a request whose rendering the reference renderers check.
type templateCase struct {
	name  string
	msgs  []corpora.Message
	tools []corpora.ToolDef
}

func call(id, name, args string) corpora.Part {
	return corpora.Part{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: id, Name: name, Arguments: args}}
}

func msg(role corpora.Role, parts ...corpora.Part) corpora.Message {
	return corpora.Message{Role: role, Parts: parts}
}

func toolMsg(id string, parts ...corpora.Part) corpora.Message {
	return corpora.Message{Role: corpora.RoleTool, ToolCallID: id, Parts: parts}
}

// reasoningPart is an assistant's reasoning_content as the OpenAI reader keeps it.
func reasoningPart(s string) corpora.Part {
	raw, _ := json.Marshal(s)
	return corpora.Part{Kind: corpora.PartOpaque, Text: string(raw), Loc: corpora.Location{Pointer: "/messages/2/reasoning_content"}}
}

// templateCases are the cases of issue 11 and the shapes of agent traffic.
func templateCases() []templateCase {
	img := &corpora.Image{Data: []byte("png"), Origin: corpora.OriginTool}
	userImg := &corpora.Image{Data: []byte("png-u"), Origin: corpora.OriginUser}
	weather := []corpora.ToolDef{{Name: "get_weather", Description: "Weather of a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"City <name>"},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["location"]}`)}}
	noDesc := []corpora.ToolDef{{Name: "ls", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","default":"."}}}`)}, {Name: "noop"}}
	msgs, tools, _ := toolConversation()
	return []templateCase{
		{name: "user a", msgs: []corpora.Message{msg(corpora.RoleUser, textPart("a"))}},
		{name: "system and chat", msgs: []corpora.Message{msg(corpora.RoleSystem, textPart("Be brief.")), msg(corpora.RoleUser, textPart(" Hi \n")),
			msg(corpora.RoleAssistant, textPart("Hello!")), msg(corpora.RoleUser, textPart("im_start"))}},
		{name: "tool result response", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("Weather in Paris?")),
			msg(corpora.RoleAssistant, call("c1", "get_weather", `{"location":"Paris","days":3}`)),
			toolMsg("c1", textPart("response")),
		}},
		{name: "arguments respelled", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("go")),
			msg(corpora.RoleAssistant, textPart("Calling."), call("c1", "get_weather", `{ "location" : "Bei\u00e9jing",  "days":2, "extra": {"a":[1,2,{"b":null}],"t":true}}`),
				call("c2", "get_weather", `{}`), call("c3", "noop", ``)),
			toolMsg("c1", textPart(`{"temp": 22}`)), toolMsg("c2", textPart("")), toolMsg("c3", textPart("ok")),
		}},
		{name: "think in a tool loop", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("first")),
			msg(corpora.RoleAssistant, textPart("<think>\nold reasoning\n</think>\n\nold answer")),
			msg(corpora.RoleUser, textPart("second")),
			msg(corpora.RoleAssistant, textPart("<think>\nplan\n</think>\n\nLet me check."), call("c1", "get_weather", `{"location":"Rome"}`)),
			toolMsg("c1", textPart("sunny")),
			msg(corpora.RoleAssistant, call("c2", "get_weather", `{"location":"Oslo"}`)),
			toolMsg("c2", textPart("rain")),
		}},
		{name: "reasoning_content", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("What is the weather in Beijing?")),
			msg(corpora.RoleAssistant, reasoningPart("The user asks.\n\nI call get_weather."), textPart(""), call("get_weather:0", "get_weather", `{"location": "Beijing"}`)),
			toolMsg("get_weather:0", textPart(`{"temperature": 22, "condition": "sunny"}`)),
			msg(corpora.RoleAssistant, reasoningPart("\nGot it.\n"), textPart("\n\nIt is 22°C.")),
			msg(corpora.RoleUser, textPart("Thanks")),
		}},
		{name: "reasoning_content in a tool loop", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleSystem, textPart("You are terse.")),
			msg(corpora.RoleUser, textPart("Weather in Oslo and Rome?")),
			msg(corpora.RoleAssistant, reasoningPart("\nTwo cities: two calls.\n"), textPart("\n\nChecking."), call("c1", "get_weather", `{"location":"Oslo"}`)),
			toolMsg("c1", textPart("rain")),
			msg(corpora.RoleAssistant, reasoningPart("Now Rome."), call("c2", "get_weather", `{"location":"Rome"}`)),
			toolMsg("c2", textPart("sun")),
		}},
		{name: "private-use content and pictures", msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("ls \ue000\ue001 \U000F0000\U000F0001 done"), imagePart(userImg), textPart("\ue0010\ue000")),
			msg(corpora.RoleAssistant, call("c1", "shot", `{"glyph":"\ue000"}`)),
			toolMsg("c1", textPart("Screenshot:"), imagePart(img), textPart(""), textPart("after")),
		}},
		{name: "tools without descriptions", tools: noDesc, msgs: []corpora.Message{msg(corpora.RoleSystem, textPart("sys")), msg(corpora.RoleUser, textPart("list"))}},
		{name: "mcp conversation", msgs: msgs, tools: tools},
		{name: "nine-character call ids", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("Weather in Paris?")),
			msg(corpora.RoleAssistant, call("a1b2c3d4e", "get_weather", `{"location":"Paris"}`)),
			toolMsg("a1b2c3d4e", textPart("sunny, 21.5 °C")),
			msg(corpora.RoleAssistant, textPart("Sunny.")),
			msg(corpora.RoleUser, textPart("Thanks")),
		}},
		{name: "text parts", msgs: []corpora.Message{
			msg(corpora.RoleSystem, textPart("Rule one."), textPart("Rule two.")),
			msg(corpora.RoleUser, textPart("one"), textPart(" two "), textPart("")),
			msg(corpora.RoleAssistant, textPart("ok"), textPart("then")),
			msg(corpora.RoleUser, textPart(""), textPart("three")),
		}},
		{name: "tool response as user", msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("q")),
			msg(corpora.RoleAssistant, reasoningPart("r"), textPart("a")),
			msg(corpora.RoleUser, textPart("<tool_response>\nx\n</tool_response>")),
		}},
	}
}

// referenceContext is the template context of a request, as llama-server builds it, in JSON
// for the reference renderers; pictures are the placeholders of pm. Doubles are written as
// the server prints them (an integral one as an integer, which Python and JavaScript then
// print as the server does).
func referenceContext(t *testing.T, req *serverRequest, pm *promptMarkers, contents []string) map[string]any {
	t.Helper()
	var node func(n jsonNode) any
	node = func(n jsonNode) any {
		switch n.kind {
		case jsonBool:
			return n.b
		case jsonInt:
			return n.i
		case jsonFloat:
			return json.Number(serverFloat(n.f))
		case jsonString:
			return n.s
		case jsonArray:
			out := []any{}
			for _, it := range n.items {
				out = append(out, node(it))
			}
			return out
		case jsonObject:
			return orderedObject{n: n, conv: node}
		}
		return nil
	}
	var msgs []any
	for i, m := range req.msgs {
		o := jsonNode{kind: jsonObject}
		o.set("role", jsonNode{kind: jsonString, s: string(m.role)})
		o.set("content", jsonNode{kind: jsonString, s: contents[i]})
		if m.reasoning != "" {
			o.set("reasoning_content", jsonNode{kind: jsonString, s: m.reasoning})
		}
		if m.name != "" {
			o.set("name", jsonNode{kind: jsonString, s: m.name})
		}
		if m.toolCallID != "" {
			o.set("tool_call_id", jsonNode{kind: jsonString, s: m.toolCallID})
		}
		if len(m.calls) > 0 {
			calls := jsonNode{kind: jsonArray}
			for _, c := range m.calls {
				fn := jsonNode{kind: jsonObject}
				fn.set("name", jsonNode{kind: jsonString, s: c.name})
				fn.set("arguments", c.args)
				tc := jsonNode{kind: jsonObject}
				tc.set("type", jsonNode{kind: jsonString, s: "function"})
				tc.set("function", fn)
				tc.set("id", jsonNode{kind: jsonString, s: c.id})
				calls.items = append(calls.items, tc)
			}
			o.set("tool_calls", calls)
		}
		msgs = append(msgs, node(o))
	}
	ctx := map[string]any{"messages": msgs, "bos_token": "", "eos_token": "", "enable_thinking": true, "add_generation_prompt": true}
	if len(req.tools) > 0 {
		var tl []any
		for _, td := range req.tools {
			tl = append(tl, node(td.node()))
		}
		ctx["tools"] = tl
	}
	return ctx
}

// orderedObject marshals a jsonNode object with its key order.
type orderedObject struct {
	n    jsonNode
	conv func(jsonNode) any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.n.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.conv(o.n.items[i]))
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// referenceRenderer renders a template and context with an external Jinja implementation.
type referenceRenderer struct {
	name string
	cmd  func() *exec.Cmd
}

// referenceRenderers returns the renderers found on this machine; each absent one is logged.
func referenceRenderers(t *testing.T) []referenceRenderer {
	t.Helper()
	var out []referenceRenderer
	if py, err := exec.LookPath("python3"); err != nil {
		t.Log("python3 not found: Jinja2 reference skipped")
	} else if exec.Command(py, "-c", "import jinja2").Run() != nil {
		t.Log("python3 has no jinja2: Jinja2 reference skipped")
	} else {
		out = append(out, referenceRenderer{"jinja2", func() *exec.Cmd { return exec.Command(py, "testdata/jinja/render_jinja2.py") }})
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	pkg := filepath.Join(root, ".cache", "hfjinja", "node_modules", "@huggingface", "jinja", "dist", "index.js")
	if node, err := exec.LookPath("node"); err != nil {
		t.Log("node not found: @huggingface/jinja reference skipped")
	} else if _, err := os.Stat(pkg); err != nil {
		t.Logf("@huggingface/jinja not at %s (make test-deps installs it): reference skipped", pkg)
	} else {
		out = append(out, referenceRenderer{"@huggingface/jinja", func() *exec.Cmd { return exec.Command(node, "testdata/jinja/render_hfjinja.mjs", pkg) }})
	}
	return out
}

func (r referenceRenderer) render(t *testing.T, source string, ctx map[string]any) string {
	t.Helper()
	in, err := json.Marshal(map[string]any{"template": source, "context": ctx})
	if err != nil {
		t.Fatal(err)
	}
	cmd := r.cmd()
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", r.name, err, stderr.String())
	}
	return string(out)
}

// qwen3ChatTemplate returns Qwen3's own chat template, or skips.
func qwen3ChatTemplate(t *testing.T) string {
	t.Helper()
	cfg := filepath.Join(filepath.Dir(tokentext.Qwen3TokenizerPath()), "tokenizer_config.json")
	src, _, _, err := LoadChatTemplate(cfg)
	if err != nil {
		t.Skipf("Qwen3 tokenizer_config.json not readable (%v): run internal/scripts/fetch-qwen3-tokenizer.sh", err)
	}
	return src
}

// withMarkers replaces the picture placeholders of a reference rendering by the marker text.
func withMarkers(s string, pm *promptMarkers, marker string) string {
	re := regexp.MustCompile(regexp.QuoteMeta(pm.picOpen) + `[0-9]+` + regexp.QuoteMeta(pm.picClose))
	return re.ReplaceAllString(s, marker)
}

// countPrompt counts a prompt the way llama-server does: special tokens parsed everywhere,
// pictures (marker text) left out.
func countPrompt(tok tokenize.Tokenizer, prompt, marker string) int {
	n := 0
	for _, piece := range strings.Split(prompt, marker) {
		n += len(tok.EncodeFraming(piece))
	}
	return n
}

// TestQwen3RendersLikeReferences renders each case with the Qwen3 template (Jinja and
// built in) and with the reference renderers: byte-identical prompts, identical counts.
func TestQwen3RendersLikeReferences(t *testing.T) {
	src := qwen3ChatTemplate(t)
	tok := qwen3(t)
	jt, err := NewJinjaTemplate("qwen3", src, "", "")
	if err != nil {
		t.Fatal(err)
	}
	refs := referenceRenderers(t)
	for _, tc := range templateCases() {
		req := newServerRequest(tc.msgs, tc.tools, nil)
		pm := newPromptMarkers(&req, src)
		contents := make([]string, len(req.msgs))
		for i, m := range req.msgs {
			contents[i] = pm.content(m.content)
		}
		ctx := referenceContext(t, &req, pm, contents)
		var want string
		for i, r := range refs {
			got := withMarkers(r.render(t, src, ctx), pm, qwenImageMarker)
			if i == 0 {
				want = got
			} else if got != want {
				t.Errorf("%s: %s and %s differ:\n%q\n%q", tc.name, refs[0].name, r.name, want, got)
			}
		}
		for _, tmpl := range []Template{jt, qwenTemplate{}} {
			segs, err := tmpl.Render(tc.msgs, tc.tools)
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.name, tmpl.Name(), err)
			}
			got := RenderString(segs)
			if want != "" && got != want {
				t.Errorf("%s: %s renders\n%q\nreference\n%q", tc.name, tmpl.Name(), got, want)
			}
			if want == "" {
				want = got
			}
			c := NewCounter(tok, tmpl).CountSegments(segs)
			if tc.name == "tool response as user" {
				continue // content holds special-token text, which is never special in content
			}
			if n := countPrompt(tok, want, qwenImageMarker); c.Tokens != n {
				t.Errorf("%s: %s counts %d tokens, the prompt has %d", tc.name, tmpl.Name(), c.Tokens, n)
			}
			if n := strings.Count(want, qwenImageMarker); len(c.Images) != n {
				t.Errorf("%s: %s counts %d pictures, the prompt has %d", tc.name, tmpl.Name(), len(c.Images), n)
			}
		}
	}
}

// TestJinjaContentByConstruction checks which text is content: a user's "a" and a tool's
// "response" are content, never found inside <|im_start|> or <tool_response>; the think tags
// the template writes are framing.
func TestJinjaContentByConstruction(t *testing.T) {
	src := qwen3ChatTemplate(t)
	jt, err := NewJinjaTemplate("qwen3", src, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range templateCases() {
		for _, tmpl := range []Template{jt, qwenTemplate{}} {
			segs, err := tmpl.Render(tc.msgs, tc.tools)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range segs {
				if s.Image != nil || s.Special {
					continue
				}
				for _, special := range []string{"<|im_start|>", "<|im_end|>", "<tool_response>", "<think>", "</think>", "<tool_call>"} {
					if strings.Contains(s.Text, special) && tc.name != "tool response as user" {
						t.Errorf("%s: %s: content segment %q holds framing %s", tc.name, tmpl.Name(), s.Text, special)
					}
				}
			}
			var content []string
			for _, s := range segs {
				if s.Image == nil && !s.Special {
					content = append(content, s.Text)
				}
			}
			switch tc.name {
			case "user a":
				if strings.Join(content, "|") != "a" {
					t.Errorf("%s: content %q, want only \"a\"", tmpl.Name(), content)
				}
			case "tool result response":
				if !containsString(content, "response") {
					t.Errorf("%s: content %q lacks the tool result", tmpl.Name(), content)
				}
			case "think in a tool loop", "reasoning_content in a tool loop":
				// Found by construction, not lost to the whole-prompt fallback.
				want := map[string][]string{"think in a tool loop": {"first", "second", "sunny", "rain"},
					"reasoning_content in a tool loop": {"Two cities: two calls.", "Checking.", "rain", "Now Rome."}}[tc.name]
				for _, w := range want {
					if !containsString(content, w) {
						t.Errorf("%s / %s: content %q lacks %q", tc.name, tmpl.Name(), content, w)
					}
				}
			}
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestPromptMarkersAvoidContent checks that the markers are code points the request does not
// hold, whatever private-use characters it carries.
func TestPromptMarkersAvoidContent(t *testing.T) {
	var b strings.Builder
	for c := rune(0xF0000); c < 0xF0010; c++ {
		b.WriteRune(c)
	}
	req := newServerRequest([]corpora.Message{msg(corpora.RoleUser, textPart(b.String()))}, nil, nil)
	pm := newPromptMarkers(&req)
	for _, m := range []string{pm.picOpen, pm.picClose, pm.open, pm.close} {
		if strings.Contains(b.String(), m) {
			t.Errorf("marker %q occurs in the content", m)
		}
	}
	if got := strconv.QuoteToASCII(pm.picOpen); got != `"\U000f0010"` {
		t.Errorf("first free marker %s, want U+F0010", got)
	}
}

// llamaCppTemplates is the models/templates folder of llama.cpp's source (the models' own chat
// templates): .cache/llama-templates, which make test-deps unpacks, else the source tree that
// `make llama-server` builds from; or skips.
func llamaCppTemplates(t *testing.T) string {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	dirs := []string{filepath.Join(root, ".cache", "llama-templates")}
	cache := os.Getenv("STRATA_EVAL_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "strata-eval")
	}
	more, _ := filepath.Glob(filepath.Join(cache, "llama-server", "*", "src", "models", "templates"))
	for _, d := range append(dirs, more...) {
		if _, err := os.Stat(filepath.Join(d, "Qwen-Qwen3-0.6B.jinja")); err == nil {
			return d
		}
	}
	t.Skipf("llama.cpp's models/templates not found in %s (make test-deps unpacks it)", dirs[0])
	return ""
}

// TestBuiltinsMatchModelTemplates renders each case with a built-in template and with the
// model's own template (Jinja, as llama-server feeds it): the same prompt, or an error from
// both where the model's template refuses the conversation.
func TestBuiltinsMatchModelTemplates(t *testing.T) {
	dir := llamaCppTemplates(t)
	for _, p := range []struct{ builtin, file, bos, eos string }{
		{"qwen", "Qwen-Qwen3-0.6B.jinja", "", "<|im_end|>"},
		{"llama3", "meta-llama-Llama-3.1-8B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>"},
		{"llama3", "meta-llama-Llama-3.2-3B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>"},
		{"llama3", "meta-llama-Llama-3.3-70B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>"},
		{"mistral", "Mistral-Small-3.2-24B-Instruct-2506.jinja", "<s>", "</s>"},
		{"gemma", "google-gemma-2-2b-it.jinja", "<bos>", "<eos>"},
	} {
		src, err := os.ReadFile(filepath.Join(dir, p.file))
		if err != nil {
			t.Errorf("%s: %v", p.file, err)
			continue
		}
		jt, err := NewJinjaTemplate(p.file, string(src), p.bos, p.eos)
		if err != nil {
			t.Fatal(err)
		}
		builtin, _ := TemplateByName(p.builtin)
		for _, tc := range templateCases() {
			if p.builtin == "gemma" && (len(tc.msgs) == 0 || tc.msgs[0].Role == corpora.RoleSystem) {
				continue // Gemma 2 takes no system message; the built-in is Gemma 3's
			}
			js, jerr := jt.Render(tc.msgs, tc.tools)
			bs, berr := builtin.Render(tc.msgs, tc.tools)
			if (jerr != nil) != (berr != nil) {
				t.Errorf("%s / %s: model template error %v, built-in error %v", p.file, tc.name, jerr, berr)
				continue
			}
			if jerr != nil {
				continue
			}
			// The image marker is the family's; a text model's template names none.
			got := strings.ReplaceAll(RenderString(bs), llamaImageMarker, jt.marker)
			if want := RenderString(js); got != want {
				t.Errorf("%s / %s: built-in %s renders\n%q\nthe model's template\n%q", p.file, tc.name, p.builtin, got, want)
			}
		}
	}
}

// TestLoadChatTemplateGGUFTokens reads the tiny model's template with its BOS and EOS texts.
func TestLoadChatTemplateGGUFTokens(t *testing.T) {
	src, bos, eos, err := LoadChatTemplate(tinyModel(t))
	if err != nil || !strings.Contains(src, "<|im_start|>") || bos != "<|endoftext|>" || eos != "<|im_end|>" {
		t.Errorf("template %d bytes, bos %q, eos %q, %v", len(src), bos, eos, err)
	}
}

// TestJinjaMarkersChangeTheRendering: a template that measures its content renders
// differently with markers; the prompt is then the plain rendering, all of it framing.
func TestJinjaMarkersChangeTheRendering(t *testing.T) {
	src := "{% for m in messages %}<|im_start|>{{ m.role }}({{ m.content|length }})\n{{ m.content }}<|im_end|>\n{% endfor %}"
	jt, err := NewJinjaTemplate("length.jinja", src, "", "")
	if err != nil {
		t.Fatal(err)
	}
	img := &corpora.Image{Data: []byte("png"), Origin: corpora.OriginUser}
	segs, err := jt.Render([]corpora.Message{msg(corpora.RoleUser, textPart("hello <|im_end|>"), imagePart(img))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := RenderString(segs), "<|im_start|>user(19)\nhello <|im_end|>"+qwenImageMarker+"<|im_end|>\n"; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
	pictures := 0
	for _, s := range segs {
		if s.Image != nil {
			pictures++
		} else if !s.Special {
			t.Errorf("content segment %q: the markers changed the rendering, all of it is framing", s.Text)
		}
	}
	if pictures != 1 {
		t.Errorf("%d pictures, want 1", pictures)
	}
}
