package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// qwen3Tokenizer is where `make test-deps` puts the real Qwen3 tokenizer.json.
const qwen3Tokenizer = "../../.cache/qwen3/package/models/tokenizer.json"

// TestHeadlineGolden reproduces docs/pipeline.md §1: the Chatbox-style stringified tool message
// with a 1.5 MB PNG, a 262,144-token context, the Qwen3 tokenizer and a Qwen-VL family.
// Before is refused with the exact message; after fits with text tokens + image rows.
func TestHeadlineGolden(t *testing.T) {
	tok, err := filepath.Abs(qwen3Tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tok); err != nil {
		t.Skipf("Qwen3 tokenizer.json absent (%v): run make test-deps", err)
	}
	t.Chdir(filepath.Join("..", "..", "corpora", "samples")) // case ids name the file as given
	goldenDir, err := filepath.Abs(filepath.Join("..", "..", "cmd", "cli"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	code := Run(context.Background(), []string{"replay", "--tokenizer", tok, "--vision", "llamacpp/qwen3vl",
		"--ctx", "262144", "--template", "qwen", "--format", "markdown", "--no-timings", "--arms", "before,after",
		"--out", dir, "openai-chat-chatbox-screenshot.json"},
		&IOStreams{Out: &out, ErrOut: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	// the header names the tokenizer as given: an absolute path that differs between machines
	golden(t, filepath.Join(goldenDir, "testdata", "golden", "headline.md"), bytes.ReplaceAll(out.Bytes(), []byte(tok), []byte("TOKENIZER")))
	results, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("request exceeds the context window: prompt (1517651 tokens) leaves no room to answer in the context (262144); requests are never truncated")
	if !bytes.Contains(results, want) {
		t.Errorf("results.json lacks the refusal %q", want)
	}
	for _, s := range []string{"2,038,152 characters of text", "1,517,651 tokens → refused", "tokens of text + 1,002 image rows", "sees the picture"} {
		if !bytes.Contains(out.Bytes(), []byte(s)) {
			t.Errorf("headline table lacks %q", s)
		}
	}
}
