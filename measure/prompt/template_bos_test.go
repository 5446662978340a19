package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// TestTemplateFileTakesTokenizerBOS: a .jinja template names no BOS or EOS; with a tokenizer
// that does (a GGUF vocabulary, a tokenizer.json with its tokenizer_config.json) it gets the
// tokenizer's, as llama-server hands a template its model's, and its prompt starts with the BOS
// (one token more than without it).
func TestTemplateFileTakesTokenizerBOS(t *testing.T) {
	dir := t.TempDir()
	jinja := filepath.Join(dir, "bos.jinja")
	src := `{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{{ eos_token }}{% endfor %}`
	if err := os.WriteFile(jinja, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	gguf := tokentext.WriteQwen3GGUF(t, false)
	msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hello"}}}}
	for name, tt := range map[string]struct{ tokenizer, want string }{
		"gguf vocabulary": {gguf, "<|endoftext|><user>hello<|im_end|>"},
		"tokenizer.json":  {tokentext.Qwen3TokenizerPath(), "<user>hello<|im_end|>"}, // Qwen3 names no bos_token
		"built-in":        {"o200k_base", "<user>hello"},
	} {
		t.Run(name, func(t *testing.T) {
			tmpl, err := TemplateForTokenizer(jinja, tt.tokenizer)
			if err != nil {
				t.Fatal(err)
			}
			segs, err := tmpl.Render(msgs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := RenderString(segs); got != tt.want {
				t.Errorf("rendered %q, want %q", got, tt.want)
			}
		})
	}

	// the BOS is one token of the count
	tok, err := tokenize.LoadTokenizer(gguf)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := TemplateFromSpecTokens(jinja, "", "<|im_end|>")
	withBOS, _ := TemplateForTokenizer(jinja, gguf)
	a, err := NewCounter(tok, plain).CountRequest(msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewCounter(tok, withBOS).CountRequest(msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Tokens != a.Tokens+1 || !strings.HasPrefix(RenderString(mustRender(t, withBOS, msgs)), "<|endoftext|>") {
		t.Errorf("%d tokens with the tokenizer's BOS, %d without: want one more", b.Tokens, a.Tokens)
	}
}

func mustRender(t *testing.T, tmpl Template, msgs []corpora.Message) []Segment {
	t.Helper()
	segs, err := tmpl.Render(msgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// TestTemplateDate: llama3, mistral and a Jinja template's date_string and strftime_now write
// DefaultTemplateDate as today's date unless WithTemplateDate sets another, so that a count
// does not change from one day to the next.
func TestTemplateDate(t *testing.T) {
	dir := t.TempDir()
	jinja := filepath.Join(dir, "date.jinja")
	if err := os.WriteFile(jinja, []byte(`Today: {{ date_string }} {{ strftime_now("%Y-%m-%d") }} {% for m in messages %}{{ m.content }}{% endfor %}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := TemplateFromSpec(jinja)
	if err != nil {
		t.Fatal(err)
	}
	llama3, _ := TemplateByName("llama3")
	mistral, _ := TemplateByName("mistral")
	msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hello"}}}}
	other, err := ParseTemplateDate("2024-07-26")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tmpl              Template
		byDefault, onDate string
	}{
		{llama3, "Today Date: 01 Jan 2026", "Today Date: 26 Jul 2024"},
		{mistral, "2026-01-01", "2024-07-26"},
		{fromFile, "Today: 01 Jan 2026 2026-01-01", "Today: 26 Jul 2024 2024-07-26"},
	} {
		if got := RenderString(mustRender(t, tt.tmpl, msgs)); !strings.Contains(got, tt.byDefault) {
			t.Errorf("%s writes %q, want %q", tt.tmpl.Name(), got, tt.byDefault)
		}
		if got := RenderString(mustRender(t, WithTemplateDate(tt.tmpl, other), msgs)); !strings.Contains(got, tt.onDate) {
			t.Errorf("%s on 2024-07-26 writes %q, want %q", tt.tmpl.Name(), got, tt.onDate)
		}
	}
	if _, err := ParseTemplateDate("26/07/2024"); err == nil {
		t.Error("26/07/2024 read as a date")
	}
}

// chatML is the built-in chatml template.
func chatML(t testing.TB) Template {
	t.Helper()
	tmpl, err := TemplateByName("chatml")
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// TestChatMLAsLlamaServer: the built-in chatml renders what llama-server renders for
// --chat-template chatml, llama.cpp's CHATML_TEMPLATE_SRC (common/chat.cpp): every message's
// role and content between <|im_start|> and <|im_end|>, the content parts joined by newlines,
// an assistant turn's tool calls and the declared tools left out (the template names neither,
// and the server adds nothing for them), a null content as empty.
func TestChatMLAsLlamaServer(t *testing.T) {
	text := func(role corpora.Role, s ...string) corpora.Message {
		m := corpora.Message{Role: role}
		for _, p := range s {
			m.Parts = append(m.Parts, corpora.Part{Kind: corpora.PartText, Text: p})
		}
		return m
	}
	call := text(corpora.RoleAssistant)
	call.Parts = append(call.Parts, corpora.Part{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "c1", Name: "read_image", Arguments: `{"path":"a.png"}`}})
	result := text(corpora.RoleTool, "the picture")
	result.ToolCallID = "c1"
	msgs := []corpora.Message{
		text(corpora.RoleSystem, "Be brief."),
		text(corpora.RoleUser, "Read it.", "Then say what it is."),
		call,
		result,
	}
	tools := []corpora.ToolDef{{Name: "read_image", Description: "Reads a picture.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	want := "<|im_start|>system\nBe brief.<|im_end|>\n" +
		"<|im_start|>user\nRead it.\nThen say what it is.<|im_end|>\n" +
		"<|im_start|>assistant\n<|im_end|>\n" +
		"<|im_start|>tool\nthe picture<|im_end|>\n" +
		"<|im_start|>assistant\n"
	segs, err := chatML(t).Render(msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	if got := RenderString(segs); got != want {
		t.Errorf("chatml renders\n%q\nllama-server renders\n%q", got, want)
	}
}
