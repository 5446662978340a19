package tokenize

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// charBPEJSON is a tiny byte-fallback tokenizer.json: the 256 byte tokens (ids 0-255), the
// pieces ▁ a b c ▁a ab bc ▁ab abc (256-264), four merges, a special and a non-special added token.
func charBPEJSON(normalizer string) string {
	var vocab []string
	for b := range 256 {
		vocab = append(vocab, fmt.Sprintf(`"<0x%02X>": %d`, b, b))
	}
	for i, p := range []string{"▁", "a", "b", "c", "▁a", "ab", "bc", "▁ab", "abc"} {
		vocab = append(vocab, fmt.Sprintf(`"%s": %d`, p, 256+i))
	}
	return `{"added_tokens": [{"id": 300, "content": "<s>", "special": true}, {"id": 301, "content": "\n\n", "special": false}],
	"normalizer": ` + normalizer + `, "pre_tokenizer": null,
	"model": {"type": "BPE", "byte_fallback": true, "vocab": {` + strings.Join(vocab, ", ") + `},
	"merges": ["a b", "▁ a", "b c", "▁a b"]}}`
}

const llama2Normalizer = `{"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}`

func TestCharBPEMerges(t *testing.T) {
	tok, err := loadCharBPE(t, llama2Normalizer)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text         string
		ids, framing []int
	}{
		{"abc", []int{256, 261, 259}, nil},                           // a+b (rank 0) before ▁+a (rank 1); no merge makes abc
		{"a é", []int{260, 256, 0xC3, 0xA9}, nil},                    // é is no token: its bytes
		{"a\n\nb", []int{260, 301, 256, 258}, nil},                   // a non-special added token is found in content; each side gets the ▁
		{"<s>a", []int{256, 0x3C, 0x73, 0x3E, 257}, []int{300, 260}}, // a special one only in framing
	} {
		if got := tok.Encode(tc.text); !slices.Equal(got, tc.ids) || tok.Count(tc.text) != len(tc.ids) {
			t.Errorf("Encode(%q) = %v (Count %d), want %v", tc.text, got, tok.Count(tc.text), tc.ids)
		}
		want := tc.ids
		if tc.framing != nil {
			want = tc.framing
		}
		if got := tok.EncodeFraming(tc.text); !slices.Equal(got, want) || tok.CountFraming(tc.text) != len(want) {
			t.Errorf("EncodeFraming(%q) = %v, want %v", tc.text, got, want)
		}
	}
	if got, err := tok.Decode([]int{260, 256, 0xC3, 0xA9, 301}); err != nil || string(got) != " a é\n\n" {
		t.Errorf("Decode = %q, %v", got, err)
	}
	if id, ok := tok.SpecialID("<s>"); !ok || id != 300 {
		t.Errorf("SpecialID(<s>) = %d, %v", id, ok)
	}
	// Without the Prepend (Gemma 3) nothing is put in front.
	gemma, err := loadCharBPE(t, `{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := gemma.Encode("ab c"); !slices.Equal(got, []int{261, 256, 259}) {
		t.Errorf("without Prepend: Encode(ab c) = %v, want [261 256 259]", got)
	}
}

func TestCharBPEErrors(t *testing.T) {
	for _, norm := range []string{`null`, `{"type": "NFC"}`, `{"type": "Sequence", "normalizers": [{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}, {"type": "Prepend", "prepend": "▁"}]}`} {
		if _, err := loadCharBPE(t, norm); err == nil || !strings.Contains(err.Error(), "tok.json at /normalizer") {
			t.Errorf("normaliser %s: error %v, want one at /normalizer", norm, err)
		}
	}
}

func loadCharBPE(t *testing.T, normalizer string) (Tokenizer, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tok.json")
	if err := os.WriteFile(path, []byte(charBPEJSON(normalizer)), 0o644); err != nil {
		t.Fatal(err)
	}
	return LoadTokenizer(path)
}
