package prompt

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// startLlamaServer starts llama-server on loopback with the tiny Qwen3 model (one slot of 8,192
// tokens) and the extra args, and returns its URL; the server is stopped when the test ends.
func startLlamaServer(t *testing.T, bin, model string, args ...string) string {
	return llamaserver.Start(t, bin, model, append([]string{"-c", "8192", "-np", "1", "-t", "1"}, args...)...)
}

// serverBody is a chat request as the http engine writes it: the messages as
// corpora.WriteOpenAIMessage writes them (tool results flattened to their text) and the tools
// as corpora.OpenAITools writes them.
func serverBody(t *testing.T, msgs []corpora.Message, tools []corpora.ToolDef) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		flat := m
		flat.Parts = nil
		for _, p := range m.Parts {
			if p.Kind == corpora.PartToolResult && p.ToolResult != nil {
				flat.Parts = append(flat.Parts, textPart(p.ToolResult.Text))
				continue
			}
			flat.Parts = append(flat.Parts, p)
		}
		if err := corpora.WriteOpenAIMessage(&b, &flat); err != nil {
			t.Fatal(err)
		}
	}
	b.WriteString("]")
	if raw := corpora.OpenAITools(tools); raw != nil {
		b.WriteString(`,"tools":`)
		b.Write(raw)
	}
	b.WriteString("}")
	return b.Bytes()
}

func postJSON(t *testing.T, url string, body []byte, out any) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v: %s", url, err, raw)
		}
	}
	return resp.StatusCode, string(raw)
}

// serverOnlyCases are requests whose numbers and strings only llama-server can judge: the
// spellings nlohmann::json and the server's tojson give them.
func serverOnlyCases() []templateCase {
	schema := json.RawMessage(`{"type":"object","properties":{"ratio":{"type":"number","default":1.0,"minimum":0.5,"maximum":3.141592653589793},` +
		`"big":{"type":"integer","maximum":12345678901234567890},"huge":{"type":"number","maximum":1e20},"tiny":{"type":"number","minimum":1E-7},` +
		`"neg":{"type":"integer","minimum":-9223372036854775809},"s":{"type":"string","description":"line\u2028sep <b>&amp;</b> \u00e9 \ud83d\ude00 \u0007"}}}`)
	tools := []corpora.ToolDef{{Name: "tune", Description: "Tune \"it\".", Parameters: schema}}
	return []templateCase{
		{name: "schema numbers and strings", tools: tools, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("tune")),
			msg(corpora.RoleAssistant, call("c1", "tune", `{"ratio": 1.0, "big": 12345678901234567890, "huge": 1e20, "s": "a\u2028b", "arr": [1.5e3, -0.0]}`)),
			toolMsg("c1", textPart("done")),
		}},
	}
}

// serverModel returns the llama-server binary and the tiny model, or skips.
func serverModel(t *testing.T) (bin, model string) {
	t.Helper()
	bin = llamaserver.Find(t, "")
	return bin, tinyModel(t)
}

// tinyModel returns the tiny Qwen3 model (written into .cache/tinymodel when absent), or skips
// when the tokenizer it is made from has not been fetched.
func tinyModel(t *testing.T) string {
	t.Helper()
	tokPath, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skip(err.Error())
	}
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	model, err := tinymodel.EnsureQwen3(filepath.Join(root, ".cache", "tinymodel"), tokPath, tinymodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// TestLlamaServerRendersLikeUs sends each case to a real llama-server (release v0.5.0, the
// tiny Qwen3 model, its Qwen3 template) and checks that /apply-template gives the prompt we
// render, with the GGUF's template and the built-in qwen, and that the server's /tokenize of
// it has as many tokens as we count.
func TestLlamaServerRendersLikeUs(t *testing.T) {
	bin, model := serverModel(t)
	url := startLlamaServer(t, bin, model)
	ggufTemplate, err := TemplateFromSpec(model)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenize.LoadGGUFTokenizer(model)
	if err != nil {
		t.Fatal(err)
	}
	cases := append(templateCases(), serverOnlyCases()...)
	compared := 0
	for _, tc := range cases {
		pictures := false
		for _, m := range tc.msgs {
			if len(flattenContent(m)) > 0 && hasPicture(flattenContent(m)) {
				pictures = true
			}
		}
		if pictures {
			continue // the tiny model has no projector: the server refuses pictures
		}
		var applied struct {
			Prompt string `json:"prompt"`
		}
		status, raw := postJSON(t, url+"/apply-template", serverBody(t, tc.msgs, tc.tools), &applied)
		if status != http.StatusOK {
			if tc.name == "arguments respelled" && strings.Contains(raw, "arguments") {
				continue // a call with empty arguments: the server refuses it, we render {}
			}
			t.Errorf("%s: /apply-template: HTTP %d: %s", tc.name, status, raw)
			continue
		}
		if os.Getenv("STRATA_DEBUG_PROMPTS") != "" {
			t.Logf("%s: %q", tc.name, applied.Prompt)
		}
		for _, tmpl := range []Template{ggufTemplate, qwenTemplate{}} {
			segs, err := tmpl.Render(tc.msgs, tc.tools)
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.name, tmpl.Name(), err)
			}
			if got := RenderString(segs); got != applied.Prompt {
				t.Errorf("%s: %s renders\n%q\nllama-server\n%q", tc.name, tmpl.Name(), got, applied.Prompt)
				continue
			}
			if tc.name == "tool response as user" {
				continue // content holds special-token text, which is never special in content
			}
			var tokens struct {
				Tokens []int `json:"tokens"`
			}
			body, _ := json.Marshal(map[string]any{"content": applied.Prompt, "add_special": true, "parse_special": true})
			if status, raw := postJSON(t, url+"/tokenize", body, &tokens); status != http.StatusOK {
				t.Fatalf("/tokenize: HTTP %d: %s", status, raw)
			}
			if c := NewCounter(tok, tmpl).CountSegments(segs); c.Tokens != len(tokens.Tokens) {
				t.Errorf("%s: %s counts %d tokens, llama-server %d", tc.name, tmpl.Name(), c.Tokens, len(tokens.Tokens))
			}
			compared++
		}
	}
	t.Logf("%d renderings compared with llama-server", compared)

	// Fields of a tool other than name, description and parameters ("strict") never reach the
	// template: llama-server keeps only those three, as we do.
	plain := `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}]}`
	strict := `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","strict":true,"function":{"name":"f","strict":true,"parameters":{"type":"object","properties":{}}}}]}`
	var a, b struct {
		Prompt string `json:"prompt"`
	}
	postJSON(t, url+"/apply-template", []byte(plain), &a)
	postJSON(t, url+"/apply-template", []byte(strict), &b)
	if a.Prompt == "" || a.Prompt != b.Prompt || strings.Contains(b.Prompt, "strict") {
		t.Errorf("\"strict\" changes the server's prompt:\n%q\n%q", a.Prompt, b.Prompt)
	}
}

func hasPicture(items []contentItem) bool {
	for _, it := range items {
		if it.image != nil {
			return true
		}
	}
	return false
}

// TestLlamaServerRendersModelTemplates starts llama-server with the models' own templates
// (--chat-template-file, the tiny model's vocabulary) and checks that /apply-template gives the
// prompt of the Jinja renderer and of the built-in template for that model — or that both the
// server and we refuse the conversation. The server hands the template the tiny vocabulary's
// BOS and EOS texts; the built-ins write their model's, which the test maps.
func TestLlamaServerRendersModelTemplates(t *testing.T) {
	bin, model := serverModel(t)
	dir := llamaCppTemplates(t)
	_, bos, eos, err := LoadChatTemplate(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ builtin, file, bos, eos string }{
		{"llama3", "meta-llama-Llama-3.1-8B-Instruct.jinja", "<|begin_of_text|>", ""},
		{"mistral", "Mistral-Small-3.2-24B-Instruct-2506.jinja", "<s>", "</s>"},
		{"gemma", "google-gemma-2-2b-it.jinja", "<bos>", ""},
	} {
		path := filepath.Join(dir, p.file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		jt0, err := NewJinjaTemplate(p.file, string(src), bos, eos)
		if err != nil {
			t.Fatal(err)
		}
		// the server writes its local date as today's
		jt := WithTemplateDate(jt0, time.Now())
		builtin, _ := TemplateByName(p.builtin)
		builtin = WithTemplateDate(builtin, time.Now())
		url := startLlamaServer(t, bin, model, "--chat-template-file", path)
		compared := 0
		for _, tc := range append(templateCases(), serverOnlyCases()...) {
			// Gemma 2 shows no system message: llama-server merges it into the next message,
			// and so does the Jinja renderer; the built-in is Gemma 3's, which shows it.
			jinjaOnly := p.builtin == "gemma" && len(tc.msgs) > 0 && tc.msgs[0].Role == corpora.RoleSystem
			pictures := false
			for _, m := range tc.msgs {
				pictures = pictures || hasPicture(flattenContent(m))
			}
			if pictures {
				continue
			}
			var applied struct {
				Prompt string `json:"prompt"`
			}
			status, raw := postJSON(t, url+"/apply-template", serverBody(t, tc.msgs, tc.tools), &applied)
			js, jerr := jt.Render(tc.msgs, tc.tools)
			bs, berr := builtin.Render(tc.msgs, tc.tools)
			if jinjaOnly {
				berr, bs = jerr, js
			}
			if status != http.StatusOK {
				if tc.name == "arguments respelled" {
					continue // empty arguments: the server refuses them, we render {}
				}
				if jerr == nil || berr == nil {
					t.Errorf("%s / %s: the server refuses (%d %s), Jinja error %v, built-in error %v", p.file, tc.name, status, raw, jerr, berr)
				}
				continue
			}
			if jerr != nil || berr != nil {
				t.Errorf("%s / %s: the server renders, Jinja error %v, built-in error %v", p.file, tc.name, jerr, berr)
				continue
			}
			if got := RenderString(js); got != applied.Prompt {
				t.Errorf("%s / %s: Jinja renders\n%q\nllama-server\n%q", p.file, tc.name, got, applied.Prompt)
			}
			got := RenderString(bs)
			if !jinjaOnly {
				got = strings.Replace(got, p.bos, bos, 1)
			}
			if p.eos != "" && !jinjaOnly {
				got = strings.ReplaceAll(got, p.eos, eos)
			}
			if got != applied.Prompt {
				t.Errorf("%s / %s: built-in %s renders\n%q\nllama-server\n%q", p.file, tc.name, p.builtin, got, applied.Prompt)
			}
			compared++
		}
		t.Logf("%s: %d prompts compared with llama-server", p.file, compared)
	}
}

// TestLlamaServerProbesTemplates starts llama-server with templates whose capabilities its
// probe judges (arguments printed as they come, no system message shown) and checks that we
// render what it renders.
func TestLlamaServerProbesTemplates(t *testing.T) {
	bin, model := serverModel(t)
	_, bos, eos, err := LoadChatTemplate(model)
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"plain arguments":   "{% for m in messages %}{{ m.role }}: {{ m.content }}{% if m.tool_calls %}{% for c in m.tool_calls %} CALL {{ c.function.name }} {{ c.function.arguments }}{% endfor %}{% endif %}\n{% endfor %}",
		"arguments as JSON": "{% for m in messages %}{{ m.role }}: {{ m.content }}{% if m.tool_calls %}{% for c in m.tool_calls %} CALL {{ c.function.name }} {{ c.function.arguments | tojson }}{% endfor %}{% endif %}\n{% endfor %}",
		"no system":         "{% for m in messages %}{% if m.role != 'system' %}[{{ m.role }}] {{ m.content }}\n{% endif %}{% endfor %}",
	} {
		path := filepath.Join(t.TempDir(), "t.jinja")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		jt, err := NewJinjaTemplate(name, src, bos, eos)
		if err != nil {
			t.Fatal(err)
		}
		url := startLlamaServer(t, bin, model, "--chat-template-file", path)
		msgs := []corpora.Message{
			msg(corpora.RoleSystem, textPart("Be brief.")),
			msg(corpora.RoleUser, textPart("hi")),
			msg(corpora.RoleAssistant, call("c1", "f", `{"a":1.0,"b":"x"}`)),
			toolMsg("c1", textPart("ok")),
		}
		var applied struct {
			Prompt string `json:"prompt"`
		}
		if status, raw := postJSON(t, url+"/apply-template", serverBody(t, msgs, nil), &applied); status != http.StatusOK {
			t.Fatalf("%s: HTTP %d: %s", name, status, raw)
		}
		segs, err := jt.Render(msgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := RenderString(segs); got != applied.Prompt {
			t.Errorf("%s: we render\n%q\nllama-server\n%q", name, got, applied.Prompt)
		}
	}
}

// TestLlamaServerChatML starts llama-server with --chat-template chatml and checks that
// /apply-template gives the prompt of the built-in chatml for every case without a picture, and
// that the server's /tokenize of it has as many tokens as we count.
func TestLlamaServerChatML(t *testing.T) {
	bin, model := serverModel(t)
	url := startLlamaServer(t, bin, model, "--chat-template", "chatml")
	tok, err := tokenize.LoadGGUFTokenizer(model)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := chatML(t)
	compared := 0
	for _, tc := range append(templateCases(), serverOnlyCases()...) {
		pictures := false
		for _, m := range tc.msgs {
			pictures = pictures || hasPicture(flattenContent(m))
		}
		if pictures {
			continue // the tiny model has no projector: the server refuses pictures
		}
		var applied struct {
			Prompt string `json:"prompt"`
		}
		status, raw := postJSON(t, url+"/apply-template", serverBody(t, tc.msgs, tc.tools), &applied)
		segs, err := tmpl.Render(tc.msgs, tc.tools)
		if status != http.StatusOK {
			if tc.name == "arguments respelled" {
				continue // empty arguments: the server refuses them, we render {}
			}
			t.Errorf("%s: /apply-template: HTTP %d: %s (we render: error %v)", tc.name, status, raw, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: the server renders, chatml: %v", tc.name, err)
			continue
		}
		if got := RenderString(segs); got != applied.Prompt {
			t.Errorf("%s: chatml renders\n%q\nllama-server\n%q", tc.name, got, applied.Prompt)
			continue
		}
		var tokens struct {
			Tokens []int `json:"tokens"`
		}
		body, _ := json.Marshal(map[string]any{"content": applied.Prompt, "add_special": true, "parse_special": true})
		if status, raw := postJSON(t, url+"/tokenize", body, &tokens); status != http.StatusOK {
			t.Fatalf("/tokenize: HTTP %d: %s", status, raw)
		}
		// content that holds special-token text (<tool_response>, <think>) is never special
		// in content, but /tokenize of the whole prompt parses it so
		if tc.name != "tool response as user" && tc.name != "think in a tool loop" {
			if c := NewCounter(tok, tmpl).CountSegments(segs); c.Tokens != len(tokens.Tokens) {
				t.Errorf("%s: chatml counts %d tokens, llama-server %d", tc.name, c.Tokens, len(tokens.Tokens))
			}
		}
		compared++
	}
	if compared < 10 {
		t.Errorf("only %d renderings compared", compared)
	}
	t.Logf("%d renderings compared with llama-server", compared)
}

// wireString passes ASCII by its fast path and anything else to tokenize.InvalidBytesAsRune:
// the same string either way, invalid bytes at every place around the vector blocks.
func TestWireStringIsInvalidBytesAsRune(t *testing.T) {
	for _, n := range []int{0, 1, 8, 31, 32, 33, 64, 100, 130} {
		for at := 0; at <= n; at++ {
			for _, bad := range []string{"", "é", "\xff", "\xe3\x80", "日本"} {
				s := strings.Repeat("x", at) + bad + strings.Repeat("y", n-at)
				if got, want := wireString(s), tokenize.InvalidBytesAsRune(s); got != want {
					t.Fatalf("wireString(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
}
