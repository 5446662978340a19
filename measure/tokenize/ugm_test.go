package tokenize

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// TestUGMViterbi: a small Unigram vocabulary (no character map) spells each text by the
// tokens of the highest summed score; a run of characters no token spells is one unknown
// token; spaces are "▁", a run of them one, with one in front (remove_extra_whitespaces,
// add_space_prefix); a user-defined token scores 0.
func TestUGMViterbi(t *testing.T) {
	tokens := []string{"<pad>", "</s>", "<unk>", "▁ab", "▁a", "b", "▁", "a", "c", "bc", "▁cc"}
	scores := []float32{0, 0, 0, -1, -1, -1, -2, -3, -1, -0.5, -30}
	types := []int32{ggufTokenControl, ggufTokenControl, ggufTokenUnknown, 1, 1, 1, 1, 1, 1, 1, ggufTokenUserDefined}
	path := filepath.Join(t.TempDir(), "ugm.gguf")
	if err := ggufwrite.WriteFile(path, []ggufwrite.KV{
		{Key: "tokenizer.ggml.model", Value: "t5"},
		{Key: "tokenizer.ggml.tokens", Value: tokens},
		{Key: "tokenizer.ggml.scores", Value: scores},
		{Key: "tokenizer.ggml.token_type", Value: types},
		{Key: "tokenizer.ggml.add_space_prefix", Value: true},
		{Key: "tokenizer.ggml.remove_extra_whitespaces", Value: true},
	}, nil); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string][]int{
		"ab":      {3},
		"  a  b ": {4, 6, 5},
		"xx":      {6, 2},
		"abxyc":   {3, 2, 8},
		"abc":     {4, 9},
		"cc":      {10},
		"":        nil,
	} {
		if got := tok.Encode(text); !slices.Equal(got, want) || tok.Count(text) != len(want) {
			t.Errorf("%q: got %v (Count %d), want %v", text, got, tok.Count(text), want)
		}
	}
	if _, adds := tok.(*UGMTokenizer).AddedBOS(); adds {
		t.Error("a Unigram vocabulary without add_bos_token adds a BOS")
	}
}
