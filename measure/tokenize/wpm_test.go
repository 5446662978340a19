package tokenize

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// writeWPMGGUF writes a small WordPiece vocabulary: [UNK] 0, [CLS] 1, then words.
func writeWPMGGUF(t *testing.T, extra ...ggufwrite.KV) string {
	t.Helper()
	tokens := []string{"[UNK]", "[CLS]", "▁hello", "▁he", "llo", "▁,", "▁世", "▁界", "▁a", "b", "▁ᄒ"}
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = ggufTokenNormal
	}
	types[0], types[1] = ggufTokenControl, ggufTokenControl
	kvs := append([]ggufwrite.KV{
		{Key: "tokenizer.ggml.model", Value: "bert"},
		{Key: "tokenizer.ggml.tokens", Value: tokens},
		{Key: "tokenizer.ggml.token_type", Value: types},
		{Key: "tokenizer.ggml.unknown_token_id", Value: uint32(0)},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(1)},
	}, extra...)
	path := filepath.Join(t.TempDir(), "wpm.gguf")
	if err := ggufwrite.WriteFile(path, kvs, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWPMWords: words are cut at white space (any Unicode space), punctuation and CJK
// ideographs; lower-cased, accents and control characters dropped (a Hangul syllable is its
// leading consonant); spelt by the longest token
// from the left; a word one place of which starts no token is one [UNK].
func TestWPMWords(t *testing.T) {
	tok, err := LoadTokenizer(writeWPMGGUF(t))
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string][]int{
		"Héllo, 世界":     {2, 5, 6, 7},
		"he\u0007llo":   {2},
		"ab":            {8, 9},
		"abc hello":     {0, 2},
		"a\u00a0b":      {8, 0},
		"  HE\tllo  ":   {3, 0},
		"":              nil,
		"hello\u0301 ,": {2, 5},
		"한":             {10},
	} {
		if got := tok.Encode(text); !slices.Equal(got, want) || tok.Count(text) != len(want) {
			t.Errorf("%q: got %v (Count %d), want %v", text, got, tok.Count(text), want)
		}
	}
	if bos, ok := tok.(*WPMTokenizer).AddedBOS(); !ok || bos != "[CLS]" {
		t.Errorf("AddedBOS = %q, %v; want [CLS], true", bos, ok)
	}
	if got := tok.EncodeFraming("[CLS]hello"); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("framing [CLS]hello: got %v, want [1 2]", got)
	}
}

// TestWPMCaseKept: a vocabulary that says tokenizer.ggml.normalizer.lowercase false keeps
// the case (and, by default with it, the accents).
func TestWPMCaseKept(t *testing.T) {
	tok, err := LoadTokenizer(writeWPMGGUF(t, ggufwrite.KV{Key: "tokenizer.ggml.normalizer.lowercase", Value: false}))
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string][]int{"Hello": {0}, "hello": {2}, "hé": {0}} {
		if got := tok.Encode(text); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", text, got, want)
		}
	}
}
