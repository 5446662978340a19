package tokenize

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// TestMergerCutsProven: the words of every merger that cuts them (Gemma 3's and Llama 2's
// tokenizer.json, the release's SentencePiece vocabularies and Gemma 4's) merged a word at a
// time give the ids of the whole text merged at once, on the edge cases, invalid UTF-8 and
// 256 KB of English.
func TestMergerCutsProven(t *testing.T) {
	texts := append(slices.Clone(tokentext.EdgeCases), "\xe4a b \xf0 c\xf0xy z\xe4\xb8 x\xc3 \xe4a\nb",
		"<b>bold</b> <i>it</i>\n<p> </p> x> </y> </z", tokentext.EnglishText(rand.New(rand.NewPCG(3, 4)), 256<<10))
	mergers := map[string]*charMerger{}
	for _, name := range []string{"gemma3", "llama2"} {
		mergers[name] = &lenmlTokenizer(t, name).(*CharBPETokenizer).charMerger
	}
	for _, name := range []string{"llama-spm", "phi-3", "baichuan", "gemma-4"} {
		path := filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-"+name+".gguf")
		if _, err := os.Stat(path); err != nil {
			t.Skipf("llama.cpp's test vocabularies are not fetched (make test-deps): %v", err)
		}
		mergers[name] = &loadSPM(t, path).charMerger
	}
	s := new(runScratch)
	for name, m := range mergers {
		if !m.cuts {
			t.Errorf("%s: words are not cut", name)
		}
		for _, text := range texts {
			b := appendEscaped(nil, text)
			if m.merges != nil { // Gemma 4 and tokenizer.json read invalid UTF-8 as U+FFFD
				b = appendEscaped(nil, InvalidBytesAsRune(text))
			}
			cut := m.encode(nil, b, s)
			if whole := m.merge(nil, b, s); !slices.Equal(cut, whole) {
				t.Errorf("%s: %q: a word at a time %d ids, whole %d", name, clip(text, 60), len(cut), len(whole))
			}
		}
	}
}
