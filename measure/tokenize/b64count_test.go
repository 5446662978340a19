package tokenize

import (
	"encoding/base64"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// countOrdinaryGeneral is countOrdinary without the base64 fast path: its oracle.
func countOrdinaryGeneral(t *BPETokenizer, text string) int {
	s := new(bpeScratch)
	n := 0
	for p := 0; p < len(text); {
		end := t.split(text, p)
		c, _ := t.engine.countPiece(text[p:end], s)
		n += c
		p = end
	}
	return n
}

// States of the base64 pre-tokenizer (docs above b64Trans).
const (
	b64Start    uint8 = iota // before the first piece
	b64InUpper               // a letter piece, in its upper-case letters
	b64InLower               // a letter piece, in its lower-case letters
	b64OnePunct              // one '+' or '/': the prefix of a letter piece, or a run of punctuation
	b64PunctRun              // two or more of '+' and '/'
	b64Digits1               // one, two, three digits
	b64Digits2
	b64Digits3
)

// b64Boundary marks a transition of b64Trans at which a piece ends before the byte.
const b64Boundary = 8

// b64Trans is the o200k pre-tokenizer on the base64 alphabet as a state machine, the oracle of
// b64Starts: entry state<<3|class is the next state, with b64Boundary set when the byte begins a
// new piece. In the alphabet the o200k pattern reduces to:
//
//   - [^\r\n\p{L}\p{N}]?[Lu]*[Ll]+ | [^\r\n\p{L}\p{N}]?[Lu]+[Ll]*: an optional '+' or '/'
//     directly before a letter, then upper-case letters, then lower-case ones (a contraction
//     needs an apostrophe, which is no base64);
//   - \p{N}{1,3}: one to three digits;
//   - ' ?[^\s\p{L}\p{N}]+[\r\n/]*': a run of '+' and '/' (one alone only when no letter follows).
//
// A piece's end is decided by the byte after it, so a piece is only taken when that byte is
// base64 too (or the text ends).
var b64Trans = func() (t [64]uint8) {
	start := func(class uint8) uint8 { // the state a byte of class begins a piece in
		return [...]uint8{b64Upper: b64InUpper, b64Lower: b64InLower, b64Digit: b64Digits1, b64Punct: b64OnePunct}[class]
	}
	for state := b64Start; state <= b64Digits3; state++ {
		for class := b64Upper; class <= b64Punct; class++ {
			next := start(class) | b64Boundary
			switch {
			case state == b64Start:
				next = start(class)
			case class == b64Upper && (state == b64InUpper || state == b64OnePunct):
				next = b64InUpper
			case class == b64Lower && (state == b64InUpper || state == b64InLower || state == b64OnePunct):
				next = b64InLower
			case class == b64Punct && (state == b64OnePunct || state == b64PunctRun):
				next = b64PunctRun
			case class == b64Digit && (state == b64Digits1 || state == b64Digits2):
				next = state + 1
			}
			t[state<<3|class] = next
		}
	}
	return t
}()

// b64PieceEnd walks b64Trans from p and returns the end of the first piece; ok is false when a
// byte that decides it (the piece's, or the one after it) is no base64.
func b64PieceEnd(text string, p int) (end int, ok bool) {
	state := b64Start
	for i := p; i < len(text); i++ {
		class := b64Class[text[i]]
		if class == b64Other {
			return i, false
		}
		tr := b64Trans[state<<3|class]
		if tr&b64Boundary != 0 {
			return i, true
		}
		state = tr & 7
	}
	return len(text), p < len(text)
}

// checkB64Pieces holds the state machine to the o200k splitter at every piece start of text,
// and the count with the fast path to the count without it.
func checkB64Pieces(t *testing.T, tok *BPETokenizer, text string) {
	t.Helper()
	for p := 0; p < len(text); {
		want := tok.split(text, p)
		if end, ok := b64PieceEnd(text, p); ok && end != want {
			t.Fatalf("b64Trans ends the piece of %q at %d at %d, the splitter at %d", text, p, end, want)
		}
		p = want
	}
	if got, want := tok.countOrdinary(text, new(bpeScratch)), countOrdinaryGeneral(tok, text); got != want {
		t.Fatalf("count %d with the base64 fast path, %d without (%q)", got, want, text)
	}
	// countB64Pieces from piece starts, also those where countOrdinary would not enter it (fewer
	// than eight base64 bytes ahead): it stops at a piece start, with the count of the pieces
	// before (every start of a short text, every 499th of a long one).
	s := new(bpeScratch)
	for p, k := 0, 0; p < len(text); p, k = tok.split(text, p), k+1 {
		if len(text) > 4000 && k%499 != 0 {
			continue
		}
		got, stop := tok.engine.countB64Pieces(text, p, s)
		want, q := 0, p
		for q < stop {
			end := tok.split(text, q)
			c, _ := tok.engine.countPiece(text[q:end], s)
			want, q = want+c, end
		}
		if q != stop || got != want {
			t.Fatalf("countB64Pieces(%q, %d) = %d to %d; the pieces to %d count %d", text, p, got, stop, q, want)
		}
	}
}

func TestB64PieceEndMatchesSplitter(t *testing.T) {
	tok := ourTiktoken(t, "o200k_base")
	if !tok.b64Fast {
		t.Fatal("o200k_base does not take the base64 fast path")
	}
	r := rand.New(rand.NewPCG(5, 6))
	raw := make([]byte, 200_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	enc := base64.StdEncoding.EncodeToString(raw)
	texts := []string{enc, base64.URLEncoding.EncodeToString(raw[:3000]), `{"data":"` + enc[:5000] + `"}`,
		"ab's ABc'd 12345 +/+a //A9z/ é\u0301a" + enc[:300] + "日本" + enc[300:600] + "\n" + enc[600:900] + "'s",
		tokentext.EnglishText(r, 20_000)}
	// Every string of up to three characters over the alphabet classes and their neighbours.
	const alpha = "aZ5+/'é \n="
	for _, a := range alpha {
		for _, b := range alpha {
			for _, c := range alpha {
				texts = append(texts, string(a)+string(b)+string(c), "Ab"+string(a)+string(b)+string(c)+"9")
			}
		}
	}
	for _, text := range texts {
		checkB64Pieces(t, tok, text)
	}
	for _, name := range []string{"cl100k_base"} {
		if ourTiktoken(t, name).b64Fast {
			t.Errorf("%s takes the o200k base64 fast path", name)
		}
	}
}

func FuzzB64Count(f *testing.F) {
	f.Add("iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB+/9z" + strings.Repeat("Ab1+", 5))
	f.Add("a'sB日+/+Q==\n12345x")
	tok := ourTiktoken(f, "o200k_base")
	f.Fuzz(func(t *testing.T, text string) {
		checkB64Pieces(t, tok, text)
	})
}

// TestB64MergeEqualsMergeScan compares countB64Merge and countB64Triples (where it takes the
// piece) with the general merge on random pieces of every length countB64Merge takes, on pieces
// cut from random base64 by the pre-tokenizer, and on pieces of repeated characters and pairs
// (equal ranks: the leftmost merges first).
func TestB64MergeEqualsMergeScan(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for _, tok := range chunkTokenizers(t) {
		if !tok.b64Fast {
			continue
		}
		e, s := tok.engine, new(bpeScratch)
		e.b64Once.Do(e.fillB64Counts)
		r := rand.New(rand.NewPCG(11, 12))
		var pieces []string
		for n := 5; n <= maxB64Merge; n++ {
			for range 40_000 {
				b := make([]byte, n)
				for i := range b {
					b[i] = alphabet[r.IntN(64)]
				}
				pieces = append(pieces, string(b))
			}
			for _, unit := range []string{"a", "A", "ab", "Ab", "aB", "+/", "9", "abc", "zzq"} {
				pieces = append(pieces, strings.Repeat(unit, n)[:n])
			}
		}
		// Every base64 token the merge can meet whole, and with a character either side.
		for tok := range e.vocab.all() {
			if len(tok) >= 4 && len(tok) <= maxB64Merge && isB64(tok) {
				c := string(alphabet[r.IntN(64)])
				for _, piece := range []string{tok, c + tok, tok + c, c + tok + c} {
					if len(piece) >= 5 && len(piece) <= maxB64Merge {
						pieces = append(pieces, piece)
					}
				}
			}
		}
		raw := make([]byte, 300_000)
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		enc := base64.StdEncoding.EncodeToString(raw)
		for p := 0; p < len(enc); {
			end := tok.split(enc, p)
			if end-p >= 5 && end-p <= maxB64Merge {
				pieces = append(pieces, enc[p:end])
			}
			p = end
		}
		segmented := 0
		for _, piece := range pieces {
			want, _ := e.encodePiece(s.out[:0], piece, s)
			if got := e.countB64Merge(piece); got != len(want) {
				t.Fatalf("%s: countB64Merge(%q) = %d; merging gives %d tokens", tok.Name(), piece, got, len(want))
			}
			if got, ok := e.countB64Triples(piece); ok {
				segmented++
				if got != len(want) {
					t.Fatalf("%s: countB64Triples(%q) = %d; merging gives %d tokens", tok.Name(), piece, got, len(want))
				}
			}
			s.out = want
		}
		if segmented < len(pieces)/2 {
			t.Errorf("%s: countB64Triples took %d of %d pieces", tok.Name(), segmented, len(pieces))
		}
	}
}

// TestB64ClassifyMatchesClass holds the class masks of classifyWords and of the vector
// classification (where the CPU has it) to b64Class: every byte at every place of a block among
// random neighbours, in whole blocks and at the end of the text.
func TestB64ClassifyMatchesClass(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 64)
	check := func(how, text string, masks [4]uint64, upTo int) {
		t.Helper()
		for k := 0; k < 64; k++ {
			class := b64Other
			if k < len(text) && k < upTo {
				class = b64Class[text[k]]
			}
			for m, mask := range masks {
				if got := mask>>k&1 == 1; got != (class == uint8(m)+b64Upper) {
					t.Fatalf("%s of %q, byte %d: class mask %d is %v", how, text, k, m, got)
				}
			}
		}
	}
	vector := 0
	for c := 0; c < 256; c++ {
		for at := 0; at < 64; at++ {
			for i := range buf {
				buf[i] = byte(r.Uint32())
			}
			for i := range at { // base64 before at, so that classifyWords reads the word of at
				buf[i] = "Az9+/"[r.IntN(5)]
			}
			buf[at] = byte(c)
			for _, text := range []string{string(buf), string(buf[:at+1])} {
				first := 0 // classifyWords reads up to the word of the first byte outside the alphabet
				for first < len(text) && b64Class[text[first]] != b64Other {
					first++
				}
				var b b64Block
				b.classifyWords(text, 0)
				check("classifyWords", text, [4]uint64{b.upper, b.lower, b.digit, b.punct}, first|7+1)
				if b64ClassVector && len(text) == 64 {
					var m [4]uint64
					b64ClassAVX2(unsafe.Pointer(unsafe.StringData(text)), &m)
					check("b64ClassAVX2", text, m, 64)
					vector++
				}
			}
		}
	}
	t.Logf("%d blocks classified with vectors", vector)
}

// b64StartsByBlocks returns the piece starts that b64Starts finds from p, up to the first byte
// outside the alphabet or the end of the text.
func b64StartsByBlocks(text string, p int) []int {
	var starts []int
	var prev b64Block
	for base := p; base < len(text); base += 64 {
		var cur b64Block
		cur.classify(text, base)
		valid := cur.upper | cur.lower | cur.digit | cur.punct
		cur.starts = b64Starts(&cur, &prev) & (uint64(1)<<bits.TrailingZeros64(^valid) - 1)
		for m := cur.starts; m != 0; m &= m - 1 {
			starts = append(starts, base+bits.TrailingZeros64(m))
		}
		if ^valid != 0 {
			break
		}
		prev = cur
	}
	return starts
}

// TestB64StartsMatchTrans holds the piece starts of b64Starts to those of b64Trans on random
// text over the classes (long digit and punctuation runs, pieces across the 64-byte blocks,
// bytes outside the alphabet) from every place.
func TestB64StartsMatchTrans(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const pool = "AZbz0123456789+/+/=é-"
	for range 3000 {
		b := make([]byte, 0, 300)
		for n := 1 + r.IntN(300); len(b) < n; {
			c := pool[r.IntN(16)]
			if r.IntN(30) == 0 { // outside the alphabet
				c = pool[16+r.IntN(len(pool)-16)]
			}
			b = append(b, c)
			if r.IntN(8) == 0 { // a run of digits or of punctuation
				b = append(b, strings.Repeat(string("7/"[r.IntN(2)]), r.IntN(12))...)
			}
		}
		text := string(b)
		for p := 0; p < len(text); p += 1 + r.IntN(40) {
			var want []int
			state := b64Start
			for i := p; i < len(text) && b64Class[text[i]] != b64Other; i++ {
				tr := b64Trans[state<<3|b64Class[text[i]]]
				if i == p || tr&b64Boundary != 0 {
					want = append(want, i)
				}
				state = tr & 7
			}
			if got := b64StartsByBlocks(text, p); !slices.Equal(got, want) {
				t.Fatalf("%q from %d: b64Starts begins pieces at %v, b64Trans at %v", text, p, got, want)
			}
		}
	}
}

// TestB64TokenSetMatchesIndex holds the base64 token set to the index: every token of four to
// maxB64Token base64 characters is in it with its id, random spans of those lengths are in it
// exactly when the index has them, and every base64 token of four or more may begin with its
// first four characters (o200k_base and cl100k_base).
func TestB64TokenSetMatchesIndex(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		e := ourTiktoken(t, name).engine
		set := newB64TokenSet(e.vocab.all())
		tokens := 0
		for tok, want := range e.vocab.all() {
			if len(tok) < minB64Token || !isB64(tok) {
				continue
			}
			if !set.mayBegin(uint32(b64Code[tok[0]]), uint32(b64Code[tok[1]]), uint32(b64Code[tok[2]]), uint32(b64Code[tok[3]])) {
				t.Fatalf("%s: token %q may not begin with its first four characters", name, tok)
			}
			if len(tok) > maxB64Token {
				continue
			}
			tokens++
			if id, ok := set.id(packB64(tok), len(tok)); !ok || id != want {
				t.Fatalf("%s: token %q (id %d) gives %d, %v", name, tok, want, id, ok)
			}
		}
		r := rand.New(rand.NewPCG(21, 22))
		for range 300_000 {
			b := make([]byte, minB64Token+r.IntN(maxB64Token-minB64Token+1))
			for i := range b {
				b[i] = alphabet[r.IntN(64)]
			}
			wantID, want := e.index.lookup(string(b))
			if id, ok := set.id(packB64(string(b)), len(b)); ok != want || ok && id != wantID {
				t.Fatalf("%s: span %q gives %d, %v; the index %d, %v", name, b, id, ok, wantID, want)
			}
		}
		t.Logf("%s: %d base64 tokens of %d to %d characters", name, tokens, minB64Token, maxB64Token)
	}
}

// chunkTokenizers are the tokenizers the chunk cut rules are checked against: both tiktoken
// encodings, and Qwen3 (Qwen2 pre-tokenizer, NFC) when its tokenizer.json was fetched.
func chunkTokenizers(t *testing.T) []*BPETokenizer {
	toks := []*BPETokenizer{ourTiktoken(t, "o200k_base"), ourTiktoken(t, "cl100k_base")}
	if _, err := os.Stat(tokentext.Qwen3TokenizerPath()); err == nil {
		toks = append(toks, qwen3(t))
	}
	return toks
}

func TestB64ShortCountsEqualMerging(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for _, tok := range chunkTokenizers(t) {
		e, s := tok.engine, new(bpeScratch)
		checked := 0
		for i := 0; i < len(alphabet); i++ {
			for j := 0; j < len(alphabet); j++ {
				for k := -1; k < len(alphabet); k++ {
					piece := string([]byte{alphabet[i], alphabet[j]})
					if k >= 0 {
						piece += string(alphabet[k])
					}
					got, ok := e.countB64Short(piece)
					want, _ := e.encodePiece(nil, piece, s)
					if !ok || got != len(want) {
						t.Fatalf("%s: countB64Short(%q) = %d, %v; merging gives %d tokens", tok.Name(), piece, got, ok, len(want))
					}
					checked++
				}
			}
		}
		if checked != 64*64*65 {
			t.Fatalf("checked %d pieces", checked)
		}
		for _, piece := range []string{"a", "ab=", "a-b", "日", "+\n", "abcd"} {
			if _, ok := e.countB64Short(piece); ok && len(piece) != 2 && len(piece) != 3 || strings.ContainsAny(piece, "=-\n日") && ok {
				t.Errorf("%s: countB64Short(%q) answered for a piece outside the table", tok.Name(), piece)
			}
		}
	}
}

// TestB64FourEqualsMerging compares countB64Four with the merge on every piece of four base64
// characters (64⁴), for each tokenizer it answers for, and checks it declines any other piece.
func TestB64FourEqualsMerging(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for _, tok := range chunkTokenizers(t) {
		e, s := tok.engine, new(bpeScratch)
		if _, ok := e.countB64Four("abcd"); !ok {
			if e.mode == rankByConcatenation {
				t.Fatalf("%s: countB64Four declines a tiktoken vocabulary", tok.Name())
			}
			continue
		}
		buf := make([]byte, 4)
		checked := 0
		for code := 0; code < 1<<24; code++ {
			for i := range buf {
				buf[i] = alphabet[code>>(18-6*i)&63]
			}
			piece := string(buf)
			got, ok := e.countB64Four(piece)
			want, _ := e.encodePiece(s.out[:0], piece, s)
			if !ok || got != len(want) {
				t.Fatalf("%s: countB64Four(%q) = %d, %v; merging gives %d tokens", tok.Name(), piece, got, ok, len(want))
			}
			if got, ok := e.countB64Triples(piece); ok && got != len(want) {
				t.Fatalf("%s: countB64Triples(%q) = %d; merging gives %d tokens", tok.Name(), piece, got, len(want))
			}
			s.out = want
			checked++
		}
		if checked != 1<<24 {
			t.Fatalf("checked %d pieces", checked)
		}
		for _, piece := range []string{"abc", "abcde", "ab=c", "a-bc", "日a", "ab\nc"} {
			if _, ok := e.countB64Four(piece); ok {
				t.Errorf("%s: countB64Four(%q) answered for a piece outside its domain", tok.Name(), piece)
			}
		}
	}
}

// BenchmarkFillB64Counts builds the base64 tables of o200k_base (the first base64 count of a
// run pays it once).
func BenchmarkFillB64Counts(b *testing.B) {
	e := ourTiktoken(b, "o200k_base").engine
	b.ReportAllocs()
	for b.Loop() {
		e.fillB64Counts()
	}
}

// BenchmarkCountB64Pieces counts 2,000,000 characters of random base64 with the fast path alone
// (countB64Pieces over the whole text, tables filled before the timer).
func BenchmarkCountB64Pieces(b *testing.B) {
	tok := ourTiktoken(b, "o200k_base")
	r := rand.New(rand.NewPCG(7, 8))
	raw := make([]byte, 1_500_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	text := base64.StdEncoding.EncodeToString(raw)
	s := new(bpeScratch)
	want, _ := tok.engine.countB64Pieces(text, 0, s)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if n, stop := tok.engine.countB64Pieces(text, 0, s); n != want || stop != len(text) {
			b.Fatalf("count %d to %d, want %d to %d", n, stop, want, len(text))
		}
	}
	b.ReportMetric(float64(want), "tokens")
}

// TestB64FiveAndSixEqualMergeScan compares countFive and countSix with the general merge on
// pieces of five and six base64 characters: random ones, every one that puts a token of two or
// three characters at each place among random neighbours (ties and triples), and every one of
// a repeated pair (equal ranks), and checks that they take nearly all of them.
func TestB64FiveAndSixEqualMergeScan(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	e, s := ourTiktoken(t, "o200k_base").engine, new(bpeScratch)
	e.b64Once.Do(e.fillB64Counts)
	r := rand.New(rand.NewPCG(15, 16))
	randomChars := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(64)]
		}
		return string(b)
	}
	random := 2_000_000
	if testing.Short() {
		random = 200_000
	}
	var tokens []string // the two- and three-character base64 tokens, in a fixed order
	for tok := range e.vocab.all() {
		if len(tok) >= 2 && len(tok) <= 3 && isB64(tok) {
			tokens = append(tokens, tok)
		}
	}
	slices.Sort(tokens)
	for n := 5; n <= 6; n++ {
		var pieces []string
		for range random {
			pieces = append(pieces, randomChars(n))
		}
		for _, tok := range tokens {
			for at := 0; at+len(tok) <= n; at++ {
				for range 4 {
					pieces = append(pieces, randomChars(at)+tok+randomChars(n-at-len(tok)))
				}
			}
		}
		for _, a := range alphabet {
			for _, b := range alphabet {
				unit := strings.Repeat(string(a)+string(b), 4)
				pieces = append(pieces, unit[:n], unit[1:n+1])
			}
		}
		taken := 0
		for _, piece := range pieces {
			c := func(i int) uint32 { return uint32(b64Code[piece[i]]) }
			var got int
			var ok bool
			if n == 5 {
				got, ok = e.b64Counts.countFive(c(0), c(1), c(2), c(3), c(4))
			} else {
				got, ok = e.b64Counts.countSix(c(0), c(1), c(2), c(3), c(4), c(5))
			}
			if !ok {
				continue
			}
			taken++
			want, _ := e.encodePiece(s.out[:0], piece, s)
			if got != len(want) {
				t.Fatalf("piece %q counts %d; merging gives %d tokens", piece, got, len(want))
			}
			s.out = want
		}
		if taken < len(pieces)*9/10 {
			t.Errorf("%d characters: took %d of %d pieces", n, taken, len(pieces))
		}
		t.Logf("%d characters: took %d of %d pieces", n, taken, len(pieces))
	}
}
