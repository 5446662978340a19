package tokenize

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hybridgroup/yzma/pkg/llama"
	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

var (
	libllamaOracleOnce sync.Once
	libllamaOracleErr  error
)

// loadLibllamaOracle loads the release's CPU libraries of make llama-libs (.cache/llama-libs) once per
// process through yzma, or skips in one line when they are not there.
func loadLibllamaOracle(tb testing.TB) {
	tb.Helper()
	_, self, _, _ := runtime.Caller(0)
	lib := filepath.Join(filepath.Dir(self), "..", "..", ".cache", "llama-libs", "linux-x64")
	if _, err := os.Stat(filepath.Join(lib, "libllama.so")); err != nil {
		tb.Skipf("libllama is not in %s (make test-deps or make llama-libs): the libllama comparison is skipped", lib)
	}
	libllamaOracleOnce.Do(func() {
		if libllamaOracleErr = llama.Load(lib); libllamaOracleErr == nil {
			llama.LogSet(llama.LogSilent())
			llama.Init()
		}
	})
	if libllamaOracleErr != nil {
		tb.Fatalf("load libllama from %s: %v", lib, libllamaOracleErr)
	}
}

// libllamaOracleVocab loads a GGUF's vocabulary only with libllama; free releases it.
func libllamaOracleVocab(tb testing.TB, path string) (vocab llama.Vocab, free func()) {
	tb.Helper()
	mp := llama.ModelDefaultParams()
	mp.VocabOnly, mp.NGpuLayers = 1, 0
	model, err := llama.ModelLoadFromFile(path, mp)
	if err != nil {
		tb.Fatalf("libllama: load %s: %v", path, err)
	}
	return llama.ModelGetVocab(model), func() { _ = llama.ModelFree(model) }
}

// corpusTexts returns the texts of the sample corpus and of the real recordings the tests hold
// (corpora/testdata/mcp, corpora/testdata/real): each message's text (its text parts, tool calls
// and the text of its tool results, as a client sends them), and each conversation's messages
// flattened into one text; each clipped to its first corpusTextMax bytes (a few hold megabytes of
// base64, which would take minutes through libllama and add no case the first 8 KB lack).
func corpusTexts(t *testing.T) []string {
	t.Helper()
	var c corpora.Collector
	if err := corpora.ReadSamples(context.Background(), &c); err != nil {
		t.Fatalf("read the sample corpus: %v", err)
	}
	for _, dir := range []string{"mcp", "real"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "corpora", "testdata", dir, "*"))
		for _, f := range files {
			if strings.HasPrefix(filepath.Base(f), ".") {
				continue
			}
			if err := corpora.ReadFile(context.Background(), f, "", &c); err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
		}
	}
	var texts []string
	for _, conv := range c.Conversations {
		var all []string
		for _, m := range conv.Messages {
			if s := messageText(corpora.FlattenToolResults(m)); s != "" {
				texts, all = append(texts, clipUTF8(s, corpusTextMax)), append(all, string(m.Role)+": "+s)
			}
		}
		texts = append(texts, clipUTF8(strings.Join(all, "\n\n"), corpusTextMax))
	}
	return texts
}

// corpusTextMax is the most bytes of one text of corpusTexts.
const corpusTextMax = 8 << 10

// clipUTF8 returns the first n bytes of s or fewer, ending on a rune boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// messageText joins the text parts and tool calls of a message.
func messageText(m corpora.Message) string {
	var parts []string
	for _, p := range m.Parts {
		switch {
		case p.Kind == corpora.PartText:
			parts = append(parts, p.Text)
		case p.Kind == corpora.PartToolCall && p.ToolCall != nil:
			parts = append(parts, p.ToolCall.Name+"("+p.ToolCall.Arguments+")")
		}
	}
	return strings.Join(parts, "\n")
}

// TestLibllamaAgreesOnCorpora counts the texts of the corpora with libllama's own tokenizer
// (each test vocabulary of the release loaded vocabulary-only; add_special and parse_special
// false) and with this package: the vocabularies of llamaVocabExact must agree on every text.
// The table (vocabulary × texts equal / of) is logged. The vocabularies run in parallel.
func TestLibllamaAgreesOnCorpora(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-*.gguf"))
	if len(paths) == 0 {
		t.Skipf("llama.cpp's test vocabularies are not in %s (make test-deps)", tokentext.LlamaVocabDir())
	}
	loadLibllamaOracle(t)
	sort.Strings(paths)
	texts := corpusTexts(t)
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	table := make([]string, len(paths))
	t.Run("vocabularies", func(t *testing.T) {
		for i, path := range paths {
			name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "ggml-vocab-"), ".gguf")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				table[i] = compareWithLibllama(t, name, path, texts)
			})
		}
	})
	t.Logf("libllama against this package on %d texts of the corpora (%d bytes):\n%s", len(texts), size, strings.Join(table, "\n"))
}

// compareWithLibllama counts every text with both tokenizers of one vocabulary and returns its
// row of the table.
func compareWithLibllama(t *testing.T, name, path string, texts []string) string {
	must := slices.Contains(llamaVocabExact, name)
	tok, err := LoadTokenizer(path)
	if err != nil {
		if must {
			t.Errorf("%s: %v", name, err)
		}
		return fmt.Sprintf("%-15s does not load here: %s", name, strings.ReplaceAll(err.Error(), path, filepath.Base(path)))
	}
	vocab, free := libllamaOracleVocab(t, path)
	defer free()
	equal, logged, ours, theirs := 0, false, time.Duration(0), time.Duration(0)
	for _, text := range texts {
		t0 := time.Now()
		want := len(llama.Tokenize(vocab, text, false, false))
		t1 := time.Now()
		got := tok.Count(text)
		ours, theirs = ours+time.Since(t1), theirs+t1.Sub(t0)
		if got == want {
			equal++
			continue
		}
		if must {
			t.Errorf("%s: %q: %d tokens, libllama %d", name, clip(text, 80), got, want)
		} else if !logged {
			logged = true
			t.Logf("%s: first difference: %q: %d tokens, libllama %d", name, clip(text, 80), got, want)
		}
	}
	return fmt.Sprintf("%-15s %4d / %d texts equal (libllama %v, ours %v)", name, equal, len(texts), theirs.Round(time.Millisecond), ours.Round(time.Millisecond))
}
