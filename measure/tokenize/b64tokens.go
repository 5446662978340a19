package tokenize

import "iter"

// The base64 tokens of minB64Token to maxB64Token characters (30,041 in o200k_base) are kept in
// a u64Table keyed by their 6-bit codes packed first character lowest with the length on top
// (b64Key), so that the base64 merge looks a span up from the packed codes of its parts without
// reading the bytes again, in a table of these tokens alone (its filter and slots a fifth of
// the general index's). Before the table, a bit per first three characters (32 KB) says whether
// any of these tokens begins with them: in random base64 a span of four characters or more is a
// token about once in two thousand, and 95% of the spans are refused by one bit, without the
// hashing of the table's filter. TestB64TokenSetMatchesIndex compares the set with the index on
// every token and on random spans.

// The lengths of the base64 token set.
const (
	minB64Token = 4
	maxB64Token = 10
)

// b64TokenSet is the set of base64 tokens of minB64Token to maxB64Token characters.
type b64TokenSet struct {
	// prefix has a bit per three characters (their codes, the first highest) that some base64
	// token of four characters or more begins with, of any length.
	prefix [1 << 18 / 64]uint64
	// prefix4 has a bit per hash of four characters (b64Prefix4Bit) that some base64 token of
	// four characters or more begins with: when prefix lets three characters by (one in twenty
	// for those of random letters), the fourth refuses nine in ten of them.
	prefix4 [1 << b64Prefix4Bits / 64]uint64
	ids     *u64Table // b64Key → id
}

// b64Prefix4Bits is the size of b64TokenSet.prefix4 in bits, as a power of two (128 KB).
const b64Prefix4Bits = 20

// b64Prefix4Bit is the bit of b64TokenSet.prefix4 of four characters with the codes a, b, c, d.
func b64Prefix4Bit(a, b, c, d uint32) uint32 {
	return (a<<18 | b<<12 | c<<6 | d) * 0x9E3779B1 >> (32 - b64Prefix4Bits)
}

// mayBegin says whether a base64 token of four characters or more may begin with the four
// characters with the codes a, b, c, d (false: none does).
func (set *b64TokenSet) mayBegin(a, b, c, d uint32) bool {
	bit := b64Prefix4Bit(a, b, c, d)
	return set.prefix[a<<6|b]>>c&1 != 0 && set.prefix4[bit>>6]>>(bit&63)&1 != 0
}

// b64Key packs a span's codes (6 bits each, the first lowest) with its length.
func b64Key(packed uint64, length int) uint64 { return packed | uint64(length)<<60 }

// newB64TokenSet collects the base64 tokens of vocab (token bytes with ids) of minB64Token to
// maxB64Token characters, by b64Key, with their ids.
func newB64TokenSet(vocab iter.Seq2[string, uint32]) *b64TokenSet {
	n := 0
	for tok := range vocab {
		if len(tok) >= minB64Token && len(tok) <= maxB64Token && isB64(tok) {
			n++
		}
	}
	set := &b64TokenSet{ids: newU64Table(n)}
	for tok, id := range vocab {
		if len(tok) < minB64Token || !isB64(tok) {
			continue
		}
		a, b, c, d := uint32(b64Code[tok[0]]), uint32(b64Code[tok[1]]), uint32(b64Code[tok[2]]), uint32(b64Code[tok[3]])
		set.prefix[a<<6|b] |= 1 << c
		bit := b64Prefix4Bit(a, b, c, d)
		set.prefix4[bit>>6] |= 1 << (bit & 63)
		if len(tok) <= maxB64Token {
			set.ids.put(b64Key(packB64(tok), len(tok)), uint64(id))
		}
	}
	return set
}

// packB64 packs the codes of a span of base64 characters, the first lowest.
func packB64(s string) uint64 {
	var p uint64
	for i := len(s) - 1; i >= 0; i-- {
		p = p<<6 | uint64(b64Code[s[i]])
	}
	return p
}

// id returns the id of the base64 token of length characters (minB64Token to maxB64Token) with
// the packed codes, if there is one.
func (set *b64TokenSet) id(packed uint64, length int) (uint32, bool) {
	if set.prefix[packed&63<<6|packed>>6&63]>>(packed>>12&63)&1 == 0 {
		return 0, false
	}
	v, ok := set.ids.get(b64Key(packed, length))
	return uint32(v), ok
}
