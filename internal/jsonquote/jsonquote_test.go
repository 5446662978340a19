package jsonquote

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name, in, invalid, want string
	}{
		{"plain", "hello", InvalidAsRune, `"hello"`},
		{"empty", "", InvalidAsRune, `""`},
		{"quote and backslash", `say "hi" \ bye`, InvalidAsRune, `"say \"hi\" \\ bye"`},
		{"short escapes", "a\nb\rc\td\be\ff", InvalidAsRune, `"a\nb\rc\td\be\ff"`},
		{"other controls lowercase", "\x00\x1f\x0b", InvalidAsRune, `"\u0000\u001f\u000b"`},
		{"slash, DEL, HTML kept", "</script>&\x7f", InvalidAsRune, "\"</script>&\x7f\""},
		{"non-ASCII kept", "é 😀 中", InvalidAsRune, `"é 😀 中"`},
		{"U+FFFD itself kept", "a\uFFFDb", InvalidAsEscape, "\"a\uFFFDb\""},
		{"invalid byte as rune", "a\xffb", InvalidAsRune, "\"a\uFFFDb\""},
		{"invalid bytes as escape", "\xed\xa0\x80", InvalidAsEscape, `"\ufffd\ufffd\ufffd"`},
		{"truncated rune at end", "ok\xe2\x82", InvalidAsEscape, `"ok\ufffd\ufffd"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sb strings.Builder
			Write(&sb, tt.in, tt.invalid)
			if sb.String() != tt.want {
				t.Errorf("strings.Builder: got %s, want %s", sb.String(), tt.want)
			}
			var bb bytes.Buffer
			Write(&bb, tt.in, tt.invalid)
			if bb.String() != tt.want {
				t.Errorf("bytes.Buffer: got %s, want %s", bb.String(), tt.want)
			}
		})
	}
}

// FuzzWrite checks that the output is always a JSON string, and decodes to the input when the
// input is valid UTF-8.
func FuzzWrite(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\n\x1f", "é😀", "\xff\xfe", "\xed\xa0\x80x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var sb strings.Builder
		Write(&sb, s, InvalidAsRune)
		var back string
		if err := json.Unmarshal([]byte(sb.String()), &back); err != nil {
			t.Fatalf("output %q is not a JSON string: %v", sb.String(), err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("decoded %q, want %q", back, s)
		}
		sb.Reset()
		Write(&sb, s, InvalidAsEscape)
		if err := json.Unmarshal([]byte(sb.String()), &back); err != nil {
			t.Fatalf("output %q is not a JSON string: %v", sb.String(), err)
		}
	})
}
