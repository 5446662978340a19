package tokenize

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"strings"
)

// The tables a tokenizer keeps after loading hold no pointer per token: a loaded tokenizer
// lives for the whole of a run, and the garbage collector marks every pointer it holds on
// every cycle: a string or slice per token would be about 470,000 pointers for o200k_base, 15
// to 20 ms of CPU per cycle on a busy 2-core machine, where one with no tokenizer costs 0.5.
// The bytes of every token lie in one string, and what finds or names a token holds offsets
// into it (TestTokenizerHoldsFewPointers, BenchmarkGC).

// vocabList is a vocabulary (every token's bytes with its id, specials excluded) as one string
// and two arrays, in no particular order.
type vocabList struct {
	// text holds each token's bytes, one after another (and, past the last token's end, the
	// bytes of the tokenizer's specials, for the decoder).
	text string
	// ends[i] is where token i's bytes end in text; they begin where token i-1's end (0 for
	// the first).
	ends []uint32
	// ids[i] is token i's id.
	ids []uint32
}

// token returns the bytes and the id of the vocabulary's i-th token.
func (l *vocabList) token(i int) (string, uint32) {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]], l.ids[i]
}

// all yields every token's bytes with its id.
func (l *vocabList) all() iter.Seq2[string, uint32] {
	return func(yield func(string, uint32) bool) {
		for i := range l.ids {
			if !yield(l.token(i)) {
				return
			}
		}
	}
}

// tokenTexts is the decoder: the bytes of each id, as a span of a string.
type tokenTexts struct {
	text  string
	spans []tokenSpan // by id
}

// tokenSpan is where an id's bytes lie in tokenTexts.text; start is noSpan for an id that is
// no token.
type tokenSpan struct{ start, end uint32 }

// noSpan marks the span of an id that is no token.
const noSpan = math.MaxUint32

// at returns the bytes of an id, and whether it is a token.
func (d *tokenTexts) at(id int) (string, bool) {
	if id < 0 || id >= len(d.spans) || d.spans[id].start == noSpan {
		return "", false
	}
	sp := d.spans[id]
	return d.text[sp.start:sp.end], true
}

// newVocabTables lays out a vocabulary and its specials in one string: the vocabulary's list,
// and the decoder of every id to maxID (a special's bytes where an id is both).
func newVocabTables(name string, vocab, specials map[string]uint32, maxID uint32) (*vocabList, tokenTexts, error) {
	total := 0
	for text := range vocab {
		total += len(text)
	}
	for text := range specials {
		total += len(text)
	}
	if total > math.MaxUint32-1 {
		return nil, tokenTexts{}, fmt.Errorf("%s: the tokens' bytes come to %d, more than 4 GiB", name, total)
	}
	var b strings.Builder
	b.Grow(total)
	list := &vocabList{ends: make([]uint32, 0, len(vocab)), ids: make([]uint32, 0, len(vocab))}
	spans := make([]tokenSpan, maxID+1)
	for i := range spans {
		spans[i].start = noSpan
	}
	add := func(text string, id uint32) {
		start := uint32(b.Len())
		b.WriteString(text)
		spans[id] = tokenSpan{start, uint32(b.Len())}
	}
	for text, id := range vocab {
		add(text, id)
		list.ends = append(list.ends, uint32(b.Len()))
		list.ids = append(list.ids, id)
	}
	for text, id := range specials {
		if text != "" {
			add(text, id)
		}
	}
	list.text = b.String()
	return list, tokenTexts{text: list.text, spans: spans}, nil
}

// longIndex finds the tokens of more than maxShortToken bytes: an open-addressing table of
// their positions in a vocabList, by a hash of their first and last eight bytes and length,
// each hit verified against the list's bytes.
type longIndex struct {
	list  *vocabList
	slots []longSlot
	shift uint
}

// longSlot is one long token: entry is its index in the list plus one (0 marks an empty
// slot), tag the low half of its hash.
type longSlot struct {
	tag, entry uint32
}

// longHash hashes a string of eight bytes or more.
func longHash(s string) uint64 {
	h := le64(s, 0) ^ bits.RotateLeft64(le64(s, len(s)-8)*0xC2B2AE3D27D4EB4F, 31) ^ uint64(len(s))<<56
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>29
}

func newLongIndex(list *vocabList) longIndex {
	n := 0
	for i := range list.ids {
		if tok, _ := list.token(i); len(tok) > maxShortToken {
			n++
		}
	}
	size, shift := 1, uint(64)
	for size < 2*n+16 {
		size <<= 1
		shift--
	}
	ix := longIndex{list: list, slots: make([]longSlot, size), shift: shift}
	mask := uint64(size - 1)
	for i := range list.ids {
		tok, _ := list.token(i)
		if len(tok) <= maxShortToken {
			continue
		}
		h := longHash(tok)
		for at := h >> shift; ; at = (at + 1) & mask {
			if ix.slots[at].entry == 0 {
				ix.slots[at] = longSlot{tag: uint32(h), entry: uint32(i) + 1}
				break
			}
		}
	}
	return ix
}

// lookup returns the id of a token of more than maxShortToken bytes.
func (ix *longIndex) lookup(tok string) (uint32, bool) {
	h := longHash(tok)
	mask := uint64(len(ix.slots) - 1)
	for at := h >> ix.shift; ; at = (at + 1) & mask {
		s := ix.slots[at]
		if s.entry == 0 {
			return 0, false
		}
		if s.tag == uint32(h) {
			if text, id := ix.list.token(int(s.entry - 1)); text == tok {
				return id, true
			}
		}
	}
}

// tokens yields the bytes of every long token.
func (ix *longIndex) tokens() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, s := range ix.slots {
			if s.entry == 0 {
				continue
			}
			if text, _ := ix.list.token(int(s.entry - 1)); !yield(text) {
				return
			}
		}
	}
}
