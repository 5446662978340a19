package tokenize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/measure/internal/tokentext"
)

// asciiPieces splits text with asciiPieceEnd, the general splitter taking each piece it leaves.
func asciiPieces(text string) []string {
	var pieces []string
	for p := 0; p < len(text); {
		end := asciiPieceEnd(text, p)
		if end < 0 {
			end = splitO200K(text, p)
		}
		pieces = append(pieces, text[p:end])
		p = end
	}
	return pieces
}

// generalPieces splits text with splitO200K alone.
func generalPieces(text string) []string {
	var pieces []string
	for p := 0; p < len(text); {
		end := splitO200K(text, p)
		pieces = append(pieces, text[p:end])
		p = end
	}
	return pieces
}

// checkASCIICount holds asciiPieceEnd to splitO200K at every rune start of text (where it
// decides), and countOrdinary, with the ASCII fast path, to the general path's count.
func checkASCIICount(t *testing.T, tok *BPETokenizer, text string) {
	t.Helper()
	for p := 0; p < len(text); p++ {
		if !utf8.RuneStart(text[p]) {
			continue
		}
		if end := asciiPieceEnd(text, p); end >= 0 {
			if want := splitO200K(text, p); end != want {
				t.Fatalf("%q from %d: asciiPieceEnd ends the piece at %d, splitO200K at %d", text, p, end, want)
			}
		}
	}
	if got, want := tok.countOrdinary(text, new(bpeScratch)), countOrdinaryGeneral(tok, text); got != want {
		t.Fatalf("count %d with the ASCII fast path, %d without (%q)", got, want, text)
	}
}

// TestASCIIPieceEdgeCases spells out the pieces of the ASCII rules' edge cases, and holds the
// fast path's pieces and counts to the general path's.
func TestASCIIPieceEdgeCases(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	if !tok.asciiFast {
		t.Fatal("o200k_base does not take the ASCII fast path")
	}
	tests := []struct {
		text string
		want []string
	}{
		// Contractions, in either case, after the letters; none without letters before.
		{"it's don't we're you've I'm we'll he'd", []string{"it's", " don't", " we're", " you've", " I'm", " we'll", " he'd"}},
		{"IT'S DON'T We'Re x'LL", []string{"IT'S", " DON'T", " We'Re", " x'LL"}},
		{"o'clock can'tx 're 'x", []string{"o", "'clock", " can't", "x", " '", "re", " '", "x"}},
		{"we'l we'v we'", []string{"we", "'l", " we", "'v", " we", "'"}},
		// Upper-case runs, then lower-case ones; a capital after lower case begins a piece.
		{"HTTPServer helloWorld ABC aBC", []string{"HTTPServer", " hello", "World", " ABC", " a", "BC"}},
		// Digits in runs of one to three, never prefixed.
		{"1 12 123 1234 1234567 #12345", []string{"1", " ", "12", " ", "123", " ", "123", "4", " ", "123", "456", "7", " #", "123", "45"}},
		{"2026-11-30T09:00:00.000Z", []string{"202", "6", "-", "11", "-", "30", "T", "09", ":", "00", ":", "00", ".", "000", "Z"}},
		// Spaces before words and punctuation; a run of spaces gives its last to what follows.
		{"a  b   c\t\td  (x  .y", []string{"a", " ", " b", "  ", " c", "\t", "\td", " ", " (", "x", " ", " .", "y"}},
		{"x .b ..b a.b \t.", []string{"x", " .", "b", " ..", "b", " a", ".b", " ", "\t", "."}},
		// Newlines: \r\n, trailing spaces before a newline, punctuation takes the newlines after it.
		{"line\r\nnext  \n\n  x\n", []string{"line", "\r\n", "next", "  \n\n", " ", " x", "\n"}},
		{"end.\n\nNew /\n/ok", []string{"end", ".\n\n", "New", " /\n/", "ok"}},
		{"a \n b\t\n", []string{"a", " \n", " b", "\t\n"}},
		// Non-ASCII right after ASCII: the general path decides those pieces.
		{"café naïve x\u0301 Ab\u00e9 1\u0661 (é  \u00a0x", []string{"café", " naïve", " x\u0301", " Abé", " ", "1\u0661", " (", "é", "  ", "\u00a0x"}},
		{"x'\u017f a—b 日本", []string{"x", "'\u017f", " a", "—b", " 日本"}},
		// The end of the text.
		{"a", []string{"a"}},
		{" ", []string{" "}},
		{"x   ", []string{"x", "   "}},
		{"x \n  ", []string{"x", " \n", "  "}},
		{"12", []string{"12"}},
		{"it'", []string{"it", "'"}},
		{"we'r", []string{"we", "'r"}},
		{" (", []string{" ("}},
		{"a/", []string{"a", "/"}},
	}
	for _, tt := range tests {
		if got := asciiPieces(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%q: pieces %q, want %q", tt.text, got, tt.want)
		}
		if got := generalPieces(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%q: splitO200K's pieces %q, want %q", tt.text, got, tt.want)
		}
		checkASCIICount(t, tok, tt.text)
		for p, k := 0, 0; p < len(tt.text) && isASCII(tt.text); p, k = p+len(tt.want[k]), k+1 {
			if asciiPieceEnd(tt.text, p) < 0 {
				t.Errorf("%q: the ASCII path leaves the piece %q at %d to the general path", tt.text, tt.want[k], p)
			}
		}
	}
}

// isASCII says every byte of s is ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// TestASCIIPieceEndMatchesSplitter holds the ASCII path to the general one on random text
// drawn from the pieces that meet at its rules' edges, on the benchmarks' texts and on every
// string of up to three bytes over one byte of each class and a few neighbours.
func TestASCIIPieceEndMatchesSplitter(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	r := rand.New(rand.NewPCG(51, 52))
	pool := []string{"abc", "xyz", "q", "ABC", "Zz", "HTTPServer", "'s", "'T", "'re", "'Ve", "'ll", "'d", "'m", "'",
		" ", "  ", "\t", "\n", "\r\n", "\r", "\v", "1", "12", "123", "4567", "+/", ".", "#", "(", "—", "é", "a\u0301",
		"\u00a0", "\u3000", "\u0085", "日本", "١", "½", "\x00", "/", "\"", ":", "-", "ſ"}
	var texts []string
	for range 3000 {
		var b strings.Builder
		for n := r.IntN(30); n >= 0; n-- {
			b.WriteString(pool[r.IntN(len(pool))])
		}
		texts = append(texts, b.String())
	}
	inputs := tokentext.BenchInputs()
	texts = append(texts, inputs["english_2MB"][:100_000], inputs["buildlog_2MB"][:100_000], inputs["base64_2MB"][:20_000])
	// Every string of three runes over alpha, alone and between letters and a digit.
	alpha := []rune("aZ5 \t\n\r.'/sé")
	for i := range len(alpha) * len(alpha) * len(alpha) {
		three := string([]rune{alpha[i%len(alpha)], alpha[i/len(alpha)%len(alpha)], alpha[i/len(alpha)/len(alpha)]})
		texts = append(texts, three, "Ab"+three+"9")
	}
	texts = append(texts, tokentext.EdgeCases...)
	for _, text := range texts {
		checkASCIICount(t, tok, text)
	}
	if ourTiktoken(t, "cl100k_base").asciiFast {
		t.Error("cl100k_base takes the o200k ASCII fast path")
	}
}

func FuzzASCIICount(f *testing.F) {
	for _, s := range tokentext.EdgeCases {
		f.Add(s)
	}
	f.Add("2026-11-30T09:00:00.000Z build ok handler.go:42 #12345\n")
	f.Add("it's DON'T x'LL  \n\n  (y .z a—b é1\u0661")
	tok := ourTiktoken(f, "o200k_base")
	f.Fuzz(func(t *testing.T, text string) {
		checkASCIICount(t, tok, InvalidBytesAsRune(text))
	})
}
