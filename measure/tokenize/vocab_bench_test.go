package tokenize

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// benchVocabs are the test vocabularies of llama.cpp's release the speed bar is measured on:
// SentencePiece, each pre-tokenizer this package runs as llama.cpp's cascade or its own
// splitter (default is GPT-NeoX's, which names none), Gemma 4's BPE, WordPiece and Unigram.
var benchVocabs = []string{"llama-spm", "gpt-neox", "falcon", "starcoder", "refact", "command-r",
	"deepseek-llm", "deepseek-coder", "qwen35", "mpt", "gemma-4", "bert-bge", "nomic-bert-moe"}

// BenchmarkVocabVersusLibllama counts the same 256 KB of English prose, in 4 KB texts (a
// message each), with this package's tokenizer of each of benchVocabs and with libllama's own
// (a vocabulary-only load of the release's CPU libraries, llama_tokenize called once per
// text); each libllama sub-benchmark asserts both give the same count.
func BenchmarkVocabVersusLibllama(b *testing.B) {
	prose := tokentext.EnglishText(rand.New(rand.NewPCG(1, 2)), 256<<10)
	var texts []string
	for len(prose) >= 4096 {
		texts, prose = append(texts, prose[:4096]), prose[4096:]
	}
	_, libErr := os.Stat(filepath.Join(libllamaDir(), "libllama.so"))
	for _, name := range benchVocabs {
		b.Run(name, func(b *testing.B) { benchVersusLibllama(b, name, texts, libErr == nil) })
	}
}

// benchVersusLibllama runs the two sub-benchmarks of one vocabulary (libllama's when withLib).
func benchVersusLibllama(b *testing.B, name string, texts []string, withLib bool) {
	path := filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-"+name+".gguf")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("llama.cpp's test vocabularies are not fetched (make test-deps): %v", err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		b.Fatal(err)
	}
	want := 0
	for _, t := range texts {
		want += tok.Count(t)
	}
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(texts) * 4096))
		defer reportCPU(b, processCPU())
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
	if !withLib {
		b.Logf("libllama is not in %s (make llama-libs): only ours runs", libllamaDir())
		return
	}
	vocab := libllamaVocab(b, path)
	var buf []int32
	b.Run("libllama", func(b *testing.B) {
		b.SetBytes(int64(len(texts) * 4096))
		defer reportCPU(b, processCPU())
		for b.Loop() {
			n := 0
			for _, t := range texts {
				buf = libllamaTokenize(vocab, t, buf)
				n += len(buf)
			}
			if n != want {
				b.Fatalf("libllama counts %d tokens, ours %d", n, want)
			}
		}
	})
}

// processCPU is the CPU time the process has used (user and system, every thread): on a
// shared machine it counts what a benchmark costs where the wall clock counts the waits too.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU milliseconds per iteration since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
}
