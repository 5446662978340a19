package tokenize

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/hybridgroup/yzma/pkg/llama"
	"github.com/hybridgroup/yzma/pkg/loader"
	"github.com/jupiterrider/ffi"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// libllama is the release's own tokenizer (the CPU libraries of make llama-libs, loaded once
// through yzma): the oracle of every vocabulary of this package and its speed bar.
var libllama struct {
	once     sync.Once
	err      error
	tokenize ffi.Fun // llama_tokenize, called once per text with room for every token
}

// libllamaDir is where make llama-libs puts the release's CPU libraries.
func libllamaDir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", ".cache", "llama-libs", "linux-x64")
}

// libllamaVocab loads a vocabulary-only model of path into libllama, or skips when the
// libraries are not there.
func libllamaVocab(tb testing.TB, path string) llama.Vocab {
	tb.Helper()
	dir := libllamaDir()
	if _, err := os.Stat(filepath.Join(dir, "libllama.so")); err != nil {
		tb.Skipf("libllama is not in %s (make llama-libs)", dir)
	}
	libllama.once.Do(func() {
		if libllama.err = llama.Load(dir); libllama.err != nil {
			return
		}
		llama.LogSet(llama.LogSilent())
		llama.Init()
		var lib loader.Lib
		if lib, libllama.err = loader.LoadLibrary(dir, "llama"); libllama.err != nil {
			return
		}
		libllama.tokenize, libllama.err = lib.Prep("llama_tokenize", &ffi.TypeSint32, &ffi.TypePointer, &ffi.TypePointer,
			&ffi.TypeSint32, &ffi.TypePointer, &ffi.TypeSint32, &ffi.TypeUint8, &ffi.TypeUint8)
	})
	if libllama.err != nil {
		tb.Fatalf("load libllama from %s: %v", dir, libllama.err)
	}
	mp := llama.ModelDefaultParams()
	mp.VocabOnly, mp.NGpuLayers = 1, 0
	model, err := llama.ModelLoadFromFile(path, mp)
	if err != nil {
		tb.Fatalf("libllama: load %s: %v", path, err)
	}
	tb.Cleanup(func() { _ = llama.ModelFree(model) })
	return llama.ModelGetVocab(model)
}

// libllamaTokenize returns libllama's ids of ordinary text (no BOS, no special tokens
// parsed), tokenizing it once into buf, which it grows as needed.
func libllamaTokenize(vocab llama.Vocab, text string, buf []int32) []int32 {
	if text == "" {
		return buf[:0]
	}
	if n := len(text) + 16; cap(buf) < n {
		buf = make([]int32, n)
	}
	buf = buf[:cap(buf)]
	var result ffi.Arg
	ptr, n := unsafe.StringData(text), int32(len(text))
	toks, room := unsafe.SliceData(buf), int32(len(buf))
	addSpecial, parseSpecial := false, false
	libllama.tokenize.Call(unsafe.Pointer(&result), unsafe.Pointer(&vocab), unsafe.Pointer(&ptr), &n,
		unsafe.Pointer(&toks), &room, &addSpecial, &parseSpecial)
	if got := int32(result); got >= 0 {
		return buf[:got]
	}
	return libllamaTokenize(vocab, text, make([]int32, -int32(result)))
}

// oracleTexts are the texts every vocabulary is compared with libllama on: the test texts of
// every vocabulary of the release, the pre-tokenizers' edge cases, markup, random text over an
// alphabet that stresses the patterns, and English-like prose.
func oracleTexts(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	paths, _ := filepath.Glob(filepath.Join("testdata", "llamacpp-vocab", "*.inp"))
	for _, p := range paths {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "ggml-vocab-"), ".gguf.inp")
		cases, _ := readLlamaVocabCases(t, name)
		for _, c := range cases {
			seen[c.text] = true
		}
	}
	for _, s := range tokentext.EdgeCases {
		seen[s] = true
	}
	// Gemma 4's one token across a word's start, ">▁</", where a word may not be merged alone
	seen["<b>bold</b> <i>it</i>\n<p> </p> x> </y> </z"] = true
	// a lead byte whose sequence runs into a word's start: llama.cpp's symbol takes the "▁" in
	seen["\xe4a b \xf0 c\xf0xy z\xe4\xb8 x\xc3 \xe4a\nb"] = true
	r := rand.New(rand.NewPCG(3, 4))
	for range 40 {
		seen[tokentext.RandomText(r, 200)] = true
	}
	seen[tokentext.EnglishText(r, 16<<10)] = true
	texts := make([]string, 0, len(seen))
	for s := range seen {
		texts = append(texts, s)
	}
	sort.Strings(texts)
	return texts
}

// TestLibllamaAgrees encodes the oracle texts with every test vocabulary of the release, here
// and in libllama: the ids must be the same, and Count their number.
func TestLibllamaAgrees(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-*.gguf"))
	if len(paths) == 0 {
		t.Skipf("llama.cpp's test vocabularies are not in %s (make test-deps)", tokentext.LlamaVocabDir())
	}
	texts := oracleTexts(t)
	var buf []int32
	var summary []string
	for _, path := range paths {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "ggml-vocab-"), ".gguf")
		vocab := libllamaVocab(t, path)
		tok, err := LoadTokenizer(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		equal, bad := 0, 0
		for _, text := range texts {
			buf = libllamaTokenize(vocab, text, buf)
			if got := tok.Encode(text); sameIDs(got, buf) && tok.Count(text) == len(buf) {
				equal++
			} else if bad++; bad <= 3 {
				t.Errorf("%s: %q: ours %v (Count %d), libllama %v", name, text, got, tok.Count(text), buf)
			}
		}
		summary = append(summary, fmt.Sprintf("%s %d", name, equal))
	}
	t.Logf("texts equal of %d, per vocabulary: %s", len(texts), strings.Join(summary, ", "))
}

func sameIDs(a []int, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != int(b[i]) {
			return false
		}
	}
	return true
}
