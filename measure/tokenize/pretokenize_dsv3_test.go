package tokenize

import (
	"slices"
	"testing"
)

func TestSplitDSV3(t *testing.T) {
	for text, want := range map[string][]string{
		"abc123def4567":     {"abc", "123", "def", "456", "7"},
		"a  b":              {"a", " ", " b"},
		"x  \n1":            {"x", "  \n", "1"}, // the segment ends before the digit: (?!\S) holds there
		"x  1":              {"x", "  ", "1"},
		"日本abc カタ":          {"日本", "abc", " ", "カタ"},
		".abc ,Über":        {".abc", " ,", "Über"},
		"\x01\x01 x":        {"\x01\x01", " x"},
		"!!\r\n\r\nok\x01y": {"!!\r\n\r\n", "ok", "\x01y"},
	} {
		var got []string
		for p := 0; p < len(text); {
			end := splitDSV3(text, p)
			got, p = append(got, text[p:end]), end
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: pieces %q, want %q", text, got, want)
		}
	}
}
