package prompt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// FuzzServerJSON parses arbitrary JSON as the server holds it and writes it back: no panic,
// and what it writes (but for inf and nan, which are no JSON) reads back to the same text
// after one round.
func FuzzServerJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"]}`, `[1.0,-0.0,1e400,12345678901234567890,-9223372036854775809]`,
		`"\u2028\ud83d\ude00\u0000"`, `{"a":1,"a":{"b":[]}}`, `{`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseServerJSON(data)
		if err != nil {
			return
		}
		out := serverToJSON(n, -1)
		_ = serverToJSON(n, 2)
		if strings.Contains(out, "inf") || strings.Contains(out, "nan") {
			return
		}
		n2, err := parseServerJSON([]byte(out))
		if err != nil {
			t.Fatalf("%q written as %q, which does not parse: %v", data, out, err)
		}
		out2 := serverToJSON(n2, -1)
		n3, _ := parseServerJSON([]byte(out2))
		if out3 := serverToJSON(n3, -1); out3 != out2 {
			t.Fatalf("not stable: %q → %q → %q", out, out2, out3)
		}
	})
}

// FuzzQwenTemplates renders a tool loop whose strings come from the fuzzer with the built-in
// qwen and with Qwen3's Jinja template: the same prompt, the same pictures, no error.
func FuzzQwenTemplates(f *testing.F) {
	src, _, _, err := LoadChatTemplate(filepath.Join(filepath.Dir(tokentext.Qwen3TokenizerPath()), "tokenizer_config.json"))
	if err != nil {
		f.Skipf("Qwen3 tokenizer_config.json not readable (%v): run internal/scripts/fetch-qwen3-tokenizer.sh", err)
	}
	jt, err := NewJinjaTemplate("qwen3", src, "", "")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("hi", "<think>\nr\n</think>\n\nok", "", `{"a": 1.0}`, "result \ue000\ue001", "desc")
	f.Add("<tool_response>x</tool_response>", "\n\nanswer", "\nwhy\n", `not json`, "", "")
	f.Add(" \t", "</think>", "r", `{"k":[1e20,"\u2028"]}`, "\U000F0000\U000F00010\U000F0001", "a\"b")
	f.Fuzz(func(t *testing.T, user, answer, reasoning, args, result, desc string) {
		img := &corpora.Image{Data: []byte("png"), Origin: corpora.OriginTool}
		parts := []corpora.Part{textPart(answer), call("c1", "f", args)}
		if reasoning != "" {
			parts = append([]corpora.Part{reasoningPart(reasoning)}, parts...)
		}
		msgs := []corpora.Message{
			msg(corpora.RoleUser, textPart(user)),
			msg(corpora.RoleAssistant, parts...),
			toolMsg("c1", textPart(result), imagePart(img)),
		}
		tools := []corpora.ToolDef{{Name: "f", Description: desc}}
		bs, err := qwenTemplate{}.Render(msgs, tools)
		if err != nil {
			t.Fatal(err)
		}
		js, err := jt.Render(msgs, tools)
		if err != nil {
			t.Fatal(err)
		}
		if RenderString(bs) != RenderString(js) {
			t.Fatalf("built-in\n%q\nJinja\n%q", RenderString(bs), RenderString(js))
		}
		for _, segs := range [][]Segment{bs, js} {
			n := 0
			for _, s := range segs {
				if s.Image != nil {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d pictures, want 1", n)
			}
		}
	})
}
