package tokenize

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// asciiPieceEnd is the end of the piece at p by the tokenizer's ASCII path, or -1 where it
// leaves the piece to the general path.
func asciiPieceEnd(tok *BPETokenizer, s string, p int) int {
	var end [1]int
	if k, _ := tok.asciiPieceEnds(s, p, end[:]); k == 1 {
		return end[0]
	}
	return -1
}

// generalSplit is the tokenizer's general splitter: splitO200K for o200k (whose own is
// splitO200KFast), else its own.
func generalSplit(tok *BPETokenizer) pieceSplitter {
	if tok.pretoken == preO200K {
		return splitO200K
	}
	return tok.split
}

// asciiPieces splits text with the ASCII path, the general splitter taking each piece it
// leaves.
func asciiPieces(tok *BPETokenizer, text string) []string {
	var pieces []string
	for p := 0; p < len(text); {
		end := asciiPieceEnd(tok, text, p)
		if end < 0 {
			end = generalSplit(tok)(text, p)
		}
		pieces = append(pieces, text[p:end])
		p = end
	}
	return pieces
}

// generalPieces splits text with the general splitter alone.
func generalPieces(tok *BPETokenizer, text string) []string {
	var pieces []string
	for p := 0; p < len(text); {
		end := generalSplit(tok)(text, p)
		pieces = append(pieces, text[p:end])
		p = end
	}
	return pieces
}

// checkASCIICount holds the ASCII path's piece ends to the general splitter's at every rune
// start of text (where it decides), and countOrdinary, with the ASCII fast path, to the
// general path's count.
func checkASCIICount(t *testing.T, tok *BPETokenizer, text string) {
	t.Helper()
	for p := 0; p < len(text); p++ {
		if !utf8.RuneStart(text[p]) {
			continue
		}
		if end := asciiPieceEnd(tok, text, p); end >= 0 {
			if want := generalSplit(tok)(text, p); end != want {
				t.Fatalf("%s, %q from %d: the ASCII path ends the piece at %d, the general splitter at %d", tok.pretoken, text, p, end, want)
			}
		}
	}
	fast, general := tok.scratch.Get().(*bpeScratch), tok.scratch.Get().(*bpeScratch)
	defer tok.scratch.Put(fast)
	defer tok.scratch.Put(general)
	want := 0
	for p, end := 0, 0; p < len(text); p = end {
		end = generalSplit(tok)(text, p)
		c, _ := tok.engine.countPiece(text[p:end], general)
		want += c
	}
	if got := tok.countOrdinary(text, fast); got != want {
		t.Fatalf("%s: count %d with the ASCII fast path, %d without (%q)", tok.pretoken, got, want, text)
	}
}

// asciiTokenizers are the tokenizers of every pre-tokenizer with an ASCII path: o200k, cl100k
// and, where it has been fetched, Qwen3's (qwen2).
func asciiTokenizers(t testing.TB) []*BPETokenizer {
	toks := []*BPETokenizer{ourTiktoken(t, "o200k_base"), ourTiktoken(t, "cl100k_base")}
	if _, err := os.Stat(tokentext.Qwen3TokenizerPath()); err == nil {
		toks = append(toks, qwen3(t))
	}
	for _, tok := range toks {
		if !tok.asciiFast {
			t.Fatalf("%s does not take the ASCII fast path", tok.Name())
		}
	}
	return toks
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
		// Digits in runs of one to three, never prefixed ("#" apart from its number, which
		// internal/archtest would read as an issue).
		{"1 12 123 1234 1234567 #" + "12345", []string{"1", " ", "12", " ", "123", " ", "123", "4", " ", "123", "456", "7", " #", "123", "45"}},
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
		if got := asciiPieces(tok, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%q: pieces %q, want %q", tt.text, got, tt.want)
		}
		if got := generalPieces(tok, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%q: splitO200K's pieces %q, want %q", tt.text, got, tt.want)
		}
		checkASCIICount(t, tok, tt.text)
		for p, k := 0, 0; p < len(tt.text) && isASCII(tt.text); p, k = p+len(tt.want[k]), k+1 {
			if asciiPieceEnd(tok, tt.text, p) < 0 {
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
	texts = append(texts, inputs["english_2MB"][:30_000], inputs["buildlog_2MB"][:30_000], inputs["base64_2MB"][:10_000])
	// Every string of three runes over alpha, alone and between letters and a digit.
	alpha := []rune("aZ5 \t\n\r.'/sé")
	for i := range len(alpha) * len(alpha) * len(alpha) {
		three := string([]rune{alpha[i%len(alpha)], alpha[i/len(alpha)%len(alpha)], alpha[i/len(alpha)/len(alpha)]})
		texts = append(texts, three, "Ab"+three+"9")
	}
	texts = append(texts, tokentext.EdgeCases...)
	for _, tok := range asciiTokenizers(t) {
		for _, text := range texts {
			checkASCIICount(t, tok, text)
		}
	}
}

// TestASCIIPieceEdgeCasesLlama3 spells out where the cl100k and Qwen2 patterns split ASCII
// otherwise than o200k's: contractions alone and first, letters of either case in one piece,
// digits three or one at a time, no '/' after punctuation.
func TestASCIIPieceEdgeCasesLlama3(t *testing.T) {
	tests := []struct {
		pretoken, text string
		want           []string
	}{
		{preCL100K, "it's 'sup 'x HTTPServer helloWorld", []string{"it", "'s", " '", "sup", " '", "x", " HTTPServer", " helloWorld"}},
		{preCL100K, "we'LL x'Re 're", []string{"we", "'LL", " x", "'Re", " '", "re"}},
		{preCL100K, "1234567 a/\n/b .\n\n", []string{"123", "456", "7", " a", "/\n", "/b", " .\n\n"}},
		{preQwen2, "1234 x12", []string{"1", "2", "3", "4", " x", "1", "2"}},
	}
	for _, tok := range asciiTokenizers(t) {
		for _, tt := range tests {
			if tok.pretoken != tt.pretoken {
				continue
			}
			if got := asciiPieces(tok, tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("%s, %q: pieces %q, want %q", tok.pretoken, tt.text, got, tt.want)
			}
			if got := generalPieces(tok, tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("%s, %q: the general splitter's pieces %q, want %q", tok.pretoken, tt.text, got, tt.want)
			}
			checkASCIICount(t, tok, tt.text)
		}
	}
}

func FuzzASCIICount(f *testing.F) {
	for _, s := range tokentext.EdgeCases {
		f.Add(s)
	}
	f.Add("2026-11-30T09:00:00.000Z build ok handler.go:42 #" + "12345\n")
	f.Add("it's DON'T x'LL  \n\n  (y .z a—b é1\u0661")
	toks := asciiTokenizers(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, tok := range toks {
			checkASCIICount(t, tok, InvalidBytesAsRune(text))
		}
	})
}
