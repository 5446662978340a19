package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/results"
)

// TestReplayLlamaEngine replays two samples with the in-process llama.cpp engine on a tiny
// random-weight qwen3 model: llama.cpp's counts equal the computed ones, and the report names
// the backend that ran them. Skipped when the libraries or the tokenizer are absent.
func TestReplayLlamaEngine(t *testing.T) {
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	libs := os.Getenv(engine.LlamaLibEnv)
	if libs == "" {
		libs = filepath.Join(root, ".cache", "llama-libs", "linux-x64")
	}
	if libs, err = engine.FindLlamaLibs(libs); err != nil {
		t.Skipf("llama.cpp libraries absent: %v", err)
	}
	tok, model := tinyQwen3(t, root)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"replay", "--engine", "llama", "--model", model, "--llama-lib", libs, "--tokenizer", tok,
		"--arms", "before,after", "--answer", "--max-tokens", "4", "--format", "csv", "--out", dir,
		filepath.Join(root, "corpora", "samples", "openai-chat-text-only.json"),
		filepath.Join(root, "corpora", "samples", "openai-chat-tiny-png.json")}, &IOStreams{Out: &out, ErrOut: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r results.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Config.Engine != "llama" || !strings.Contains(r.Config.Server, "llama.cpp") || !strings.Contains(r.Config.Server, "backend") {
		t.Errorf("config names engine %q, server %q", r.Config.Engine, r.Config.Server)
	}
	if r.Config.Model != filepath.Base(model) {
		t.Errorf("config.model %q, want the GGUF's name %q", r.Config.Model, filepath.Base(model))
	}
	if len(r.Cases) != 2 {
		t.Fatalf("%d cases, want 2", len(r.Cases))
	}
	for _, s := range r.Summary {
		if s.Compared == 0 || s.CountDiff != 0 {
			t.Errorf("arm %s: llama.cpp's counts differ from the computed ones by %+d over %d cases", s.Arm, s.CountDiff, s.Compared)
		}
	}
}

// TestReplayLlamaEngineFindsItsLibraries: from a working directory that holds no .cache, with
// neither --llama-lib nor YZMA_LIB, --engine llama finds the libraries `make llama-libs`
// fetched (in the module folder) and replays.
func TestReplayLlamaEngineFindsItsLibraries(t *testing.T) {
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, ".cache", "llama-libs", "linux-x64")
	if _, err := os.Stat(filepath.Join(want, "libllama.so")); err != nil {
		t.Skipf("llama.cpp libraries absent from %s: run make llama-libs", want)
	}
	if env := os.Getenv(engine.LlamaLibEnv); env != "" {
		if resolved, _ := filepath.EvalSymlinks(env); resolved != mustEvalSymlinks(t, want) {
			t.Skipf("%s=%s: the other llama tests load those libraries in this process", engine.LlamaLibEnv, env)
		}
	}
	tok, model := tinyQwen3(t, root)
	t.Setenv(engine.LlamaLibEnv, "")
	t.Chdir(t.TempDir())
	if found, err := engine.FindLlamaLibs(""); err != nil {
		t.Fatalf("from another working directory: %v", err)
	} else if resolved, _ := filepath.EvalSymlinks(found); resolved != mustEvalSymlinks(t, want) {
		t.Skipf("the libraries found first are %s (the other llama tests load %s in this process)", found, want)
	}
	code, out, errOut := runCLI(t, "replay", "--engine", "llama", "--model", model, "--tokenizer", tok, "--arms", "after",
		"--format", "csv", filepath.Join(root, "corpora", "samples", "openai-chat-text-only.json"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "openai-chat-text-only.json") {
		t.Errorf("no case replayed:\n%s", out)
	}
}

func mustEvalSymlinks(t *testing.T, p string) string {
	t.Helper()
	e, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// tinyQwen3 returns the Qwen3 tokenizer and the tiny random-weight model made from it (written
// once into .cache), or skips the test when the tokenizer has not been fetched.
func tinyQwen3(t *testing.T, root string) (tokenizer, model string) {
	t.Helper()
	tok, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skipf("Qwen3 tokenizer absent: %v", err)
	}
	model, err = tinymodel.EnsureQwen3(filepath.Join(root, ".cache", "tinymodel"), tok, tinymodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tok, model
}
