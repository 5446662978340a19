package tokenize

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// spmPiece is one token of a hand-made SentencePiece vocabulary.
type spmPiece struct {
	text  string
	score float32
	typ   int32
}

// writeSPMGGUF writes a SentencePiece vocabulary: <unk>, <s>, </s>, the 256 byte tokens, then
// pieces; extra keys are added as they are.
func writeSPMGGUF(t *testing.T, pieces []spmPiece, extra ...ggufwrite.KV) (path string, id func(string) int) {
	t.Helper()
	all := []spmPiece{{"<unk>", 0, ggufTokenUnknown}, {"<s>", 0, ggufTokenControl}, {"</s>", 0, ggufTokenControl}}
	for b := range 256 {
		all = append(all, spmPiece{fmt.Sprintf("<0x%02X>", b), 0, ggufTokenByte})
	}
	all = append(all, pieces...)
	var texts []string
	var scores []float32
	var types []int32
	for _, p := range all {
		texts, scores, types = append(texts, p.text), append(scores, p.score), append(types, p.typ)
	}
	kvs := append([]ggufwrite.KV{
		{Key: "tokenizer.ggml.model", Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Value: texts},
		{Key: "tokenizer.ggml.scores", Value: scores},
		{Key: "tokenizer.ggml.token_type", Value: types},
	}, extra...)
	path = filepath.Join(t.TempDir(), "spm.gguf")
	if err := ggufwrite.WriteFile(path, kvs, nil); err != nil {
		t.Fatal(err)
	}
	return path, func(text string) int {
		i := slices.IndexFunc(all, func(p spmPiece) bool { return p.text == text })
		if i < 0 {
			t.Fatalf("no token %q", text)
		}
		return i
	}
}

func loadSPM(t *testing.T, path string) *SPMTokenizer {
	t.Helper()
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	spm, ok := tok.(*SPMTokenizer)
	if !ok {
		t.Fatalf("%s loads as %T", path, tok)
	}
	return spm
}

var spmTestPieces = []spmPiece{
	{"▁", -1, ggufTokenNormal}, {"a", -2, ggufTokenNormal}, {"b", -2, ggufTokenNormal},
	{"c", -2, ggufTokenNormal}, {"h", -2, ggufTokenNormal}, {"i", -2, ggufTokenNormal},
	{"ab", -5, ggufTokenNormal}, {"bc", -3, ggufTokenNormal}, {"▁h", -4, ggufTokenNormal},
	{"▁hi", -4, ggufTokenNormal}, {"<tag>", 0, ggufTokenUserDefined}, {"<|end|>", 0, ggufTokenControl},
	{"<ta", 0, ggufTokenUserDefined},
}

// TestSPMTokenizer: the pair whose token scores highest merges first (the leftmost of equal
// ones), unknown text is spelt in <0xXX> tokens, a "▁" goes in front of each run that starts
// the text or follows a special token, user-defined tokens are found in ordinary text and
// control tokens only in framing.
func TestSPMTokenizer(t *testing.T) {
	path, id := writeSPMGGUF(t, spmTestPieces, ggufwrite.KV{Key: "general.name", Value: "Phi-3 test"})
	tok := loadSPM(t, path)
	for _, c := range []struct {
		text    string
		framing bool
		want    []string
	}{
		{"abc", false, []string{"▁", "a", "bc"}}, // bc (−3) before ab (−5)
		{"hi", false, []string{"▁hi"}},           // ▁h then ▁hi
		{"hi hi", false, []string{"▁hi", "▁hi"}}, // a space is ▁
		{"é", false, []string{"▁", "<0xC3>", "<0xA9>"}},
		{"", false, nil},
		{"hi<tag>hi", false, []string{"▁hi", "<tag>", "▁hi"}},
		{"<s>hi<|end|>\n hi", true, []string{"<s>", "▁hi", "<|end|>", "▁hi"}}, // Phi-3: specials take the white space after them
		{"<tag>", true, []string{"<tag>"}},
		{"<tab<tag>", true, []string{"<ta", "▁", "b", "<tag>"}}, // longest first: <tag> before <ta
	} {
		want := []int{}
		for _, w := range c.want {
			want = append(want, id(w))
		}
		got, n := tok.Encode(c.text), tok.Count(c.text)
		if c.framing {
			got, n = tok.EncodeFraming(c.text), tok.CountFraming(c.text)
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) || n != len(want) {
			t.Errorf("%q (framing %v) = %v (Count %d), want %v %v", c.text, c.framing, got, n, want, c.want)
		}
	}
	// a control token is text in ordinary content
	if got := tok.Encode("<|end|>"); slices.Contains(got, id("<|end|>")) {
		t.Errorf("Encode(<|end|>) = %v holds the control token", got)
	}
	if got, err := tok.Decode(tok.Encode("hi é<tag>")); err != nil || string(got) != " hi é<tag>" {
		t.Errorf("Decode(Encode) = %q, %v", got, err)
	}
	if bos, adds := tok.AddedBOS(); !adds || bos != "<s>" {
		t.Errorf("AddedBOS = %q, %v; want <s> by default", bos, adds)
	}
	if sp, ok := tok.SpecialID("<|end|>"); !ok || sp != id("<|end|>") {
		t.Errorf("SpecialID(<|end|>) = %d, %v", sp, ok)
	}
	var split []string
	tok.SplitFraming("<s>hi<|end|> x", func(chunk string, special bool) { split = append(split, fmt.Sprint(chunk, special)) })
	if want := []string{"<s>true", "hifalse", "<|end|>true", "xfalse"}; !slices.Equal(split, want) {
		t.Errorf("SplitFraming = %q, want %q", split, want)
	}
}

// TestSPMTokenizerSettings: add_space_prefix and add_bos_token false, as Gemma 3's vocabulary
// sets them.
func TestSPMTokenizerSettings(t *testing.T) {
	path, id := writeSPMGGUF(t, spmTestPieces,
		ggufwrite.KV{Key: "tokenizer.ggml.add_space_prefix", Value: false},
		ggufwrite.KV{Key: "tokenizer.ggml.add_bos_token", Value: false})
	tok := loadSPM(t, path)
	if got, want := tok.Encode("hi hi"), []int{id("h"), id("i"), id("▁hi")}; !slices.Equal(got, want) {
		t.Errorf("Encode(hi hi) = %v, want %v", got, want)
	}
	if _, adds := tok.AddedBOS(); adds {
		t.Error("AddedBOS with add_bos_token false")
	}
	// no phi-3 name: the white space after a special token stays
	if got, want := tok.EncodeFraming("<|end|> hi"), []int{id("<|end|>"), id("▁hi")}; !slices.Equal(got, want) {
		t.Errorf("EncodeFraming(<|end|> hi) = %v, want %v", got, want)
	}
}
