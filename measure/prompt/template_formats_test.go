package prompt

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// formatGoldens are requests whose prompt depends on what llama-server does before the template
// renders (its chat-format handlers, its probe of the template): the release's template and a
// case of templateCases or formatCases. Their prompts, as
// the release's llama-server renders them with the tiny model's BOS and EOS and a fixed date,
// are in testdata/server-renders (TestLlamaServerFormatGoldens checks them against the server,
// and writes them with STRATA_UPDATE_GOLDEN=1).
var formatGoldens = []struct{ template, testCase string }{
	{"openai-gpt-oss-120b", "reasoning_content in a tool loop"},
	{"openai-gpt-oss-120b", "reasoning_content"},
	{"LFM2.5-8B-A1B", "reasoning_content in a tool loop"},
	{"LFM2-8B-A1B", "reasoning_content in a tool loop"},
	{"mistralai-Ministral-3-14B-Reasoning-2512", "reasoning_content in a tool loop"},
	{"deepseek-ai-DeepSeek-V4", "tool results out of call order"},
	{"meetkai-functionary-medium-v3.2", "tool result response"},
	{"google-gemma-4-31B-it-interleaved", "reasoning_content"},
	{"google-gemma-4-31B-it-interleaved", "reasoning_content in a tool loop"},
	{"google-gemma-4-31B-it", "tool result response"},
	{"google-gemma-4-31B-it", "text and a call, then its result"},
	{"unsloth-Apriel-1.5", "tool result response"},
	{"Reka-Edge", "tool result response"},
	{"StepFun3.5-Flash", "reasoning_content"},
	{"StepFun3.5-Flash", "system and chat"},
	{"StepFun3.5-Flash", "text parts"},
}

// formatCases are cases only the format goldens use.
func formatCases() []templateCase {
	weather := []corpora.ToolDef{{Name: "get_weather", Description: "Weather of a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)}}
	return []templateCase{
		{name: "tool results out of call order", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("Weather in Oslo, Rome and Lima?")),
			msg(corpora.RoleAssistant, call("c1", "get_weather", `{"location":"Oslo"}`), call("c2", "get_weather", `{"location":"Rome"}`),
				call("c3", "get_weather", `{"location":"Lima"}`)),
			toolMsg("c3", textPart("warm")), toolMsg("x9", textPart("stray")), toolMsg("c1", textPart("rain")), toolMsg("c2", textPart("sun")),
		}},
		{name: "text and a call, then its result", tools: weather, msgs: []corpora.Message{
			msg(corpora.RoleUser, textPart("Weather in Oslo?")),
			msg(corpora.RoleAssistant, textPart("Checking."), call("c1", "get_weather", `{"location":"Oslo"}`)),
			toolMsg("c1", textPart(`{"sky": "rain", "temp": 4}`)),
		}},
	}
}

// The tiny model's BOS and EOS texts, which the server hands the templates, and the date of the
// golden prompts.
const (
	tinyBOS = "<|endoftext|>"
	tinyEOS = "<|im_end|>"
)

var goldenDate = time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)

// goldenPath is the file of a format golden.
func goldenPath(template, testCase string) string {
	return filepath.Join("testdata", "server-renders", template+"."+strings.ReplaceAll(testCase, " ", "_")+".txt")
}

// findCase is the case of templateCases with the name.
func findCase(t *testing.T, name string) templateCase {
	t.Helper()
	for _, tc := range append(templateCases(), formatCases()...) {
		if tc.name == name {
			return tc
		}
	}
	t.Fatalf("no template case %q", name)
	return templateCase{}
}

// renderRelease renders a case with the release's template at the golden date.
func renderRelease(t *testing.T, dir, template string, tc templateCase) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, template+".jinja"))
	if err != nil {
		t.Fatal(err)
	}
	jt, err := NewJinjaTemplate(template, string(src), tinyBOS, tinyEOS)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := WithTemplateDate(jt, goldenDate).Render(tc.msgs, tc.tools)
	if err != nil {
		t.Fatalf("%s / %s: %v", template, tc.name, err)
	}
	return RenderString(segs)
}

// TestFormatsRenderAsServer renders each format golden's case with the release's template:
// the prompt llama-server renders.
func TestFormatsRenderAsServer(t *testing.T) {
	dir := llamaCppTemplates(t)
	for _, g := range formatGoldens {
		want, err := os.ReadFile(goldenPath(g.template, g.testCase))
		if err != nil {
			t.Fatal(err)
		}
		if got := renderRelease(t, dir, g.template, findCase(t, g.testCase)); got != string(want) {
			t.Errorf("%s / %s: we render\n%q\nllama-server\n%q", g.template, g.testCase, got, want)
		}
	}
}

// TestLlamaServerFormatGoldens sends each format golden's case to the release's llama-server
// started with the template and checks that /apply-template gives the golden prompt, at the
// golden date (the server writes today's: the test runs with the date replaced).
func TestLlamaServerFormatGoldens(t *testing.T) {
	bin, model := serverModel(t)
	dir := llamaCppTemplates(t)
	today := time.Now()
	for _, g := range formatGoldens {
		url := startLlamaServer(t, bin, model, "--jinja", "--chat-template-file", filepath.Join(dir, g.template+".jinja"))
		tc := findCase(t, g.testCase)
		var applied struct {
			Prompt string `json:"prompt"`
		}
		if status, raw := postJSON(t, url+"/apply-template", serverBody(t, tc.msgs, tc.tools), &applied); status != http.StatusOK {
			t.Fatalf("%s / %s: HTTP %d: %s", g.template, g.testCase, status, raw)
		}
		prompt := strings.ReplaceAll(applied.Prompt, today.Format(time.DateOnly), goldenDate.Format(time.DateOnly))
		path := goldenPath(g.template, g.testCase)
		if os.Getenv("STRATA_UPDATE_GOLDEN") != "" {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(prompt), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if want, err := os.ReadFile(path); err != nil || string(want) != prompt {
			t.Errorf("%s / %s: llama-server renders\n%q\ngolden (%v)\n%q", g.template, g.testCase, prompt, err, want)
		}
	}
}
