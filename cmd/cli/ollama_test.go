package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ollamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
)

// ollamaSetup starts a real Ollama (`make ollama`) serving the tiny Qwen3 model as "tiny"
// with the Go template tmpl, and returns its URL, the repository root, the model and the
// Modelfile; it skips without Ollama or the tokenizer.
func ollamaSetup(t *testing.T, tmpl string) (url, root, model, modelfile string) {
	t.Helper()
	bin := ollamaserver.Find(t)
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skipf("skipping the live Ollama test: Qwen3 tokenizer absent: %v", err)
	}
	model, err = tinymodel.EnsureQwen3(filepath.Join(root, ".cache", "tinymodel"), tok, tinymodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamaserver.Start(t, bin)
	modelfile = ollamaserver.Modelfile(t, t.TempDir(), model, tmpl)
	srv.Create(t, "tiny", modelfile)
	return srv.URL, root, model, modelfile
}

// qwen3OllamaTemplate is the Qwen3 Go template with tools the measure tests use.
func qwen3OllamaTemplate(t *testing.T, root string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "measure", "prompt", "testdata", "ollama", "qwen3.gotmpl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// liveCorpus is a corpus the live tests replay: its name and paths (none: the embedded samples).
type liveCorpus struct {
	name  string
	paths []string
}

// liveCorpora are the sample corpus and the real recordings.
func liveCorpora(root string) []liveCorpus {
	return []liveCorpus{
		{"sample", nil},
		{"real", []string{filepath.Join(root, "corpora", "testdata", "real"), filepath.Join(root, "corpora", "testdata", "mcp")}},
	}
}

// TestLiveOllama replays the sample corpus and the real recordings against a real Ollama
// (v0.17.4, the tiny Qwen3 model, a Qwen3 template with tools) through its native API: every
// arm that fits the model's context and carries no picture has server − computed = 0; an arm
// longer than the context is named as truncated by the server and left out of the comparison;
// the tiny model's refusal of pictures is said once.
func TestLiveOllama(t *testing.T) { liveOllamaCorpora(t, "ollama") }

// TestLiveOllamaOpenAI is TestLiveOllama through Ollama's OpenAI-compatible API
// (/v1/chat/completions, found to be Ollama by its /api/version): the computed counts render
// the conversation as Ollama's openai package converts it, and still equal the server's.
func TestLiveOllamaOpenAI(t *testing.T) { liveOllamaCorpora(t, "openai") }

// liveOllamaCorpora replays the sample corpus and the real recordings against a real Ollama
// through the protocol api and checks every arm: server − computed = 0, or truncated by the
// server and not compared, or a picture the model cannot see.
func liveOllamaCorpora(t *testing.T, api string) {
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	url, _, model, modelfile := ollamaSetup(t, qwen3OllamaTemplate(t, root))
	for _, corpus := range liveCorpora(root) {
		t.Run(corpus.name, func(t *testing.T) {
			// a 2 MB request takes Ollama minutes on busy cores: --timeout waits for it
			args := append([]string{"--engine", "http", "--api", api, "--endpoint", url, "--model", "tiny", "--no-cache",
				"--tokenizer", model, "--template", modelfile, "--ctx", "8192", "--turns", "all", "--timeout", "30m"}, corpus.paths...)
			code, stderr, r := replayLive(t, t.TempDir(), args...)
			if r == nil || code != ExitOK {
				t.Fatalf("exit %d: %s", code, tail(stderr, 3000))
			}
			if strings.Count(stderr, "does not support") > 1 {
				t.Errorf("a server-wide refusal said more than once:\n%s", stderr)
			}
			equal, truncated, unsent := 0, 0, 0
			for _, c := range r.Cases {
				for _, a := range c.Arms {
					switch {
					case strings.HasPrefix(a.Verdict, "truncated by the server"):
						truncated++
						if a.CountDiff != nil || a.Fits {
							t.Errorf("%s %s: truncated, yet compared (%v) or fitting", c.ID, a.Arm, a.CountDiff)
						}
					case a.CountDiff == nil:
						unsent++
						if !carriesPicture(a) {
							t.Errorf("%s %s: no server count (%s)", c.ID, a.Arm, a.Verdict)
						}
					case *a.CountDiff != 0:
						t.Errorf("%s %s: server − computed = %d (server %d)", c.ID, a.Arm, *a.CountDiff, a.PromptTokens)
					default:
						equal++
					}
				}
			}
			// Ollama's context is capped at the tiny model's trained context, and the run says so
			if r.Config.Context != 4096 || !strings.Contains(stderr, "with a context of 4096, not --ctx 8192") {
				t.Errorf("context %d, want Ollama's 4096 and a warning:\n%s", r.Config.Context, stderr)
			}
			if r.Config.API != api || !strings.HasPrefix(r.Config.Server, "Ollama") {
				t.Errorf("config api %q server %q: want %s and Ollama", r.Config.API, r.Config.Server, api)
			}
			if blind := strings.Count(stderr, "no vision capability"); blind > 1 || (corpus.name == "sample" && blind == 0) {
				t.Errorf("the model's blindness is not said once:\n%s", stderr)
			}
			t.Logf("%s corpus through the %s API: %d arms with server − computed = 0, %d truncated by Ollama, %d with pictures not sent", corpus.name, api, equal, truncated, unsent)
			if equal == 0 {
				t.Fatal("no arm compared")
			}
		})
	}
}

// TestLiveOllamaNoTools: with a template that takes no tools, Ollama refuses every request
// declaring tools; the run says so once and keeps those arms' computed counts.
func TestLiveOllamaNoTools(t *testing.T) {
	url, _, model, modelfile := ollamaSetup(t, "{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n")
	code, stderr, r := replayLive(t, t.TempDir(), "--engine", "http", "--api", "ollama", "--endpoint", url, "--model", "tiny", "--no-cache",
		"--tokenizer", model, "--template", modelfile, "--ctx", "8192")
	if r == nil || code != ExitOK {
		t.Fatalf("exit %d: %s", code, tail(stderr, 3000))
	}
	if n := strings.Count(stderr, "does not support tools"); n != 1 {
		t.Errorf("the refusal of tools said %d times:\n%s", n, stderr)
	}
	lines := 0
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(l, "strata-eval: waiting ") { // a slow server is said while waited for
			lines++
		}
	}
	if lines > 3 {
		t.Errorf("%d lines on stderr:\n%s", lines, stderr)
	}
	said := false
	for _, w := range r.Config.Warnings {
		said = said || strings.Contains(w, "declaring tools keep the computed counts")
	}
	if !said {
		t.Errorf("the report does not say it: %q", r.Config.Warnings)
	}
	var compared int
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			if a.CountDiff != nil {
				compared++
				if *a.CountDiff != 0 {
					t.Errorf("%s %s: server − computed = %d", c.ID, a.Arm, *a.CountDiff)
				}
			}
		}
	}
	if compared == 0 {
		t.Error("no arm without tools compared")
	}
}

// TestLiveOllamaServerTemplate: without --template, the computed counts render the template
// Ollama reports for the model (/api/show) and count with Ollama's tokenizer of --tokenizer's
// GGUF: server − computed = 0 on every arm of the real recordings, with no warning about
// templates.
func TestLiveOllamaServerTemplate(t *testing.T) {
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	url, _, model, _ := ollamaSetup(t, qwen3OllamaTemplate(t, root))
	real := liveCorpora(root)[1]
	args := append([]string{"--engine", "http", "--api", "ollama", "--endpoint", url, "--model", "tiny", "--no-cache",
		"--tokenizer", model, "--ctx", "4096", "--turns", "all"}, real.paths...)
	code, stderr, r := replayLive(t, t.TempDir(), args...)
	if r == nil || code != ExitOK {
		t.Fatalf("exit %d: %s", code, tail(stderr, 3000))
	}
	if strings.Contains(stderr, "Go template") {
		t.Errorf("a template warning without --template:\n%s", stderr)
	}
	if r.Config.Template != "ollama:tiny" {
		t.Errorf("template %q, want the server's (ollama:tiny)", r.Config.Template)
	}
	equal := 0
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			switch {
			case a.CountDiff == nil:
				t.Errorf("%s %s: no server count (%s)", c.ID, a.Arm, a.Verdict)
			case *a.CountDiff != 0:
				t.Errorf("%s %s: server − computed = %d", c.ID, a.Arm, *a.CountDiff)
			default:
				equal++
			}
		}
	}
	t.Logf("real recordings, the server's template: %d arms with server − computed = 0", equal)
}
