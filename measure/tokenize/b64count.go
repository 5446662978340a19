package tokenize

import (
	"math"
	"math/bits"
	"unsafe"
)

// The base64 fast path of counting under o200k: random base64 splits into short pieces (43% of
// one byte, 41% of two or three, 8% of four), and splitting them with the general pre-tokenizer
// and handing each to countPiece cost as much as the counting. countB64Pieces splits and counts
// them with a pre-tokenizer for the base64 alphabet alone (b64Starts), taking a piece only when
// every byte that decides where it ends is base64 (the piece's own and the one after it), and
// leaves every other piece to the general path. The pieces it takes are those splitO200KFast
// gives (TestB64PieceEndMatchesSplitter, FuzzB64Count), and their counts those of countPiece.

// Byte classes of the base64 pre-tokenizer.
const (
	b64Other uint8 = iota // outside the alphabet: the general path decides
	b64Upper              // A–Z: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] in ASCII
	b64Lower              // a–z: [\p{Ll}\p{Lm}\p{Lo}\p{M}] in ASCII
	b64Digit              // 0–9: \p{N}
	b64Punct              // + and /: [^\s\p{L}\p{N}], and '/' also [\r\n/]
)

// b64Class is the class of each byte, from its base64 code (A–Z 0–25, a–z 26–51, 0–9 52–61).
var b64Class = func() (t [256]uint8) {
	for c, code := range b64Code {
		switch {
		case code < 26:
			t[c] = b64Upper
		case code < 52:
			t[c] = b64Lower
		case code < 62:
			t[c] = b64Digit
		case code < 64:
			t[c] = b64Punct
		}
	}
	return t
}()

// b64FastPath says whether countB64Pieces applies to the tokenizer: the o200k pre-tokenizer
// without normalisation, tiktoken's merge rule and a byte token for every base64 character.
func (t *BPETokenizer) b64FastPath() bool {
	return t.pretoken == preO200K && t.normalize == nil && t.engine.mode == rankByConcatenation &&
		t.engine.wholePieceFirst && t.engine.b64BytesOK()
}

// countB64Pieces counts the pieces from p on for as long as they are base64 and the byte after
// each is too, and returns the count and where it stopped (the start of the piece it left). It
// reads the text 64 bytes at a time: the bytes' classes as bit masks (classify), from them
// the bit mask of the bytes that begin a piece (b64Starts), and from that the ends of the pieces
// of one, two, three and more characters, each a mask of its own; pieces of one character add
// their number, those of two and three their counts from b64Counts by their codes, those of
// four, five and six go to countFour, countFive and countSix (each length a mask and a loop of
// its own, so that no branch picks the length), longer ones to countLongB64. No step waits on
// the piece before it, and the short pieces cost no branch.
func (e *bpeEngine) countB64Pieces(text string, p int, s *bpeScratch) (n, stop int) {
	e.b64Once.Do(e.fillB64Counts)
	t := e.b64Counts
	two, three := &t.two, &t.three // the masks below spare the index checks
	var prev b64Block              // the block before (zero before p)
	last := p                      // the start of the last piece begun
	for base := p; base < len(text); base += 64 {
		var cur b64Block
		cur.classify(text, base)
		valid := cur.upper | cur.lower | cur.digit | cur.punct
		// The bytes from the first outside the alphabet (or the end of the text) on are left out.
		in := uint64(1)<<bits.TrailingZeros64(^valid) - 1
		cur.starts = b64Starts(&cur, &prev) & in
		prevValid := valid<<1 | (prev.upper|prev.lower|prev.digit|prev.punct)>>63
		// A piece ends at a start whose byte before is base64; its length is the distance to
		// the start before.
		ends := cur.starts & prevValid
		s1 := cur.starts<<1 | prev.starts>>63
		s2 := cur.starts<<2 | prev.starts>>62
		s3 := cur.starts<<3 | prev.starts>>61
		n += bits.OnesCount64(ends & s1)
		for m := ends &^ s1 & s2; m != 0; m &= m - 1 {
			i := base + bits.TrailingZeros64(m)
			n += int(two[(uint32(b64Code[text[i-2]])<<6|uint32(b64Code[text[i-1]]))&(1<<12-1)])
		}
		for m := ends &^ s1 &^ s2 & s3; m != 0; m &= m - 1 {
			i := base + bits.TrailingZeros64(m)
			n += int(three[(uint32(b64Code[text[i-3]])<<12|uint32(b64Code[text[i-2]])<<6|uint32(b64Code[text[i-1]]))&(1<<18-1)])
		}
		s4 := cur.starts<<4 | prev.starts>>60
		s5 := cur.starts<<5 | prev.starts>>59
		for m := ends &^ (s1 | s2 | s3) & s4; m != 0; m &= m - 1 {
			i := base + bits.TrailingZeros64(m)
			n += t.countFour(uint32(b64Code[text[i-4]]), uint32(b64Code[text[i-3]]), uint32(b64Code[text[i-2]]), uint32(b64Code[text[i-1]]))
		}
		for m := ends &^ (s1 | s2 | s3 | s4) & s5; m != 0; m &= m - 1 {
			i := base + bits.TrailingZeros64(m)
			c, ok := t.countFive(uint32(b64Code[text[i-5]]), uint32(b64Code[text[i-4]]), uint32(b64Code[text[i-3]]), uint32(b64Code[text[i-2]]), uint32(b64Code[text[i-1]]))
			if !ok {
				c = e.countB64Merge(text[i-5 : i])
			}
			n += c
		}
		s6 := cur.starts<<6 | prev.starts>>58
		for m := ends &^ (s1 | s2 | s3 | s4 | s5) & s6; m != 0; m &= m - 1 {
			i := base + bits.TrailingZeros64(m)
			c, ok := t.countSix(uint32(b64Code[text[i-6]]), uint32(b64Code[text[i-5]]), uint32(b64Code[text[i-4]]), uint32(b64Code[text[i-3]]), uint32(b64Code[text[i-2]]), uint32(b64Code[text[i-1]]))
			if !ok {
				c = e.countB64Merge(text[i-6 : i])
			}
			n += c
		}
		for m := ends &^ (s1 | s2 | s3 | s4 | s5 | s6); m != 0; m &= m - 1 {
			at := bits.TrailingZeros64(m)
			begin := last
			if before := cur.starts & (1<<at - 1); before != 0 {
				begin = base + 63 - bits.LeadingZeros64(before)
			}
			n += e.countLongB64(text[begin:base+at], s)
		}
		if cur.starts != 0 {
			last = base + 63 - bits.LeadingZeros64(cur.starts)
		}
		if in != ^uint64(0) {
			if end := base + bits.TrailingZeros64(^in); end < len(text) {
				return n, last // a byte outside the alphabet ends the piece begun at last, or not
			}
			break
		}
		prev = cur
	}
	// The text ends: the last piece is whole.
	return n + e.countB64Piece(text[last:], s), len(text)
}

// countB64Piece counts one base64 piece (b64Counts filled).
func (e *bpeEngine) countB64Piece(piece string, s *bpeScratch) int {
	t := e.b64Counts
	switch len(piece) {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return int(t.two[uint32(b64Code[piece[0]])<<6|uint32(b64Code[piece[1]])])
	case 3:
		return int(t.three[uint32(b64Code[piece[0]])<<12|uint32(b64Code[piece[1]])<<6|uint32(b64Code[piece[2]])])
	}
	return e.countLongB64(piece, s)
}

// b64Block is up to 64 bytes of text as bit masks, bit i for byte i: the bytes of each class of
// the base64 alphabet, and the bytes that begin a piece.
type b64Block struct {
	upper, lower, digit, punct uint64
	starts                     uint64
	// digitRun is how many digits end the block, counted from the run's start or p.
	digitRun int
}

// classify sets the class masks of the 64 bytes of text from base: with AVX2 all of them,
// without it up to the first word of eight that holds a byte outside the alphabet (in prose the
// fast path is tried after a word and stops within a few bytes); the bytes after that word and
// those past the end of the text are left outside the alphabet.
func (b *b64Block) classify(text string, base int) {
	if b64ClassVector && base+64 <= len(text) {
		var m [4]uint64
		b64ClassAVX2(unsafe.Add(unsafe.Pointer(unsafe.StringData(text)), base), &m)
		b.upper, b.lower, b.digit, b.punct = m[0], m[1], m[2], m[3]
		return
	}
	b.classifyWords(text, base)
}

// classifyWords is classify without vectors (other CPUs, and the end of the text), eight bytes
// at a time in a word (b64WordClasses), the eight top bits of each class gathered by a
// multiplication.
func (b *b64Block) classifyWords(text string, base int) {
	// gather moves bit 0 of each byte into the top byte, byte k to bit 56+k (the products never
	// overlap, so no carry spoils them).
	const gather = 0x0102040810204080
	for k := 0; k < 64; k += 8 {
		var w uint64
		if base+k+8 <= len(text) {
			w = le64(text, base+k)
		} else {
			for i := len(text) - 1; i >= base+k; i-- {
				w = w<<8 | uint64(text[i])
			}
		}
		upper, lower, digit, punct := b64WordClasses(w)
		b.upper |= upper >> 7 * gather >> 56 << k
		b.lower |= lower >> 7 * gather >> 56 << k
		b.digit |= digit >> 7 * gather >> 56 << k
		b.punct |= punct >> 7 * gather >> 56 << k
		if upper|lower|digit|punct != swarHigh {
			return // a byte outside the alphabet: the bytes after it are not read
		}
	}
}

// The bytes of a word (SWAR): each byte 1, each byte's top bit.
const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// b64WordClasses returns the top bit of each byte of w that is in each class of the base64
// alphabet: a byte is in a range when adding 0x80 minus the range's first byte sets its top bit
// and adding 0x80 minus the byte past its end does not (the top bit cleared first, no sum
// carries into the next byte), and '+' or '/' when setting bit 2 makes it '/'.
func b64WordClasses(w uint64) (upper, lower, digit, punct uint64) {
	ascii := ^w & swarHigh
	y := w &^ swarHigh
	upper = (y + (0x80-'A')*swarOnes) &^ (y + (0x80-'Z'-1)*swarOnes) & ascii
	lower = (y + (0x80-'a')*swarOnes) &^ (y + (0x80-'z'-1)*swarOnes) & ascii
	digit = (y + (0x80-'0')*swarOnes) &^ (y + (0x80-'9'-1)*swarOnes) & ascii
	punct = ^((y | 4*swarOnes) ^ '/'*swarOnes + 0x7f*swarOnes) & ascii
	return upper, lower, digit, punct
}

// b64Ahead says the eight bytes of text from p are base64: countOrdinary enters countB64Pieces
// only then, since a run shorter than that costs less through the general path than the setup
// of a block.
func b64Ahead(text string, p int) bool {
	if p+8 > len(text) {
		return false
	}
	upper, lower, digit, punct := b64WordClasses(le64(text, p))
	return upper|lower|digit|punct == swarHigh
}

// b64Starts returns the bytes of cur that begin a piece, given the block before (zero before
// p), and sets cur.digitRun. In the alphabet the o200k pattern (b64Trans in the tests) begins a
// piece at:
//
//   - a base64 byte after none (the start, p);
//   - an upper-case letter after a lower-case one or a digit, a letter of either case after a
//     digit, or after two or more of '+' and '/' (one of them alone is the letter's prefix);
//   - a digit after no digit, or the fourth, seventh… digit of a run (\p{N}{1,3});
//   - '+' or '/' after no '+' or '/'.
func b64Starts(cur, prev *b64Block) uint64 {
	before := func(m, prevM uint64) uint64 { return m<<1 | prevM>>63 }
	pu, pl, pd, pp := before(cur.upper, prev.upper), before(cur.lower, prev.lower), before(cur.digit, prev.digit), before(cur.punct, prev.punct)
	punctRun := pp & (cur.punct<<2 | prev.punct>>62)
	starts := cur.upper&(pl|pd|punctRun) | cur.lower&(pd|punctRun) | cur.digit&^pd | cur.punct&^pp
	starts |= (cur.upper | cur.lower | cur.digit | cur.punct) &^ (pu | pl | pd | pp)
	// Digits run on past three only now and then: the fourth, seventh… are found one by one.
	pd2, pd3 := cur.digit<<2|prev.digit>>62, cur.digit<<3|prev.digit>>61
	run := prev.digitRun
	if cur.digit&pd&pd2&pd3 != 0 {
		for i := 0; i < 64; i++ {
			if cur.digit>>i&1 == 0 {
				run = 0
				continue
			}
			if run++; run > 3 && run%3 == 1 {
				starts |= 1 << i
			}
		}
	} else if top := bits.LeadingZeros64(^cur.digit); top < 64 {
		run = top
	} else {
		run += 64
	}
	cur.digitRun = run
	return starts
}

// countLongB64 counts a base64 piece of four or more characters (the fast path's conditions
// hold, b64FastPath).
func (e *bpeEngine) countLongB64(piece string, s *bpeScratch) int {
	if len(piece) == 4 {
		return e.b64Counts.countFour(uint32(b64Code[piece[0]]), uint32(b64Code[piece[1]]), uint32(b64Code[piece[2]]), uint32(b64Code[piece[3]]))
	}
	if len(piece) <= maxB64Merge {
		if n, ok := e.countB64Triples(piece); ok {
			return n
		}
		return e.countB64Merge(piece)
	}
	n, _ := e.countPiece(piece, s)
	return n
}

// countB64Triples counts a piece of 4 to maxB64Merge-1 base64 characters (b64Counts filled,
// tiktoken's rule) in which no token of four characters or more begins (a bit per first three
// characters and one per hash of the first four, b64TokenSet.mayBegin, say so for 99% of the
// longer pieces of random base64); ok is false for any other piece. The piece is then no token, and every part the merge makes is a
// pair or a triple: merging two single characters makes a pair, which may go on to a triple
// with a single neighbour; merging a pair with a single makes a triple, which merges no more.
// So the keys (as in mergeB64) of every pair and triple are read once, before merging, and a
// merge sets its two neighbours' keys to a triple's or to none, without a branch. The parts
// are indexed from 1: index 0 is a single part that never merges, so that the first part has a
// left neighbour too. TestB64FourEqualsMerging (every piece of four) and
// TestB64MergeEqualsMergeScan compare it with mergeScan.
func (e *bpeEngine) countB64Triples(piece string) (int, bool) {
	t := e.b64Counts
	n := len(piece)
	if n == maxB64Merge { // its parts would be indexed to 16 (no piece in 100,000 is this long)
		return 0, false
	}
	keys := b64NoKeys
	tripleKeys := b64NoKeys
	// The masks (&15, &63, &4095) bound the indices and shifts for the compiler: no checks.
	pairRank, tripleTok, prefix := &t.pairRank, &t.tripleTok, &t.tokens.prefix
	var prefixes uint32 // bit i: a token of four or more may begin at character i
	c0, c1 := uint32(b64Code[piece[0]]), uint32(b64Code[piece[1]])
	for j := 2; j < len(piece); j++ {
		c2 := uint32(b64Code[piece[j]]) & 63
		w, i := (c0<<6|c1)&4095, j-1
		keys[i&15] = pairRank[w]<<4 | uint32(i)
		if tripleTok[w]>>c2&1 != 0 { // one triple in twenty or so
			tripleKeys[i&15] = t.tripleRank(w<<6|c2)<<4 | uint32(i)
		}
		prefixes |= uint32(prefix[w]>>c2&1) << (i & 31)
		c0, c1 = c1, c2
	}
	keys[(n-1)&15] = pairRank[(c0<<6|c1)&4095]<<4 | uint32(n-1)
	for m := prefixes & (1<<(n-2) - 1); m != 0; m &= m - 1 { // one piece in eight
		j := bits.TrailingZeros32(m) - 1 // the character a token of four or more may begin at
		if t.tokens.mayBegin(uint32(b64Code[piece[j]]), uint32(b64Code[piece[j+1]]), uint32(b64Code[piece[j+2]]), uint32(b64Code[piece[j+3]])) {
			return 0, false
		}
	}
	starts := uint32(1)<<(n+2) - 1 // bit i: a part begins at index i; bit n+1 is the end
	parts := n
	for {
		var key uint32
		if k := &keys; n == 5 { // half the pieces: four keys, from 1
			key = minKey(minKey(k[1], k[2]), minKey(k[3], k[4]))
		} else {
			key = minKey(minKey(minKey(k[0], k[1]), minKey(k[2], k[3])), minKey(minKey(k[4], k[5]), minKey(k[6], k[7])))
			if n > 7 { // else the keys from n on are b64NoKey
				key = minKey(key, minKey(minKey(minKey(k[8], k[9]), minKey(k[10], k[11])), minKey(minKey(k[12], k[13]), minKey(k[14], k[15]))))
			}
		}
		if key >= b64NoKey&^15 {
			return parts, true
		}
		// Merge the part at a with the next one, at b, which ends at c; z is the part before.
		a := int(key & 15)
		b := a + 1 + bits.TrailingZeros32(starts>>((a+1)&31))
		c := b + 1 + bits.TrailingZeros32(starts>>((b+1)&31))
		z := 31 - bits.LeadingZeros32(starts&(1<<a-1))
		starts &^= 1 << (b & 31)
		parts--
		pair := uint32(c-a)&1 ^ 1                   // 1: a pair, which may make a triple
		rightSingle := starts >> ((c + 1) & 31) & 1 // the part at c is one character
		leftSingle := uint32((a-z)^1-1) >> 31       // the part at z is one character
		keys[b&15] = b64NoKey
		keys[a] = tripleKeys[a] | (pair&rightSingle - 1) // b64NoKey unless both are 1
		keys[z&15] = tripleKeys[z&15] | (pair&leftSingle - 1)
	}
}

// maxB64Merge is the longest piece countB64Merge takes.
const maxB64Merge = 16

// countB64Merge counts a piece of 5 to maxB64Merge base64 characters (b64Counts filled, every
// character a byte token, tiktoken's rule) by the merge mergeScan does, lowest rank first and
// leftmost on ties, in arrays on the stack indexed by where each part starts, so that a merge
// moves nothing: a bit mask holds the starts of the parts, keys[i] the rank of merging the part
// at i with the next one, times 16, plus i (the lowest key is the merge to make, leftmost on
// equal ranks, found without a branch), and packed[i] the part's codes as b64Key packs them
// while it has at most maxB64Token characters. The ranks of two- and three-character spans are
// read from b64Counts, those of four to maxB64Token from its token set, longer ones from the
// index. TestB64MergeEqualsMergeScan compares it with mergeScan.
func (e *bpeEngine) countB64Merge(piece string) int {
	t := e.b64Counts
	n := len(piece)
	if n <= maxB64Token {
		if _, ok := t.tokens.id(packB64(piece), n); ok {
			return 1
		}
	} else if _, ok := e.lookupB64(piece); ok {
		return 1
	}
	return e.mergeB64(piece)
}

// mergeB64 is countB64Merge without the look-up of the whole piece: the number of parts that
// merging leaves of a piece of 2 to maxB64Merge base64 characters.
func (e *bpeEngine) mergeB64(piece string) int {
	t := e.b64Counts
	n := len(piece)
	var packed [maxB64Merge]uint64
	keys := b64NoKeys // keys[n-1] on stay b64NoKey
	packed[0] = uint64(b64Code[piece[0]])
	for i := 1; i < n; i++ {
		packed[i] = uint64(b64Code[piece[i]])
		keys[i-1] = t.pairRank[packed[i-1]<<6|packed[i]]<<4 | uint32(i-1)
	}
	starts := uint32(1)<<(n+1) - 1 // every character begins a part; bit n is the end
	parts := n
	for {
		// The lowest key, by a tree of comparisons without a branch (a call would cost more).
		k := &keys
		key := minKey(minKey(minKey(k[0], k[1]), minKey(k[2], k[3])), minKey(minKey(k[4], k[5]), minKey(k[6], k[7])))
		if n > 8 { // else the keys from n-1 on are b64NoKey
			key = minKey(key, minKey(minKey(minKey(k[8], k[9]), minKey(k[10], k[11])), minKey(minKey(k[12], k[13]), minKey(k[14], k[15]))))
		}
		if key >= b64NoKey&^15 { // noRank times 16 (wrapping), or no part
			return parts
		}
		// Merge the part at a with the next one, at b, which ends at c.
		a := int(key & 15)
		b := a + 1 + bits.TrailingZeros32(starts>>(a+1))
		c := b + 1 + bits.TrailingZeros32(starts>>(b+1))
		packed[a] |= packed[b] << (6 * uint(b-a))
		starts &^= 1 << b
		keys[a], keys[b] = b64NoKey, b64NoKey
		parts--
		if c < n {
			keys[a] = e.b64SpanKey(piece, packed[a]|packed[c]<<(6*uint(c-a)), a, c+1+bits.TrailingZeros32(starts>>(c+1)))
		}
		if a > 0 {
			z := 31 - bits.LeadingZeros32(starts&(1<<a-1))
			keys[z] = e.b64SpanKey(piece, packed[z]|packed[a]<<(6*uint(a-z)), z, c)
		}
	}
}

// b64SpanKey is countB64Merge's key of merging the two parts that span piece[a:c] (three
// characters or more) with the packed codes p (when c-a is at most maxB64Token).
func (e *bpeEngine) b64SpanKey(piece string, p uint64, a, c int) uint32 {
	t := e.b64Counts
	rank := uint32(noRank)
	switch l := c - a; {
	case l == 3:
		rank = t.tripleRank(uint32(p&63)<<12 | uint32(p>>6&63)<<6 | uint32(p>>12))
	case l <= maxB64Token:
		if id, ok := t.tokens.id(p, l); ok {
			rank = id
		}
	default:
		if id, ok := e.lookupB64(piece[a:c]); ok {
			rank = id
		}
	}
	return rank<<4 | uint32(a)
}

// b64NoKey is the key of a part that merges with nothing: over every key of countB64Merge.
const b64NoKey = math.MaxUint32

// b64NoKeys are keys of parts that merge with nothing, copied whole (a loop would cost more; 64
// bytes are four vector moves, where 68 overlap and stall the loads after them).
var b64NoKeys = [maxB64Merge]uint32{b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey,
	b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey, b64NoKey}

// minKey is min by arithmetic: the compiler branches on min, and the lowest key is random.
func minKey(a, b uint32) uint32 {
	d := int64(a) - int64(b)
	return uint32(int64(b) + d&(d>>63))
}

// countFive counts a piece of five base64 characters with the codes a, b, c, d, e (b64Counts
// filled, tiktoken's rule) in which no token of four characters or more begins; ok is false
// for any other piece. Such a piece merges at most three times, into pairs and triples, and
// which merges happen depends only on the order of the keys of its four pairs and three
// triples (rank times 8 plus the key's index): the lowest pair key merges first;
// the next merge is the lowest of the three keys that merge makes possible (b64FiveNext); the
// last one happens when either of at most two keys, fixed by the first two merges, is a token
// (b64FiveLast). So it takes no branch on the ranks, where countB64Triples' loop mispredicts
// its exit after a random number of merges. TestB64FiveAndSixEqualMergeScan compares it with
// mergeScan.
func (t *b64ShortCounts) countFive(a, b, c, d, e uint32) (int, bool) {
	prefix := &t.tokens.prefix
	ab, bc, cd, de := (a<<6|b)&4095, (b<<6|c)&4095, (c<<6|d)&4095, (d<<6|e)&4095
	if prefix[ab]>>c&1|prefix[bc]>>d&1 != 0 && // one piece in eight
		(t.tokens.mayBegin(a, b, c, d) || t.tokens.mayBegin(b, c, d, e)) {
		return 0, false
	}
	pairRank := &t.pairRank
	keys := [8]uint32{
		pairRank[ab] << 3, pairRank[bc]<<3 | 1, pairRank[cd]<<3 | 2, pairRank[de]<<3 | 3,
		t.tripleRank(ab<<6|c)<<3 | 4, t.tripleRank(bc<<6|d)<<3 | 5, t.tripleRank(cd<<6|e)<<3 | 6,
		b64NoKey,
	}
	first := minKey(minKey(keys[0], keys[1]), minKey(keys[2], keys[3]))
	next := b64FiveNext >> (first & 3 * 12)
	second := minKey(minKey(keys[next&7], keys[next>>4&7]), keys[next>>8&7])
	last := b64FiveLast[(first&3)<<3|second&7]
	third := minKey(keys[last&7], keys[last>>4&7])
	merged := func(key uint32) int { return int(uint64(key)-uint64(b64NoKey&^7)) >> 63 & 1 }
	m1, m2, m3 := merged(first), merged(second), merged(third)
	return 5 - m1 - m1&m2 - m1&m2&m3, true
}

// The keys of countFive, by index: the pairs ab, bc, cd, de (0–3), the triples abc, bcd, cde
// (4–6), and none (7). Equal ranks are equal tokens, and among the keys that compete the one of
// the lower index is always the leftmost span, which merges first.
//
// b64FiveNext holds, in 12 bits per first merge (a pair), the indices of the three keys that
// can merge next, four bits each: after ab, the triple abc, the pairs cd and de; after bc, the
// triples abc and bcd, the pair de; after cd, the pair ab, the triples bcd and cde; after de, the
// pairs ab and bc, the triple cde.
const b64FiveNext = 0x4_2_3 | 0x4_5_3<<12 | 0x0_5_6<<24 | 0x0_1_6<<36

// b64FiveLast holds, by the first merge times 8 plus the second, the indices of the keys of
// which either makes a third merge (four bits each, 7 for none): after ab and abc, de; after ab
// and cd, cde; after ab and de, abc or cde; after bc and abc, de; after bc and de, abc; after cd
// and ab, cde; after cd and cde, ab; after de and ab, abc or cde; after de and bc, abc; after
// de and cde, ab. The other merges leave no pair that makes a token of three.
var b64FiveLast = func() (t [32]uint8) {
	for i := range t {
		t[i] = 0x77
	}
	for _, m := range [][3]uint8{{0, 4, 0x73}, {0, 2, 0x76}, {0, 3, 0x64}, {1, 4, 0x73}, {1, 3, 0x74},
		{2, 0, 0x76}, {2, 6, 0x70}, {3, 0, 0x64}, {3, 1, 0x74}, {3, 6, 0x70}} {
		t[m[0]<<3|m[1]] = m[2]
	}
	return t
}()

// b64SixSteps are the merges that can follow one another in a piece of six base64 characters
// that holds no token of four characters or more, so that every part is a character, a pair or
// a triple. The parts are given by a mask of the five boundaries between the characters (bit i:
// between characters i and i+1), the keys of countSix by index: 0–4 the pair at character i,
// 8–11 the triple at character i-8, 15 none.
var b64SixSteps = func() (s struct {
	// next holds by the mask of boundaries the indices of the keys of the spans that two
	// neighbouring parts make, four bits each (15 for none); the first merge, among the
	// five pairs, is read without it.
	next [1 << 5]uint16
	// gone is by key index the boundaries its merge removes.
	gone [16]uint8
}) {
	const n = 6
	for mask := range 1 << (n - 1) {
		var starts []int // the parts' starts, and the end
		for i := range n {
			if i == 0 || mask>>(i-1)&1 != 0 {
				starts = append(starts, i)
			}
		}
		starts = append(starts, n)
		next, k := ^uint16(0), 0
		for j := 0; j+2 < len(starts); j++ {
			at, length := starts[j], starts[j+2]-starts[j]
			if length > 3 {
				continue
			}
			index := at
			if length == 3 {
				index = 8 + at
			}
			next = next&^(15<<(4*k)) | uint16(index)<<(4*k)
			k++
		}
		switch {
		case mask == 1<<(n-1)-1: // before the first merge; after none, no pair is a token
			next = ^uint16(0)
		case k > 4:
			panic("b64SixSteps: more than four merges may follow")
		}
		s.next[mask] = next
	}
	for i := range n - 1 {
		s.gone[i] = 1 << i
		if i < n-2 {
			s.gone[8+i] = 3 << i
		}
	}
	return s
}()

// countSix counts a piece of six base64 characters with the codes a, b, c, d, e, f as countFive
// does one of five: the keys of the five pairs and four triples (rank times 16 plus index) are
// read once, the first merge is the lowest pair key, and each of the (at most) three after it
// the lowest of the keys b64SixSteps lists for the parts so far, made or not without a branch
// (once no key left is a token, the parts stay as they are). TestB64FiveAndSixEqualMergeScan
// compares it with mergeScan.
func (t *b64ShortCounts) countSix(a, b, c, d, e, f uint32) (int, bool) {
	prefix := &t.tokens.prefix
	ab, bc, cd, de, ef := (a<<6|b)&4095, (b<<6|c)&4095, (c<<6|d)&4095, (d<<6|e)&4095, (e<<6|f)&4095
	if prefix[ab]>>c&1|prefix[bc]>>d&1|prefix[cd]>>e&1 != 0 && // one piece in six
		(t.tokens.mayBegin(a, b, c, d) || t.tokens.mayBegin(b, c, d, e) || t.tokens.mayBegin(c, d, e, f)) {
		return 0, false
	}
	pairRank := &t.pairRank
	keys := b64NoKeys
	k := &keys
	k[0], k[1], k[2], k[3], k[4] = pairRank[ab]<<4, pairRank[bc]<<4|1, pairRank[cd]<<4|2, pairRank[de]<<4|3, pairRank[ef]<<4|4
	k[8], k[9] = t.tripleRank(ab<<6|c)<<4|8, t.tripleRank(bc<<6|d)<<4|9
	k[10], k[11] = t.tripleRank(cd<<6|e)<<4|10, t.tripleRank(de<<6|f)<<4|11
	steps := &b64SixSteps
	key := minKey(minKey(minKey(k[0], k[1]), minKey(k[2], k[3])), k[4])
	merged := uint32((uint64(key) - uint64(b64NoKey&^15)) >> 63)
	mask := 31 &^ (uint32(steps.gone[key&15]) & -merged)
	parts := 6 - int(merged)
	for range 3 {
		next := steps.next[mask&31]
		key = minKey(minKey(k[next&15], k[next>>4&15]), minKey(k[next>>8&15], k[next>>12]))
		merged = uint32((uint64(key) - uint64(b64NoKey&^15)) >> 63)
		mask &^= uint32(steps.gone[key&15]) & -merged
		parts -= int(merged)
	}
	return parts, true
}
