package prompt

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

func textPart(s string) corpora.Part { return corpora.Part{Kind: corpora.PartText, Text: s} }

func imagePart(img *corpora.Image) corpora.Part {
	return corpora.Part{Kind: corpora.PartImage, Image: img}
}

// toolConversation is a realistic MCP-style exchange: system, tools, a user picture, a call,
// two results (one with a picture), and the follow-up request.
func toolConversation() ([]corpora.Message, []corpora.ToolDef, []*corpora.Image) {
	userImg := &corpora.Image{Data: []byte("png-1"), Origin: corpora.OriginUser}
	toolImg := &corpora.Image{Data: []byte("png-2"), Origin: corpora.OriginTool}
	msgs := []corpora.Message{
		{Role: corpora.RoleSystem, Parts: []corpora.Part{textPart("You are a helpful assistant.")}},
		{Role: corpora.RoleUser, Parts: []corpora.Part{textPart("What is in this picture?"), imagePart(userImg), textPart("Also take a screenshot.")}},
		{Role: corpora.RoleAssistant, Parts: []corpora.Part{
			textPart("Let me look."),
			{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "call_1", Name: "screenshot", Arguments: `{"full_page": true}`}},
			{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path": "/tmp/a.txt"}`}},
		}},
		{Role: corpora.RoleTool, ToolCallID: "call_1", Parts: []corpora.Part{textPart("Screenshot taken:"), imagePart(toolImg)}},
		{Role: corpora.RoleTool, ToolCallID: "call_2", Parts: []corpora.Part{{Kind: corpora.PartToolResult, ToolResult: &corpora.ToolResult{CallID: "call_2", Text: "hello from a.txt", IsText: true}}}},
	}
	tools := []corpora.ToolDef{
		{Name: "screenshot", Description: "Take a screenshot — of the page", Parameters: json.RawMessage(`{"type":"object","properties":{"full_page":{"type":"boolean"}}}`)},
		{Name: "read_file", Parameters: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string", "description": "a \"path\"\n"}}, "required": ["path"]}`)},
	}
	return msgs, tools, []*corpora.Image{userImg, toolImg}
}

func TestQwenTemplateRendersLikeJinja(t *testing.T) {
	msgs, tools, imgs := toolConversation()
	segs, err := qwenTemplate{}.Render(msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	// Written out by hand from Qwen3's chat_template (tokenizer_config.json).
	want := "<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
		`{"type": "function", "function": {"name": "screenshot", "description": "Take a screenshot — of the page", "parameters": {"type": "object", "properties": {"full_page": {"type": "boolean"}}}}}` + "\n" +
		`{"type": "function", "function": {"name": "read_file", "description": "", "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "a \"path\"\n"}}, "required": ["path"]}}}` +
		"\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" +
		"<|im_start|>user\nWhat is in this picture?<|vision_start|><|image_pad|><|vision_end|>Also take a screenshot.<|im_end|>\n" +
		"<|im_start|>assistant\nLet me look.\n<tool_call>\n{\"name\": \"screenshot\", \"arguments\": {\"full_page\": true}}\n</tool_call>\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"/tmp/a.txt\"}}\n</tool_call><|im_end|>\n" +
		"<|im_start|>user\n<tool_response>\nScreenshot taken:<|vision_start|><|image_pad|><|vision_end|>\n</tool_response>\n<tool_response>\nhello from a.txt\n</tool_response><|im_end|>\n" +
		"<|im_start|>assistant\n"
	if got := RenderString(segs); got != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", got, want)
	}
	var gotImgs []*corpora.Image
	for _, s := range segs {
		if s.Image != nil {
			gotImgs = append(gotImgs, s.Image)
			if s.Text != qwenImageMarker || s.Special {
				t.Errorf("image segment %+v, want marker text and not special", s)
			}
		}
	}
	if len(gotImgs) != 2 || gotImgs[0] != imgs[0] || gotImgs[1] != imgs[1] {
		t.Errorf("images %v, want the user's then the tool's", gotImgs)
	}
	// Content is never framing: the user's text is an ordinary segment.
	for _, s := range segs {
		if s.Special && strings.Contains(s.Text, "What is in this picture") {
			t.Errorf("user content in a special segment: %q", s.Text)
		}
	}
}

func TestBuiltinTemplatesRenderPlainChat(t *testing.T) {
	msgs := []corpora.Message{
		{Role: corpora.RoleSystem, Parts: []corpora.Part{textPart("Be brief.")}},
		{Role: corpora.RoleUser, Parts: []corpora.Part{textPart(" Hi there \n")}},
		{Role: corpora.RoleAssistant, Parts: []corpora.Part{textPart("Hello!")}},
		{Role: corpora.RoleUser, Parts: []corpora.Part{textPart("Bye")}},
	}
	tests := []struct{ name, want string }{
		{"chatml", "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n Hi there \n<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n"},
		{"qwen", "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n Hi there \n<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n"},
		{"llama3", "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 01 Jan 2026\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"},
		{"gemma", "<bos><start_of_turn>user\nBe brief.\n\nHi there<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n"},
		{"mistral", "<s>[SYSTEM_PROMPT]Be brief.[/SYSTEM_PROMPT][INST] Hi there \n[/INST]Hello!</s>[INST]Bye[/INST]"},
	}
	for _, tc := range tests {
		tmpl, err := TemplateByName(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		segs, err := tmpl.Render(msgs, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := RenderString(segs); got != tc.want {
			t.Errorf("%s rendered\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
	if _, err := TemplateByName("nope"); err == nil || !strings.Contains(err.Error(), "chatml") {
		t.Errorf("unknown template error %v, want the list of built-ins", err)
	}
}

// TestBuiltinTemplatesWithTools renders an MCP exchange with two parallel calls: the ChatML
// templates render it (chatml without the tools and the calls, as llama.cpp's does); Llama 3 (one call a turn), Gemma (no tool turns) and Mistral (9-character
// call ids) refuse it as their model templates do.
func TestBuiltinTemplatesWithTools(t *testing.T) {
	msgs, tools, _ := toolConversation()
	refusals := map[string]string{"llama3": "single tool-calls", "gemma": "must alternate", "mistral": "length 9"}
	for _, name := range TemplateNames() {
		tmpl, _ := TemplateByName(name)
		segs, err := tmpl.Render(msgs, tools)
		if want, ok := refusals[name]; ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want one saying %q", name, err, want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := RenderString(segs)
		wants := []string{"screenshot", "read_file", `"/tmp/a.txt"`, "hello from a.txt", "Screenshot taken:"}
		if name == "chatml" {
			wants = wants[3:] // llama.cpp's ChatML shows neither the tools nor the calls
		}
		for _, want := range wants {
			if !strings.Contains(s, want) {
				t.Errorf("%s: rendering lacks %q:\n%s", name, want, s)
			}
		}
		n := 0
		for _, sg := range segs {
			if sg.Image != nil {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%s: %d image segments, want 2", name, n)
		}
	}
}

// TestServerJSON checks tojson as llama.cpp's server writes parsed JSON: key order kept,
// ", " and ": ", nlohmann's number types (a uint64 above int64 wraps, a double is %g), its
// string escapes.
func TestServerJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1,"b":[true,false,null],"c":{}, "d": []}`, `{"a": 1, "b": [true, false, null], "c": {}, "d": []}`},
		{`{"z":"é\u0001\"\\/\u2028\b","a":1.50}`, "{\"z\": \"é\\u0001\\\"\\\\/\u2028\\b\", \"a\": 1.5}"},
		{`[1.0, -0.0, 0.1, 3.141592653589793, 1e20, 1E-7, 123456789.0, 100000.0, 1000000.0]`, `[1, -0, 0.1, 3.14159, 1e+20, 1e-07, 1.23457e+08, 100000, 1e+06]`},
		{`[12345678901234567890, 9223372036854775807, -9223372036854775808, -9223372036854775809, 18446744073709551616]`,
			`[-6101065172474983726, 9223372036854775807, -9223372036854775808, -9.22337e+18, 1.84467e+19]`},
		{`{"a":1,"a":2,"b":3}`, `{"a": 2, "b": 3}`},
	}
	for _, tc := range tests {
		n, err := parseServerJSON([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := serverToJSON(n, -1); got != tc.want {
			t.Errorf("tojson(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
	if _, err := parseServerJSON([]byte(`{"a":`)); err == nil {
		t.Error("parseServerJSON accepted truncated JSON")
	}
	n, _ := parseServerJSON([]byte(`{"a":[1,2],"b":{}}`))
	if got, want := serverToJSON(n, 4), "{\n    \"a\": [\n        1,\n        2\n    ],\n    \"b\": {}\n}"; got != want {
		t.Errorf("indent 4: %q, want %q", got, want)
	}
	if got, want := serverToJSON(n, 0), "{\n\"a\": [\n1,\n2\n],\n\"b\": {}\n}"; got != want {
		t.Errorf("indent 0: %q, want %q", got, want)
	}
}

func TestCounterMatchesWholePromptTokenization(t *testing.T) {
	tok := qwen3(t)
	msgs, tools, _ := toolConversation()
	c := NewCounter(tok, qwenTemplate{})
	got, err := c.CountRequest(msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := qwenTemplate{}.Render(msgs, tools)
	// With no special-token strings in the content, counting segment by segment equals
	// tokenizing the prompt between pictures with specials recognised.
	var b strings.Builder
	var want []int
	for _, s := range segs {
		if s.Image == nil {
			b.WriteString(s.Text)
			continue
		}
		want = append(want, tok.EncodeFraming(b.String())...)
		b.Reset()
	}
	want = append(want, tok.EncodeFraming(b.String())...)
	if got.Tokens != len(want) {
		t.Errorf("CountRequest = %d tokens, whole prompt %d", got.Tokens, len(want))
	}
	specials := 0
	for _, id := range want {
		if id >= 151643 {
			specials++
		}
	}
	if got.SpecialTokens != specials || len(got.Images) != 2 {
		t.Errorf("specials %d (want %d), images %d (want 2)", got.SpecialTokens, specials, len(got.Images))
	}
}

func TestCounterCachesRepeatedHistory(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	c := NewCounter(tok, chatML(t))
	long := strings.Repeat("The whole history is re-sent every turn. ", 40)
	conv := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{textPart(long)}}}
	var counts []int
	for turn := 0; turn < 4; turn++ {
		r, err := c.CountRequest(conv, nil)
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, r.Tokens)
		conv = append(conv,
			corpora.Message{Role: corpora.RoleAssistant, Parts: []corpora.Part{textPart(long + " reply")}},
			corpora.Message{Role: corpora.RoleUser, Parts: []corpora.Part{textPart(long + " again")}})
	}
	hits, misses := c.CacheStats()
	// Runs: each message's text with its closing framing. Turns re-send 1, 3, 5 and 7 runs
	// of 3 distinct texts.
	if misses != 3 || hits != 13 {
		t.Errorf("cache hits %d, misses %d; want 13 and 3", hits, misses)
	}
	// Counts equal a cache-free count.
	fresh := NewCounter(tok, chatML(t))
	r, _ := fresh.CountRequest(conv[:len(conv)-2], nil)
	if r.Tokens != counts[3] {
		t.Errorf("cached count %d, fresh count %d", counts[3], r.Tokens)
	}
	if counts[1] <= counts[0] {
		t.Errorf("counts do not grow with the history: %v", counts)
	}
}

func TestCounterConcurrent(t *testing.T) {
	tok := ourTiktoken(t, "cl100k_base")
	c := NewCounter(tok, qwenTemplate{})
	msgs, tools, _ := toolConversation()
	want, err := c.CountRequest(msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := c.CountRequest(msgs, tools)
				if err != nil || got.Tokens != want.Tokens {
					errs <- "concurrent count differs"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestSafeCutIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	toks := []*tokenize.BPETokenizer{ourTiktoken(t, "o200k_base"), ourTiktoken(t, "cl100k_base")}
	cuts := 0
	for i := 0; i < 3000 && cuts < 400; i++ {
		before, after := tokentext.RandomText(r, 1+r.IntN(12))+"\n", tokentext.RandomText(r, 1+r.IntN(12))
		if !safeCut(before, after) {
			continue
		}
		cuts++
		for _, tok := range toks {
			if a, b, ab := tok.Count(before), tok.Count(after), tok.Count(before+after); a+b != ab {
				t.Fatalf("%s: safeCut(%q, %q) but %d + %d != %d", tok.Name(), before, after, a, b, ab)
			}
		}
	}
	if cuts < 100 {
		t.Fatalf("only %d safe cuts tried", cuts)
	}
	for _, tc := range []struct {
		before, after string
		want          bool
	}{{"a\n", "b", true}, {"a\n", " b", false}, {"a\n", "/b", false}, {"a", "b", false}, {"a\n", "\nb", false}} {
		if got := safeCut(tc.before, tc.after); got != tc.want {
			t.Errorf("safeCut(%q, %q) = %v", tc.before, tc.after, got)
		}
	}
}

func TestJinjaQwen3MatchesBuiltin(t *testing.T) {
	cfg := filepath.Join(filepath.Dir(tokentext.Qwen3TokenizerPath()), "tokenizer_config.json")
	if _, err := os.Stat(cfg); err != nil {
		t.Skipf("Qwen3 tokenizer_config.json not found at %s: run internal/scripts/fetch-qwen3-tokenizer.sh", cfg)
	}
	tmpl, err := TemplateFromSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs, tools, imgs := toolConversation()
	for _, tc := range []struct {
		msgs  []corpora.Message
		tools []corpora.ToolDef
	}{{msgs, tools}, {msgs, nil}, {msgs[1:2], nil}} {
		got, err := tmpl.Render(tc.msgs, tc.tools)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := qwenTemplate{}.Render(tc.msgs, tc.tools)
		if RenderString(got) != RenderString(want) {
			t.Errorf("Jinja rendering\n%s\nbuilt-in\n%s", RenderString(got), RenderString(want))
		}
		var gotImgs []*corpora.Image
		for _, s := range got {
			if s.Image != nil {
				gotImgs = append(gotImgs, s.Image)
			}
			if s.Special && strings.Contains(s.Text, "What is in this picture") {
				t.Errorf("user content rendered as framing: %q", s.Text)
			}
		}
		if len(gotImgs) == 0 || gotImgs[0] != imgs[0] {
			t.Errorf("images %v, want the user's picture first", gotImgs)
		}
	}
}

func TestTemplateFromSpecErrors(t *testing.T) {
	if _, err := TemplateFromSpec("no-such-template"); err == nil || !strings.Contains(err.Error(), "chatml") {
		t.Errorf("error %v, want the built-in list", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.jinja")
	if err := os.WriteFile(bad, []byte("{% if %}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := TemplateFromSpec(bad); err == nil || !strings.Contains(err.Error(), "bad.jinja") {
		t.Errorf("error %v, want one naming bad.jinja", err)
	}
	cfg := filepath.Join(t.TempDir(), "tokenizer_config.json")
	if err := os.WriteFile(cfg, []byte(`{"chat_template": [{"name": "default", "template": "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"}], "eos_token": {"content": "</s>"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl, err := TemplateFromSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := tmpl.Render([]corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{textPart("hi")}}}, nil)
	if err != nil || RenderString(segs) != "user: hi\n" {
		t.Errorf("rendered %q, %v", RenderString(segs), err)
	}
}

// TestToolResultContentAsSent: a tool result is rendered as the engines send it — its text,
// else the MCP result as recorded; a JSON-RPC error alone sends no text.
func TestToolResultContentAsSent(t *testing.T) {
	raw := `{"content":[{"type":"text","text":"hi"}]}`
	for _, tc := range []struct {
		r    corpora.ToolResult
		want string
	}{
		{corpora.ToolResult{Text: "plain", IsText: true}, "plain"},
		{corpora.ToolResult{MCP: &corpora.CallToolResult{Raw: []byte(raw)}}, raw},
		{corpora.ToolResult{RPCError: &corpora.RPCError{Code: -32603, Message: "boom"}}, ""},
	} {
		r := tc.r
		m := corpora.Message{Role: corpora.RoleTool, Parts: []corpora.Part{{Kind: corpora.PartToolResult, ToolResult: &r}}}
		if got := joinContent(flattenContent(m), nil); got != tc.want {
			t.Errorf("%+v: content %q, want %q", tc.r, got, tc.want)
		}
	}
}
