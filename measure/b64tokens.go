package measure

// b64TokenSet holds the tokens of minB64Token to maxB64Token base64 characters (30,041 in
// o200k_base), keyed by their 6-bit codes packed first character lowest with the length on
// top (b64Key), so that the base64 merge looks a span up from the packed codes of its parts
// without reading the bytes again. Its filter (one bit a key, 128 KiB) answers most spans
// that are no token with one read, where the general index's filter takes two reads of
// 256 KiB and a hit reads a 4 MiB table. TestB64TokenSetMatchesIndex compares it with the
// index on every token and on random spans.
type b64TokenSet struct {
	keys   []uint64 // key + 1; 0 marks an empty slot
	ids    []uint32
	shift  uint
	filter [1 << b64FilterBits / 64]uint64
}

// The lengths b64TokenSet holds, and the size of its filter.
const (
	minB64Token   = 4
	maxB64Token   = 10
	b64FilterBits = 20
)

// b64Key packs a span's codes (6 bits each, the first lowest) with its length.
func b64Key(packed uint64, length int) uint64 { return packed | uint64(length)<<60 }

// b64Hash spreads a key over 64 bits.
func b64Hash(key uint64) uint64 { return key * 0x9E3779B97F4A7C15 }

// newB64TokenSet collects the base64 tokens of vocab.
func newB64TokenSet(vocab map[string]uint32) *b64TokenSet {
	n := 0
	for tok := range vocab {
		if len(tok) >= minB64Token && len(tok) <= maxB64Token && isB64(tok) {
			n++
		}
	}
	size, shift := 1, uint(64)
	for size < 2*n+16 {
		size <<= 1
		shift--
	}
	t := &b64TokenSet{keys: make([]uint64, size), ids: make([]uint32, size), shift: shift}
	for tok, id := range vocab {
		if len(tok) >= minB64Token && len(tok) <= maxB64Token && isB64(tok) {
			t.put(b64Key(packB64(tok), len(tok)), id)
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

func (t *b64TokenSet) put(key uint64, id uint32) {
	h := b64Hash(key)
	t.filter[h>>(64-b64FilterBits)/64] |= 1 << (h >> (64 - b64FilterBits) & 63)
	mask := uint64(len(t.keys) - 1)
	for i := h >> t.shift; ; i = (i + 1) & mask {
		if t.keys[i] == 0 || t.keys[i] == key+1 {
			t.keys[i], t.ids[i] = key+1, id
			return
		}
	}
}

// get returns the id of the token with the key, if there is one.
func (t *b64TokenSet) get(key uint64) (uint32, bool) {
	h := b64Hash(key)
	if t.filter[h>>(64-b64FilterBits)/64]>>(h>>(64-b64FilterBits)&63)&1 == 0 {
		return 0, false
	}
	mask := uint64(len(t.keys) - 1)
	for i := h >> t.shift; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key + 1:
			return t.ids[i], true
		case 0:
			return 0, false
		}
	}
}
