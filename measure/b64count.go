package measure

// The base64 fast path of counting under o200k: random base64 splits into short pieces (43% of
// one byte, 41% of two or three, 8% of four), and splitting them with the general pre-tokenizer
// and handing each to countPiece cost as much as the counting. countB64Pieces splits and counts
// them in one loop with a pre-tokenizer for the base64 alphabet alone, taking a piece only when
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

// b64Trans is the o200k pre-tokenizer on the base64 alphabet as a state machine: entry
// state<<3|class is the next state, with b64Boundary set when the byte begins a new piece. In
// the alphabet the o200k pattern reduces to:
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

// b64Rows is b64Trans by byte: for a base64 byte, byte s of its row is the transition from
// state s (the next state times 8, b64Boundary as bit 6); 0 for a byte outside the alphabet.
var b64Rows = func() (t [256]uint64) {
	for c := range t {
		class := b64Class[c]
		if class == b64Other {
			continue
		}
		for state := b64Start; state <= b64Digits3; state++ {
			tr := b64Trans[state<<3|class]
			field := uint64(tr&7)*8 | uint64(tr>>3)<<6
			t[c] |= field << (8 * uint(state))
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
// each is too, and returns the count and where it stopped (the start of the piece it left). The
// pieces of one to three characters are counted without a branch (their count is read every
// byte from b64Counts.short by length and code, and kept at a boundary), so the random piece
// ends of base64 cost no mispredicted branch; longer ones go to countB64Four and countPiece.
func (e *bpeEngine) countB64Pieces(text string, p int, s *bpeScratch) (n, stop int) {
	e.b64Once.Do(e.fillB64Counts)
	short := &e.b64Counts.short
	// length is the length of the current piece, code the codes of the last three characters
	// (a rolling window, never reset: a short piece's code is its low 6·length bits).
	// st is the state times 8: the shift that selects the state's transition in the byte's row
	// (b64Rows), so that the loop's chain from one byte to the next is a shift and a mask.
	st, length, code := uint64(b64Start)*8, 0, uint32(0)
	i := p
	for {
		// The inner loop makes no call, so that its state stays in registers: it leaves at the
		// end of a piece of four or more characters, counted below, at a byte outside the
		// alphabet or at the end of the text.
		long := false
		for ; i < len(text); i++ {
			c := text[i]
			row := b64Rows[c]
			if row == 0 {
				break
			}
			tr := row >> (st & 63)
			boundary := int(tr >> 6 & 1) // 1 when the piece text[i-length:i] ends here
			if length > 3 && boundary != 0 {
				long = true
				break
			}
			st = tr & 0x38
			// The finished piece's count when it ends here; when it does not, the slot read
			// is any (b64InnerIndex) and its count is masked off.
			n += int(short[b64InnerIndex(length, code)]) & -boundary
			length = length&^-boundary + 1
			code = (code<<6 | uint32(b64Code[c])) & (1<<18 - 1)
		}
		if !long {
			break
		}
		n += e.countLongB64(text[i-length:i], s)
		c := text[i] // begins the next piece
		st = b64Rows[c] >> (st & 63) & 0x38
		length = 1
		code = (code<<6 | uint32(b64Code[c])) & (1<<18 - 1)
		i++
	}
	if i < len(text) {
		return n, i - length
	}
	if length > 3 {
		n += e.countLongB64(text[i-length:i], s)
	} else {
		n += int(short[b64ShortIndex(length, code)])
	}
	return n, i
}

// b64InnerIndex is b64ShortIndex for a piece of 0 to 3 characters, and a slot in range for
// any other length, without a branch.
func b64InnerIndex(length int, code uint32) uint32 {
	l := length & 3
	return b64ShortBase[l] + code&b64ShortMask[l]
}

// b64ShortIndex is where b64Counts.short holds the count of a piece of length characters (1 to
// 3) whose codes end code; length 0 or over 3 gives slot 0, which holds 0.
func b64ShortIndex(length int, code uint32) uint32 {
	l := length
	if l > 3 {
		l = 0
	}
	return b64ShortBase[l] + code&b64ShortMask[l]
}

// Offsets and code masks of the lengths 0–3 in b64Counts.short.
var (
	b64ShortBase = [4]uint32{0, 1, 1 + 1<<6, 1 + 1<<6 + 1<<12}
	b64ShortMask = [4]uint32{0, 1<<6 - 1, 1<<12 - 1, 1<<18 - 1}
)

// countLongB64 counts a base64 piece of four or more characters.
func (e *bpeEngine) countLongB64(piece string, s *bpeScratch) int {
	if n, ok := e.countB64Four(piece); ok {
		return n
	}
	if len(piece) <= maxB64Merge {
		return e.countB64Merge(piece)
	}
	n, _ := e.countPiece(piece, s)
	return n
}

// maxB64Merge is the longest piece countB64Merge takes.
const maxB64Merge = 16

// countB64Merge counts a piece of 5 to maxB64Merge base64 characters (b64Counts filled, every
// character a byte token, tiktoken's rule) by the merge mergeScan does, lowest rank first and
// leftmost on ties, with the parts in arrays on the stack: the ranks of two- and
// three-character spans are read from b64Counts, those of four to maxB64Token from its token
// set by the parts' packed codes, longer ones from the index.
// TestB64MergeEqualsMergeScan compares it with mergeScan.
func (e *bpeEngine) countB64Merge(piece string) int {
	t := e.b64Counts
	n := len(piece)
	if n <= maxB64Token {
		if _, ok := t.b64TokenID(b64Key(packB64(piece), n)); ok {
			return 1
		}
	} else if _, ok := e.lookupB64(piece); ok {
		return 1
	}
	var codes [maxB64Merge]uint32
	var start [maxB64Merge + 1]int32
	var ranks [maxB64Merge]uint32
	// packed holds each part's codes, packed as b64Key packs them while the part has at most
	// maxB64Token characters (a longer part's is never read).
	var packed [maxB64Merge]uint64
	for i := 0; i < n; i++ {
		c := b64Code[piece[i]]
		codes[i] = uint32(c)
		packed[i] = uint64(c)
		start[i] = int32(i)
	}
	start[n] = int32(n)
	// spanRank is the rank of the token that parts k and k+1 make, or noRank.
	spanRank := func(k int) uint32 {
		a, c := start[k], start[k+2]
		switch l := c - a; {
		case l == 2:
			return t.pairRank[codes[a]<<6|codes[a+1]]
		case l == 3:
			return t.tripleRank(codes[a]<<12 | codes[a+1]<<6 | codes[a+2])
		case l <= maxB64Token:
			if id, ok := t.b64TokenID(b64Key(packed[k]|packed[k+1]<<(6*uint(start[k+1]-a)), int(l))); ok {
				return id
			}
		default:
			if id, ok := e.lookupB64(piece[a:c]); ok {
				return id
			}
		}
		return noRank
	}
	for i := 0; i+1 < n; i++ {
		ranks[i] = t.pairRank[codes[i]<<6|codes[i+1]]
	}
	ranks[n-1] = noRank
	parts := n
	for parts > 1 {
		at := lowestRank(ranks[:parts-1])
		if at < 0 {
			break
		}
		packed[at] |= packed[at+1] << (6 * uint(start[at+1]-start[at]))
		// Shift the later parts down one, a loop of a few steps (copy would call memmove
		// three times a merge).
		for j := at + 1; j < parts-1; j++ {
			start[j], ranks[j], packed[j] = start[j+1], ranks[j+1], packed[j+1]
		}
		start[parts-1] = start[parts]
		parts--
		if at+1 < parts {
			ranks[at] = spanRank(at)
		} else {
			ranks[at] = noRank
		}
		if at > 0 {
			ranks[at-1] = spanRank(at - 1)
		}
	}
	return parts
}
