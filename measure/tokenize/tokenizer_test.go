package tokenize

import (
	"encoding/base64"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// Test fixtures shared by the tests of this file: loading a vocabulary takes ~0.5 s.
var (
	fixtureMu   sync.Mutex
	oursByName  = map[string]*BPETokenizer{}
	theirByName = map[string]*tiktoken.Tiktoken{}
)

func ourTiktoken(tb testing.TB, name string) *BPETokenizer {
	tb.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if t, ok := oursByName[name]; ok {
		return t
	}
	t, err := loadTiktoken(name)
	if err != nil {
		tb.Fatalf("loadTiktoken(%s): %v", name, err)
	}
	oursByName[name] = t
	return t
}

func referenceTiktoken(tb testing.TB, name string) *tiktoken.Tiktoken {
	tb.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if t, ok := theirByName[name]; ok {
		return t
	}
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	t, err := tiktoken.GetEncoding(name)
	if err != nil {
		tb.Fatalf("tiktoken-go GetEncoding(%s): %v", name, err)
	}
	theirByName[name] = t
	return t
}

var encodings = []string{"o200k_base", "cl100k_base"}

func TestTiktokenKnownIDs(t *testing.T) {
	tests := []struct {
		encoding, text string
		want           []int
	}{
		{"cl100k_base", "hello world", []int{15339, 1917}},
		{"o200k_base", "hello world", []int{24912, 2375}},
	}
	for _, tc := range tests {
		got := ourTiktoken(t, tc.encoding).Encode(tc.text)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s Encode(%q) = %v, want %v", tc.encoding, tc.text, got, tc.want)
		}
	}
}

func TestTiktokenFramingSpecials(t *testing.T) {
	tests := []struct {
		encoding, text string
		want           []int
	}{
		{"cl100k_base", "<|endoftext|>", []int{100257}},
		{"o200k_base", "<|endoftext|>hello world<|endofprompt|>", []int{199999, 24912, 2375, 200018}},
	}
	for _, tc := range tests {
		tok := ourTiktoken(t, tc.encoding)
		if got := tok.EncodeFraming(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%s EncodeFraming(%q) = %v, want %v", tc.encoding, tc.text, got, tc.want)
		}
		if got := tok.CountFraming(tc.text); got != len(tc.want) {
			t.Errorf("%s CountFraming(%q) = %d, want %d", tc.encoding, tc.text, got, len(tc.want))
		}
		// As ordinary text the same string is never a special token.
		if got := tok.Encode(tc.text); slices.Contains(got, tc.want[0]) {
			t.Errorf("%s Encode(%q) = %v contains the special id %d", tc.encoding, tc.text, got, tc.want[0])
		}
	}
}

// checkParity compares ours with tiktoken-go on one text.
func checkParity(t *testing.T, name, text string) {
	t.Helper()
	ours := ourTiktoken(t, name)
	want := referenceTiktoken(t, name).Encode(text, nil, nil)
	got := ours.Encode(text)
	if !slices.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: ids differ for %q at token %d:\n ours %v\ntheirs %v", name, clip(text, 200), i, clip2(got, i), clip2(want, i))
	}
	if n := ours.Count(text); n != len(want) {
		t.Fatalf("%s: Count(%q) = %d, Encode gives %d", name, clip(text, 200), n, len(want))
	}
	if utf8.ValidString(text) {
		dec, err := ours.Decode(got)
		if err != nil || string(dec) != text {
			t.Fatalf("%s: Decode(Encode(%q)) = %q, %v", name, clip(text, 200), clip(string(dec), 200), err)
		}
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func clip2(ids []int, at int) []int {
	lo, hi := max(0, at-3), min(len(ids), at+5)
	return ids[lo:hi]
}

func TestTiktokenParityEdgeCases(t *testing.T) {
	for _, name := range encodings {
		for _, text := range tokentext.EdgeCases {
			checkParity(t, name, text)
		}
		// Invalid UTF-8 is read as U+FFFD per bad byte, as tiktoken-go reads it.
		checkParity(t, name, "bad \xff\xfe bytes \xc3( \xe2\x82")
	}
}

func TestTiktokenParityRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 400
	if testing.Short() {
		rounds = 60
	}
	for _, name := range encodings {
		for i := 0; i < rounds; i++ {
			checkParity(t, name, tokentext.RandomText(r, 1+r.IntN(60)))
		}
	}
}

func TestTiktokenParityRealText(t *testing.T) {
	// Real inputs: this package's and the module's Go sources, and base64 of binary data.
	var texts []string
	_, self, _, _ := runtime.Caller(0)
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(self), "..", "..", "corpora", "*.go"))
	for _, f := range files[:min(len(files), 4)] {
		b, err := os.ReadFile(f)
		if err == nil {
			texts = append(texts, string(b[:min(len(b), 20000)]))
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 3000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	texts = append(texts, base64.StdEncoding.EncodeToString(raw), tokentext.EnglishText(r, 4000))
	if len(texts) < 3 {
		t.Fatalf("found only %d real texts", len(texts))
	}
	for _, name := range encodings {
		for _, text := range texts {
			checkParity(t, name, text)
		}
	}
}

func TestPathologicalLongPiece(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	text := strings.Repeat("a", 100000)
	if got := tok.Count(text); got != 12500 {
		t.Errorf("o200k Count(100,000 × a) = %d, want 12500", got)
	}
	// The heap merge and the scan merge agree on a piece just over the threshold.
	long := strings.Repeat("abc", 60)
	checkParity(t, "o200k_base", long)
	checkParity(t, "cl100k_base", long)
}

func FuzzTiktokenParity(f *testing.F) {
	for _, s := range tokentext.EdgeCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return // tiktoken-go is O(n²) per piece; keep the reference quick
		}
		for _, name := range encodings {
			checkParity(t, name, text)
		}
	})
}

// TestReadTiktokenRanksMatchesLoader reads both built-in rank files with readTiktokenRanks and
// with tiktoken-go-loader's own reader: the same tokens with the same ranks.
func TestReadTiktokenRanksMatchesLoader(t *testing.T) {
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		enc, _ := tiktokenEncodings(name)
		got, err := readTiktokenRanks(enc.file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(enc.file)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d tokens, loader %d", name, len(got), len(want))
		}
		for tok, rank := range want {
			if r, ok := got[tok]; !ok || int(r) != rank {
				t.Errorf("%s: token %q has rank %d (present %v), loader %d", name, tok, r, ok, rank)
			}
		}
	}
}

// TestSplitO200KFastMatchesSplitO200K holds the fast o200k splitter to the general one from
// every place of random text: ASCII letter runs, runs that end at a letter outside ASCII,
// contractions and apostrophes, digits, punctuation and spaces.
func TestSplitO200KFastMatchesSplitO200K(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	pool := []string{"abcdefghij", "xyz", "q", "ABC", "Zz", "é", "Éa", "'s", "'LL", "'", " ", "  ", "\n", "\r\n", "123", "4567", "+/", ".", "日本", "a\u0301", "\t"}
	for range 2000 {
		var b strings.Builder
		for n := r.IntN(30); n >= 0; n-- {
			b.WriteString(pool[r.IntN(len(pool))])
		}
		text := b.String()
		for p := 0; p < len(text); p++ {
			if !utf8.RuneStart(text[p]) {
				continue
			}
			if got, want := splitO200KFast(text, p), splitO200K(text, p); got != want {
				t.Fatalf("%q from %d: splitO200KFast ends the piece at %d, splitO200K at %d", text, p, got, want)
			}
		}
	}
}

// TestPackMemoKeyMatchesBytes holds packMemoKey to the key packed a byte at a time, for every
// length the memo takes.
func TestPackMemoKeyMatchesBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for range 1000 {
		b := make([]byte, 2+r.IntN(maxMemoPiece-1))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		var want [2]uint64
		for i, c := range b {
			want[i/8] |= uint64(c) << (8 * (i % 8))
		}
		want[1] |= uint64(len(b)) << 56
		if lo, hi := packMemoKey(string(b)); lo != want[0] || hi != want[1] {
			t.Fatalf("packMemoKey(%q) = %#x %#x, want %#x %#x", b, lo, hi, want[0], want[1])
		}
	}
}
