package tokenize

import (
	"math/bits"
	"unicode/utf8"
)

// The ASCII fast path of counting: logs, prose, JSON and code are mostly ASCII, and there the
// o200k, cl100k and Qwen2 patterns reduce to a few rules on seven byte classes (asciiPieceEnds,
// asciiPieceEndsLlama3). A piece is taken only when every byte that decides where it ends is
// ASCII; at any other piece the general path (t.split, countPiece) takes over for that one
// piece. The pieces are those the general splitters give (TestASCIIPieceEndMatchesSplitter,
// FuzzASCIICount), and their counts those of countPiece.

// Byte classes of the ASCII pre-tokenizer; each byte has exactly one.
const (
	acUpper   uint8 = 1 << iota // A-Z: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] in ASCII
	acLower                     // a-z: [\p{Ll}\p{Lm}\p{Lo}\p{M}] in ASCII
	acDigit                     // 0-9: \p{N}
	acSpace                     // \t \v \f and space: \s but not [\r\n]
	acNewline                   // \r \n
	acPunct                     // every other ASCII byte: [^\s\p{L}\p{N}]
	acOther                     // a byte of a rune outside ASCII: the general path decides

	acLetter = acUpper | acLower
)

// asciiClass is the class of each byte (from asciiKinds); read-only.
var asciiClass = func() (t [256]uint8) {
	for b := range t {
		if b >= len(asciiKinds) {
			t[b] = acOther
			continue
		}
		switch k := asciiKinds[b]; {
		case k&akNewline != 0:
			t[b] = acNewline
		case k&akSpace != 0:
			t[b] = acSpace
		case k&akUpper != 0:
			t[b] = acUpper
		case k&akLower != 0:
			t[b] = acLower
		case k&akDigit != 0:
			t[b] = acDigit
		default:
			t[b] = acPunct
		}
	}
	return t
}()

// asciiPieceEnds writes the ends of the o200k pieces from p on to ends, for as long as bytes
// in ASCII decide them and ends has room, and returns how many it wrote. In ASCII the pattern's
// alternatives, tried in order, come to:
//
//   - letters: an optional prefix of one space or punctuation byte (not \r or \n) directly
//     before a letter, then the upper-case letters, then the lower-case ones, then an optional
//     contraction ('s 't 're 've 'm 'll 'd in either case);
//   - one to three digits;
//   - punctuation after an optional space, then any \r, \n and '/';
//   - whitespace: up to the last \r or \n of the run; else the run less its last byte when a
//     byte that is no whitespace follows and the run has two or more; else the run.
//
// With b64Fast it stops, b64 true, after a piece of letters that ends before a base64 byte with
// sixteen of them ahead, where the base64 fast path may take over: in prose a mere eight
// (b64Ahead), as in "/acme/dashboard", would enter it for a piece or two, at more cost than it
// saves.
func asciiPieceEnds(s string, p int, ends []int, b64Fast bool) (k int, b64 bool) {
	for p < len(s) && k < len(ends) {
		// The usual piece of prose first: a space and one to seven lower-case letters, then a
		// byte that ends them outright (not an apostrophe, not past ASCII) and where the base64
		// path would not begin. The rules below give it the same end.
		if s[p] == ' ' && p+9 <= len(s) {
			if notLower := ^asciiBytesIn(le64(s, p+1), 'a', 'z') & swarHigh; notLower&0x80 == 0 && notLower != 0 {
				end := p + 1 + bits.TrailingZeros64(notLower)>>3
				if c := s[end]; c != '\'' && c < utf8.RuneSelf && (!b64Fast || b64Class[c] == b64Other) {
					ends[k], k, p = end, k+1, end
					continue
				}
			}
		}
		end, letters := -1, p // letters: where the letters of a piece of letters begin, or -1
		switch k0 := asciiClass[s[p]]; {
		case k0&acLetter != 0:
		case p+1 == len(s):
			if letters = -1; k0 != acOther {
				end = p + 1
			}
		case k0&(acSpace|acPunct) != 0 && asciiClass[s[p+1]]&acLetter != 0:
			letters = p + 1
		case (k0|asciiClass[s[p+1]])&acOther != 0:
			letters = -1
		case k0 == acDigit:
			letters, end = -1, asciiDigitsEnd(s, p, 3)
		case k0 == acPunct && asciiClass[s[p+1]]&(acPunct|acNewline) == 0:
			letters, end = -1, p+1 // one punctuation byte, not before a letter
		default:
			letters, end = -1, asciiPunctSpaceEnd(s, p, true)
		}
		if q := letters; q >= 0 {
			// The upper-case letters, then the lower-case ones: within the eight bytes from q,
			// read at once (the usual word), or else by asciiRunEnd.
			if q+8 <= len(s) {
				w := le64(s, q)
				notUpper, notLower := ^asciiBytesIn(w, 'A', 'Z')&swarHigh, ^asciiBytesIn(w, 'a', 'z')&swarHigh
				upper := uint(bits.TrailingZeros64(notUpper)) &^ 7 // bits of the upper-case run
				if rest := notLower >> upper; rest != 0 {          // (0 when upper is 64)
					end = q + int(upper+uint(bits.TrailingZeros64(rest)))>>3
				}
			}
			if end < 0 {
				if asciiClass[s[q]] == acUpper {
					q = asciiRunEnd(s, q+1, 'A', 'Z', 0)
				}
				end = asciiRunEnd(s, q, 'a', 'z', 0)
			}
			if end < len(s) && (s[end] == '\'' || s[end] >= utf8.RuneSelf) {
				end = asciiWordTail(s, end)
			}
		}
		if end < 0 {
			break
		}
		ends[k], k, p = end, k+1, end
		if letters >= 0 && b64Fast && p < len(s) && b64Class[s[p]] != b64Other && b64Ahead(s, p) && b64Ahead(s, p+8) {
			return k, true
		}
	}
	return k, false
}

// asciiPunctSpaceEnd returns the end of a piece of punctuation or whitespace that is no
// prefix of letters, with s[p] and s[p+1] ASCII; slash adds '/' to the newlines that
// punctuation takes after it (o200k).
func asciiPunctSpaceEnd(s string, p int, slash bool) int {
	if asciiClass[s[p]] == acPunct || asciiClass[s[p+1]] == acPunct && s[p] == ' ' {
		q := p + 1
		for q < len(s) && asciiClass[s[q]] == acPunct {
			q++
		}
		if q < len(s) && asciiClass[s[q]] == acOther {
			return -1
		}
		for q < len(s) && (s[q] == '\r' || s[q] == '\n' || slash && s[q] == '/') {
			q++
		}
		return q
	}
	// Whitespace.
	q, newlineEnd := p, -1
	for ; q < len(s); q++ {
		k := asciiClass[s[q]]
		if k&(acSpace|acNewline) == 0 {
			if k == acOther {
				return -1
			}
			break
		}
		if k == acNewline {
			newlineEnd = q + 1
		}
	}
	switch {
	case newlineEnd >= 0:
		return newlineEnd
	case q == len(s) || q == p+1:
		return q
	}
	return q - 1
}

// asciiWordTail returns the end of a piece of letters that end at q before an apostrophe or a
// byte outside ASCII: after the contraction there, or -1 for the byte outside ASCII (it may
// be a letter).
func asciiWordTail(s string, q int) int {
	if s[q] == '\'' {
		return q + contraction(s, q, true)
	}
	return -1
}

// asciiBytesIn returns the top bit of each byte of w that is one of the ASCII bytes lo to hi
// (see b64WordClasses).
func asciiBytesIn(w uint64, lo, hi byte) uint64 {
	y := w &^ swarHigh
	return (y + (0x80-uint64(lo))*swarOnes) &^ (y + (0x80-uint64(hi)-1)*swarOnes) &^ w & swarHigh
}

// asciiRunEnd returns the end of the run of the bytes lo to hi (ASCII) from q, each byte or'd
// with fold first (0x20 makes a-z take A-Z too), reading eight bytes at a time.
func asciiRunEnd(s string, q int, lo, hi, fold byte) int {
	for q+8 <= len(s) {
		if out := ^asciiBytesIn(le64(s, q)|uint64(fold)*swarOnes, lo, hi) & swarHigh; out != 0 {
			return q + bits.TrailingZeros64(out)>>3
		}
		q += 8
	}
	for q < len(s) && s[q]|fold >= lo && s[q]|fold <= hi {
		q++
	}
	return q
}

// asciiPieceEndsLlama3 is asciiPieceEnds for the cl100k pattern (Llama 3's) with maxDigits 3,
// and Qwen2's with maxDigits 1. In ASCII they differ from o200k's in that a contraction is a
// piece of its own, tried first; letters run on whatever their case and take no contraction;
// digits come maxDigits at a time; and punctuation takes the newlines after it but no '/'.
func asciiPieceEndsLlama3(s string, p int, ends []int, maxDigits int) int {
	k := 0
	for p < len(s) && k < len(ends) {
		end, letters := -1, -1 // letters: where the letters of a piece of letters begin, or -1
		c := 0
		if s[p] == '\'' {
			c = contraction(s, p, true)
		}
		switch k0 := asciiClass[s[p]]; {
		case c > 0:
			end = p + c
		case k0&acLetter != 0:
			letters = p
		case p+1 == len(s):
			if k0 != acOther {
				end = p + 1
			}
		case k0&(acSpace|acPunct) != 0 && asciiClass[s[p+1]]&acLetter != 0:
			letters = p + 1
		case (k0|asciiClass[s[p+1]])&acOther != 0:
		case k0 == acDigit:
			end = asciiDigitsEnd(s, p, maxDigits)
		default:
			end = asciiPunctSpaceEnd(s, p, false)
		}
		if letters >= 0 {
			if end = asciiRunEnd(s, letters, 'a', 'z', 0x20); end < len(s) && s[end] >= utf8.RuneSelf {
				end = -1 // a letter outside ASCII may follow
			}
		}
		if end < 0 {
			break
		}
		ends[k], k, p = end, k+1, end
	}
	return k
}

// asciiDigitsEnd returns the end of \p{N}{1,maxDigits} from the digit at p, or -1 when a byte
// outside ASCII may be one more digit.
func asciiDigitsEnd(s string, p, maxDigits int) int {
	end := p + 1
	for end < len(s) && end < p+maxDigits && asciiClass[s[end]] == acDigit {
		end++
	}
	if end < p+maxDigits && end < len(s) && asciiClass[s[end]] == acOther {
		return -1
	}
	return end
}

// countASCIIPieces counts the pieces from p on for as long as asciiPieceEnds decides them, and
// returns the count and where it stopped: at a piece it left to the general path, the end of
// the text, or, with b64 true, a place where the base64 fast path may take over (see
// asciiPieceEnds). The pieces are found 64 at a time, then counted.
func (t *BPETokenizer) countASCIIPieces(text string, p int, s *bpeScratch) (n, stop int, b64 bool) {
	e := t.engine
	if s.memo == nil {
		s.memo = new(pieceMemo)
	}
	memo := s.memo
	var ends [64]int
	for {
		k, b64 := t.asciiPieceEnds(text, p, ends[:])
		for _, end := range ends[:k] {
			switch size := end - p; {
			case size <= 8 && p+8 <= len(text):
				// The memo's look-up (countPiece) with the key read as one word; pieces of one
				// byte too, which in logs come at random among longer ones (a branch for them
				// there costs more than the look-up).
				lo, hi := le64(text, p)&wordMasks[size&7], uint64(size)<<56
				if slot := memo.slotOf(lo, hi); slot.lo == lo && slot.hi == hi {
					n += int(slot.count)
				} else {
					c, _ := e.countMemoMiss(text[p:end], slot, lo, hi, s)
					n += c
				}
			case size == 1:
				n++
			default:
				c, _ := e.countPiece(text[p:end], s)
				n += c
			}
			p = end
		}
		if b64 || k < len(ends) {
			return n, p, b64
		}
	}
}

// asciiPieceEnds is the asciiPieceEnds of the tokenizer's pre-tokenizer.
func (t *BPETokenizer) asciiPieceEnds(text string, p int, ends []int) (k int, b64 bool) {
	switch t.pretoken {
	case preO200K:
		return asciiPieceEnds(text, p, ends, t.b64Fast)
	case preCL100K:
		return asciiPieceEndsLlama3(text, p, ends, 3), false
	case preQwen2:
		return asciiPieceEndsLlama3(text, p, ends, 1), false
	}
	return 0, false // no ASCII path (hasASCIIPath)
}

// hasASCIIPath says whether a pre-tokenizer has an ASCII fast path (asciiPieceEnds).
func hasASCIIPath(pretoken string) bool {
	return pretoken == preO200K || pretoken == preCL100K || pretoken == preQwen2
}

// wordMasks keeps the low i bytes of a word (all eight for i = 0, the memo key of eight bytes).
var wordMasks = [8]uint64{^uint64(0), 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1}
