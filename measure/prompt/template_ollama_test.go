package prompt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// TestOllamaThroughOpenAI: a request sent to Ollama's /v1/chat/completions reaches its template
// as Ollama's openai package converts it: each part of a content array a message of its own
// (the picture's bytes kept, in order), a tool result's name not carried when its content is
// an array; the native API keeps one message. Each renders as its own protocol delivers it.
func TestOllamaThroughOpenAI(t *testing.T) {
	pic := &corpora.Image{Data: testimages.PNG(32, 24, 1), Origin: corpora.OriginUser}
	msgs := []corpora.Message{
		msg(corpora.RoleUser, textPart("look"), imagePart(pic), textPart("at this")),
		msg(corpora.RoleAssistant, call("c1", "ls", `{"path":"/"}`)),
		toolMsg("c1", textPart("one"), textPart("two")),
	}
	tools := []corpora.ToolDef{{Name: "ls", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	decode := func(r OllamaRequest) []api.Message {
		var v struct {
			Messages []api.Message `json:"messages"`
		}
		if err := json.Unmarshal(r.JSON, &v); err != nil {
			t.Fatal(err)
		}
		return v.Messages
	}
	native, err := OllamaChat(msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	viaOpenAI, err := OllamaChatViaOpenAI(msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(decode(native)); n != 3 {
		t.Errorf("native: %d messages, want 3", n)
	}
	got := decode(viaOpenAI)
	var shape []string
	for _, m := range got {
		shape = append(shape, m.Role+":"+m.Content+":"+m.ToolName+":"+strings.Repeat("img", len(m.Images)))
	}
	want := []string{"user:look::", "user:::img", "user:at this::", "assistant:::", "tool:one::", "tool:two::"}
	if strings.Join(shape, "|") != strings.Join(want, "|") {
		t.Errorf("through openai: %q, want %q", shape, want)
	}
	if len(got) > 3 && (len(got[3].ToolCalls) != 1 || got[3].ToolCalls[0].Function.Name != "ls") {
		t.Errorf("the assistant's tool call is lost: %+v", got[3])
	}
	if len(viaOpenAI.Images) != 1 || viaOpenAI.Images[0] != pic || string(got[1].Images[0]) != string(pic.Data) {
		t.Errorf("the picture is not carried through: %d pictures", len(viaOpenAI.Images))
	}

	src, err := os.ReadFile(filepath.Join("testdata", "ollama", "qwen3.gotmpl"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := NewOllamaTemplate("qwen3.gotmpl", OllamaModel{Template: string(src), Family: "qwen3"})
	if err != nil {
		t.Fatal(err)
	}
	through, err := tmpl.Through("openai")
	if err != nil {
		t.Fatal(err)
	}
	// Qwen3's template joins consecutive user messages with a blank line
	for _, c := range []struct {
		tmpl *OllamaTemplate
		want string
	}{{tmpl, "[img-0]look\nat this<|im_end|>"}, {through, "look\n\n[img-0]\n\nat this<|im_end|>"}} {
		segs, err := c.tmpl.Render(msgs, tools)
		if err != nil {
			t.Fatal(err)
		}
		if prompt := RenderString(segs); !strings.Contains(prompt, c.want) {
			t.Errorf("the prompt does not hold %q:\n%s", c.want, prompt)
		}
	}
	// a GIF, whose data URL Ollama's openai package refuses, is still counted where it stands
	gif := &corpora.Image{Data: testimages.GIF(16, 16, 2), Origin: corpora.OriginTool}
	r, err := OllamaChatViaOpenAI([]corpora.Message{msg(corpora.RoleUser, textPart("a"), imagePart(gif))}, nil)
	if err != nil || len(r.Images) != 1 || len(decode(r)) != 2 || string(decode(r)[1].Images[0]) != string(gif.Data) {
		t.Errorf("a GIF through openai: %v, %d pictures", err, len(r.Images))
	}
	if _, err := tmpl.Through("anthropic"); err == nil {
		t.Error("a protocol whose conversion is not known is taken")
	}
}
