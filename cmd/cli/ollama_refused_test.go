package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// userOnlyTemplate takes tools but renders the user turns alone: a request that holds none (an
// MCP transcript's tool call and its result) is rendered as nothing, which Ollama refuses with
// an HTTP 500 ("no input provided").
const userOnlyTemplate = "{{- if .Tools }}{{ end }}{{- range .Messages }}{{- if eq .Role \"user\" }}<|im_start|>user\n{{ .Content }}<|im_end|>\n<|im_start|>assistant\n{{ end }}{{- end }}"

// TestLiveOllamaMeasuresEveryCase replays the real recordings against a real Ollama whose
// template renders nothing of a request without a user turn: every case is measured, the
// requests the template renders as nothing are not sent (said once; their arms keep the
// computed counts), and Ollama counts the rest, server − computed = 0. Without the project's
// rendering (the same requests sent), Ollama refuses them and they are their arms' errors, said
// once, the run going on (run's TestRefusedRequestIsArmError).
func TestLiveOllamaMeasuresEveryCase(t *testing.T) {
	url, root, model, modelfile := ollamaSetup(t, userOnlyTemplate)
	paths := []string{filepath.Join(root, "corpora", "testdata", "real"), filepath.Join(root, "corpora", "testdata", "mcp")}
	args := append([]string{"--engine", "http", "--api", "ollama", "--endpoint", url, "--model", "tiny", "--no-cache",
		"--tokenizer", model, "--template", modelfile, "--ctx", "4096", "--turns", "all", "--timeout", "30m"}, paths...)
	code, stderr, r := replayLive(t, t.TempDir(), args...)
	if r == nil || code != ExitOK {
		t.Fatalf("exit %d: %s", code, tail(stderr, 3000))
	}
	notSent, counted := 0, 0
	for _, c := range r.Cases {
		if c.Error != "" {
			t.Errorf("%s: %s", c.ID, c.Error)
		}
		for _, a := range c.Arms {
			switch {
			case a.NotSent != "":
				notSent++
			case a.CountDiff == nil:
				t.Errorf("%s %s: neither counted by Ollama nor said why", c.ID, a.Arm)
			case *a.CountDiff != 0:
				t.Errorf("%s %s: server − computed = %d", c.ID, a.Arm, *a.CountDiff)
			default:
				counted++
			}
		}
	}
	t.Logf("%d cases: %d arms counted by Ollama (server − computed = 0), %d not sent (nothing rendered)", len(r.Cases), counted, notSent)
	if notSent == 0 || counted == 0 || strings.Count(stderr, "renders nothing") != 1 || strings.Contains(stderr, "no input provided") {
		t.Errorf("want arms counted, arms not sent said once, and no refusal:\n%s", tail(stderr, 3000))
	}
}
