package run

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/strmemo"
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

// TestTrailingToolMessages counts the tool messages a request ends with, and only those.
func TestTrailingToolMessages(t *testing.T) {
	text := func(s string) corpora.Part { return corpora.Part{Kind: corpora.PartText, Text: s} }
	img := corpora.Part{Kind: corpora.PartImage, Image: &corpora.Image{}}
	for _, tc := range []struct {
		name                      string
		msgs                      []corpora.Message
		messages, chars, pictures int
	}{
		{"ends with a user", []corpora.Message{{Role: corpora.RoleTool, Parts: []corpora.Part{text("abc")}}, {Role: corpora.RoleUser, Parts: []corpora.Part{img}}}, 0, 0, 0},
		{"two tool messages", []corpora.Message{{Role: corpora.RoleUser}, {Role: corpora.RoleTool, Parts: []corpora.Part{text("héllo"), img}}, {Role: corpora.RoleTool, Parts: []corpora.Part{text("")}}}, 2, 5, 1},
		{"empty tool message", []corpora.Message{{Role: corpora.RoleTool}}, 1, 0, 0},
	} {
		for _, memo := range []*strmemo.Memo[int]{nil, strmemo.New[int](1, 4, 1<<20)} {
			m, c, p := trailingToolMessages(tc.msgs, memo)
			if m != tc.messages || c != tc.chars || p != tc.pictures {
				t.Errorf("%s: %d messages, %d characters, %d pictures; want %d, %d, %d", tc.name, m, c, p, tc.messages, tc.chars, tc.pictures)
			}
		}
	}
}
