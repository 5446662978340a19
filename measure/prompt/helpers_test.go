package prompt

import (
	"os"
	"sync"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// loadedTokenizers caches the tokenizers the tests load by spec: loading a vocabulary takes
// about half a second.
var loadedTokenizers sync.Map // spec → *tokenize.BPETokenizer

// bpe loads the tokenizer of spec (o200k_base, cl100k_base, a tokenizer.json) once per test
// binary, or skips the test when spec is a file that has not been fetched.
func bpe(tb testing.TB, spec string) *tokenize.BPETokenizer {
	tb.Helper()
	if t, ok := loadedTokenizers.Load(spec); ok {
		return t.(*tokenize.BPETokenizer)
	}
	if spec != "o200k_base" && spec != "cl100k_base" {
		if _, err := os.Stat(spec); err != nil {
			tb.Skipf("tokenizer %s not found: run internal/scripts/fetch-qwen3-tokenizer.sh (make test does)", spec)
		}
	}
	tok, err := tokenize.LoadTokenizer(spec)
	if err != nil {
		tb.Fatalf("LoadTokenizer(%s): %v", spec, err)
	}
	t, ok := tok.(*tokenize.BPETokenizer)
	if !ok {
		tb.Fatalf("LoadTokenizer(%s) is a %T, not a BPE tokenizer", spec, tok)
	}
	loadedTokenizers.Store(spec, t)
	return t
}

// ourTiktoken is this project's tokenizer of a tiktoken encoding.
func ourTiktoken(tb testing.TB, name string) *tokenize.BPETokenizer { return bpe(tb, name) }

// qwen3 is the real Qwen3 tokenizer, or a skip when it has not been fetched.
func qwen3(tb testing.TB) *tokenize.BPETokenizer { return bpe(tb, tokentext.Qwen3TokenizerPath()) }

// chunkTokenizers are the tokenizers the chunk cut rules are checked against: both tiktoken
// encodings, and Qwen3 (Qwen2 pre-tokenizer, NFC) when its tokenizer.json was fetched.
func chunkTokenizers(t *testing.T) []*tokenize.BPETokenizer {
	toks := []*tokenize.BPETokenizer{ourTiktoken(t, "o200k_base"), ourTiktoken(t, "cl100k_base")}
	if _, err := os.Stat(tokentext.Qwen3TokenizerPath()); err == nil {
		toks = append(toks, qwen3(t))
	}
	return toks
}
