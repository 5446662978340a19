package tokenize

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// llamaVocabExact lists the test vocabularies of llama.cpp's release whose every .inp text
// must encode to its .out ids (or, for those shipped without texts, must load). The list only
// grows: the others are reported as not yet supported.
var llamaVocabExact = []string{
	"aquila", "baichuan", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "gpt-neox", "bert-bge",
	"llama-bpe", "llama-spm", "mpt", "nomic-bert-moe", "phi-3", "qwen2", "qwen35", "refact", "starcoder",
}

// llamaVocabCase is one text of a .inp file and the ids of its .out line.
type llamaVocabCase struct {
	text string
	ids  []int
}

// readLlamaVocabCases reads a .inp/.out pair the way test-tokenizer-0.cpp does: texts
// separated by "\n__ggml_vocab_test__\n", one line of space-separated ids per text.
func readLlamaVocabCases(t *testing.T, name string) ([]llamaVocabCase, bool) {
	t.Helper()
	base := filepath.Join("testdata", "llamacpp-vocab", "ggml-vocab-"+name+".gguf")
	inp, err := os.ReadFile(base + ".inp")
	if os.IsNotExist(err) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(base + ".out")
	if err != nil {
		t.Fatal(err)
	}
	const sep = "\n__ggml_vocab_test__\n"
	var texts []string
	for raw := string(inp); raw != ""; {
		text, rest, found := strings.Cut(raw, sep)
		texts = append(texts, text)
		if !found {
			break
		}
		raw = rest
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(texts) {
		t.Fatalf("%s: %d texts, %d id lines", base, len(texts), len(lines))
	}
	cases := make([]llamaVocabCase, len(texts))
	for i, line := range lines {
		cases[i].text = texts[i]
		for _, f := range strings.Fields(line) {
			id, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s.out line %d: %v", base, i+1, err)
			}
			cases[i].ids = append(cases[i].ids, id)
		}
	}
	return cases, true
}

// TestLlamaCppVocabularies loads every test vocabulary of llama.cpp's release and encodes each
// of its test texts: the vocabularies of llamaVocabExact must give llama.cpp's ids for every
// text (and Count their number); the others are listed as not yet supported.
func TestLlamaCppVocabularies(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-*.gguf"))
	if len(paths) == 0 {
		t.Skipf("llama.cpp's test vocabularies are not in %s (make test-deps)", tokentext.LlamaVocabDir())
	}
	sort.Strings(paths)
	var unsupported []string
	exact := 0
	for _, path := range paths {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "ggml-vocab-"), ".gguf")
		must := slices.Contains(llamaVocabExact, name)
		tok, err := LoadTokenizer(path)
		if err != nil {
			if must {
				t.Errorf("%s: %v", name, err)
			}
			unsupported = append(unsupported, name+" (does not load: "+err.Error()+")")
			continue
		}
		cases, ok := readLlamaVocabCases(t, name)
		if !ok {
			if !must {
				unsupported = append(unsupported, name+" (loads; no texts, not listed)")
			} else {
				exact++
			}
			continue
		}
		bad := 0
		for _, c := range cases {
			got := tok.Encode(c.text)
			n := tok.Count(c.text)
			if slices.Equal(got, c.ids) && n == len(c.ids) {
				continue
			}
			if bad++; must {
				t.Errorf("%s: %q: got %v (Count %d), llama.cpp %v", name, c.text, got, n, c.ids)
			} else if bad == 1 {
				t.Logf("%s: first difference: %q: got %v, llama.cpp %v", name, c.text, got, c.ids)
			}
		}
		switch {
		case bad == 0 && must:
			exact++
		case bad == 0:
			unsupported = append(unsupported, name+" (every text equal: add it to llamaVocabExact)")
		case !must:
			unsupported = append(unsupported, name+" ("+strconv.Itoa(bad)+" of "+strconv.Itoa(len(cases))+" texts differ)")
		}
	}
	t.Logf("%d of %d vocabularies exact; not yet supported: %s", exact, len(paths), strings.Join(unsupported, "; "))
}

// TestCutsProven: the prompt counter's cut rules hold for the pre-tokenizers they were proven
// for, with user-defined tokens that hold no cut (Qwen2's, mpt's runs of spaces), not for
// llama.cpp's cascades.
func TestCutsProven(t *testing.T) {
	for name, want := range map[string]bool{"gpt-2": true, "qwen2": true, "starcoder": false, "qwen35": false, "mpt": true} {
		path := filepath.Join(tokentext.LlamaVocabDir(), "ggml-vocab-"+name+".gguf")
		if _, err := os.Stat(path); err != nil {
			t.Skipf("llama.cpp's test vocabularies are not fetched (make test-deps): %v", err)
		}
		tok, err := LoadGGUFTokenizer(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.CutsProven(); got != want {
			t.Errorf("%s: CutsProven = %v, want %v", name, got, want)
		}
	}
}
