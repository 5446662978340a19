package tokenize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"golang.org/x/text/unicode/norm"
)

func TestGGUFTokenizerMatchesQwen3(t *testing.T) {
	path := tokentext.WriteQwen3GGUF(t, false)
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatalf("LoadTokenizer(%s): %v", path, err)
	}
	// llama.cpp (and so the GGUF tokenizer) does not apply NFC: compare on NFC texts only.
	checkQwen3Cases(t, tok, qwen3Cases(t), func(c qwen3Case) bool { return !norm.NFC.IsNormalString(c.Text) })
}

// TestGGUFTokenizerAddedBOS: add_bos_token names the BOS the vocabulary adds to every prompt.
func TestGGUFTokenizerAddedBOS(t *testing.T) {
	for _, addBOS := range []bool{false, true} {
		tok, err := LoadGGUFTokenizer(tokentext.WriteQwen3GGUF(t, addBOS))
		if err != nil {
			t.Fatal(err)
		}
		if bos, adds := tok.AddedBOS(); adds != addBOS || adds && bos != "<|endoftext|>" {
			t.Errorf("add_bos_token %v: AddedBOS = %q, %v", addBOS, bos, adds)
		}
	}
}

func TestGGUFTokenizerErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, kvs []ggufwrite.KV) string {
		p := filepath.Join(dir, name)
		if err := ggufwrite.WriteFile(p, kvs, nil); err != nil {
			t.Fatal(err)
		}
		return p
	}
	byteTokens := make([]string, 256)
	dec := byteLevelDecoder()
	for r, b := range dec {
		byteTokens[b] = string(r)
	}
	tests := []struct {
		name    string
		path    string
		wantErr string
	}{
		{"rwkv", write("rwkv.gguf", []ggufwrite.KV{{Key: "tokenizer.ggml.model", Value: "rwkv"}}), "tokenizer model \"rwkv\""},
		{"no pre (llama.cpp's default)", write("nopre.gguf", []ggufwrite.KV{{Key: "tokenizer.ggml.model", Value: "gpt2"}}), "tokenizer.ggml.tokens is missing"},
		{"bad pre", write("badpre.gguf", []ggufwrite.KV{{Key: "tokenizer.ggml.model", Value: "gpt2"}, {Key: "tokenizer.ggml.pre", Value: "no-such-pre"}}), "\"no-such-pre\" is not supported"},
		{"tokens type", write("toktype.gguf", []ggufwrite.KV{{Key: "tokenizer.ggml.model", Value: "gpt2"}, {Key: "tokenizer.ggml.pre", Value: "qwen2"}, {Key: "tokenizer.ggml.tokens", Value: uint32(3)}}), "want an array"},
		{"bad merge", write("merge.gguf", []ggufwrite.KV{{Key: "tokenizer.ggml.model", Value: "gpt2"}, {Key: "tokenizer.ggml.pre", Value: "qwen2"}, {Key: "tokenizer.ggml.tokens", Value: byteTokens}, {Key: "tokenizer.ggml.merges", Value: []string{"a b"}}}), "tokenizer.ggml.merges[0]"},
	}
	junk := filepath.Join(dir, "junk.gguf")
	if err := os.WriteFile(junk, []byte("GGUF\x03\x00\x00\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct{ name, path, wantErr string }{"junk", junk, "junk.gguf"})
	for _, tc := range tests {
		_, err := LoadTokenizer(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), filepath.Base(tc.path)) {
			t.Errorf("%s: error %v, want one naming the file and containing %q", tc.name, err, tc.wantErr)
		}
	}
	// A byte-level vocabulary with no merges loads and spells text byte by byte.
	tok, err := LoadTokenizer(write("bytes.gguf", []ggufwrite.KV{{Key: "tokenizer.ggml.model", Value: "gpt2"}, {Key: "tokenizer.ggml.pre", Value: "gpt-2"}, {Key: "tokenizer.ggml.tokens", Value: byteTokens}, {Key: "tokenizer.ggml.merges", Value: []string{}}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Count("héllo"); got != 6 {
		t.Errorf("byte vocabulary counts %d tokens for héllo, want 6", got)
	}
}

func TestLoadTokenizerSpecs(t *testing.T) {
	for _, spec := range []string{"", "cl100k_base"} {
		tok, err := LoadTokenizer(spec)
		if err != nil {
			t.Fatalf("LoadTokenizer(%q): %v", spec, err)
		}
		if n := tok.Count("hello world"); n != 2 {
			t.Errorf("%q: hello world = %d tokens", spec, n)
		}
	}
	if _, err := LoadTokenizer("/no/such/tokenizer.json"); err == nil || !strings.Contains(err.Error(), "/no/such/tokenizer.json") {
		t.Errorf("missing file error %v", err)
	}
	if _, err := os.Stat(tokentext.Qwen3TokenizerPath()); err == nil {
		tok, err := LoadTokenizer(filepath.Dir(tokentext.Qwen3TokenizerPath()))
		if err != nil || tok.Count("Hello world") != 2 {
			t.Errorf("LoadTokenizer(dir with tokenizer.json) = %v, %v", tok, err)
		}
	}
}
