package tokenize

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hybridgroup/yzma/pkg/llama"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// BenchmarkSPMVersusLibllama compares this package's SentencePiece count with libllama's own
// tokenizer (a vocabulary-only load through yzma, the release's CPU libraries of make
// llama-libs) on the same 256 KB of English prose, in 4 KB texts (a message each); each
// libllama sub-benchmark asserts both give the same count.
func BenchmarkSPMVersusLibllama(b *testing.B) {
	path := filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-llama-spm.gguf")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("llama.cpp's test vocabularies are not fetched (make test-deps): %v", err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		b.Fatal(err)
	}
	prose := tokentext.EnglishText(rand.New(rand.NewPCG(1, 2)), 256<<10)
	var texts []string
	for len(prose) >= 4096 {
		texts, prose = append(texts, prose[:4096]), prose[4096:]
	}
	want := 0
	for _, t := range texts {
		want += tok.Count(t)
	}
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(texts) * 4096))
		for b.Loop() {
			n := 0
			for _, t := range texts {
				n += tok.Count(t)
			}
			if n != want {
				b.Fatalf("count changed: %d, then %d", want, n)
			}
		}
		b.ReportMetric(float64(want), "tokens")
	})
	_, self, _, _ := runtime.Caller(0)
	lib := filepath.Join(filepath.Dir(self), "..", "..", ".cache", "llama-libs", "linux-x64")
	if _, err := os.Stat(filepath.Join(lib, "libllama.so")); err != nil {
		b.Logf("libllama is not in %s (make llama-libs): only ours runs", lib)
		return
	}
	if err := llama.Load(lib); err != nil {
		b.Fatal(err)
	}
	llama.LogSet(llama.LogSilent())
	llama.Init()
	mp := llama.ModelDefaultParams()
	mp.VocabOnly, mp.NGpuLayers = 1, 0
	model, err := llama.ModelLoadFromFile(path, mp)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = llama.ModelFree(model) }()
	vocab := llama.ModelGetVocab(model)
	b.Run("libllama", func(b *testing.B) {
		b.SetBytes(int64(len(texts) * 4096))
		for b.Loop() {
			n := 0
			for _, t := range texts {
				n += len(llama.Tokenize(vocab, t, false, false))
			}
			if n != want {
				b.Fatalf("libllama counts %d tokens, ours %d", n, want)
			}
		}
	})
}
