package run

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRuneCountIsRuneCountInString(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefgh", "abcdefghi", strings.Repeat("iVBORw0KGgo=", 100),
		"héllo wörld, 日本語のテキスト and more ascii after it",
		"bad \xff\xfe bytes \xe3\x80 cut rune \xc3", "12345678\xe2\x82\xac12345678\xf0\x9f\x98\x80",
		strings.Repeat("abcdefgh", 5) + "é" + strings.Repeat("x", 40) + "\xff" + strings.Repeat("y", 33),
	} {
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzRuneCount(f *testing.F) {
	f.Add("abcdefgh\xffé日本")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("runeCount(%q) = %d, want %d", s, got, want)
		}
	})
}

// BenchmarkRuneCount counts the characters of 2 MB of base64, as the meter does per tool text.
func BenchmarkRuneCount(b *testing.B) {
	s := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 2<<20/24)
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if runeCount(s) != len(s) {
			b.Fatal("wrong count")
		}
	}
}
