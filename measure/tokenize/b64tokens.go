package tokenize

// The base64 tokens of minB64Token to maxB64Token characters (30,041 in o200k_base) are kept in
// a u64Table keyed by their 6-bit codes packed first character lowest with the length on top
// (b64Key), so that the base64 merge looks a span up from the packed codes of its parts without
// reading the bytes again, in a table of these tokens alone (its filter and slots a fifth of
// the general index's). TestB64TokenSetMatchesIndex compares it with the index on every token
// and on random spans.

// The lengths of the base64 token set.
const (
	minB64Token = 4
	maxB64Token = 10
)

// b64Key packs a span's codes (6 bits each, the first lowest) with its length.
func b64Key(packed uint64, length int) uint64 { return packed | uint64(length)<<60 }

// newB64TokenSet collects the base64 tokens of vocab of minB64Token to maxB64Token characters,
// by b64Key, with their ids.
func newB64TokenSet(vocab map[string]uint32) *u64Table {
	n := 0
	for tok := range vocab {
		if len(tok) >= minB64Token && len(tok) <= maxB64Token && isB64(tok) {
			n++
		}
	}
	t := newU64Table(n)
	for tok, id := range vocab {
		if len(tok) >= minB64Token && len(tok) <= maxB64Token && isB64(tok) {
			t.put(b64Key(packB64(tok), len(tok)), uint64(id))
		}
	}
	return t
}

// packB64 packs the codes of a span of base64 characters, the first lowest.
func packB64(s string) uint64 {
	var p uint64
	for i := len(s) - 1; i >= 0; i-- {
		p = p<<6 | uint64(b64Code[s[i]])
	}
	return p
}

// b64TokenID returns the id of the base64 token with the key, if there is one.
func (t *b64ShortCounts) b64TokenID(key uint64) (uint32, bool) {
	v, ok := t.tokens.get(key)
	return uint32(v), ok
}
