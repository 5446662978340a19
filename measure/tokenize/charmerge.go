package tokenize

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// charMerger is the merger of the SentencePiece-shaped vocabularies (SPMTokenizer,
// CharBPETokenizer): "▁"-escaped text is split into its UTF-8 characters, then the adjacent
// pair that merges first is merged (the leftmost on ties) until none merges: by the rank of the
// pair in a merge list (Gemma 4's GGUF, a Hugging Face byte-fallback BPE), else by the score of
// the token their text makes (SentencePiece). A character that is no token is spelt as its
// bytes' tokens.
type charMerger struct {
	ids map[string]int32 // every token's text → id
	// merges, when not nil, merges by rank (left id<<32|right id → rank<<32|merged id);
	// else keys orders the merges: each token's key, the lowest for the highest score.
	merges *u64Table
	keys   []uint32
	// byteID is the token of each byte of a character that is no token (-1: dropped).
	byteID [256]int32
	ascii  [128]int32 // the token of each ASCII character, or -1
	// bytesFirst spells a character that is no token as its bytes' tokens before merging,
	// which may then merge (Hugging Face's byte_fallback); else it stays one symbol that
	// merges with nothing and is spelt after (llama.cpp).
	bytesFirst bool
	// spanners are the tokens that hold a "▁" right after another character. A word (from a
	// "▁" after another character to the next) is merged, and counted, on its own where no
	// spanner may be written across its start (nor a symbol of invalid UTF-8 run across it):
	// with at most maxSpanners tested against the text, with more against the character
	// before the "▁" (noCutAfter: the characters right before a "▁" in a spanner). cuts is
	// false where the loader proves nothing.
	cuts       bool
	spanners   []string
	noCutAfter map[rune]bool
}

// maxSpanners is the most spanners tested against the text.
const maxSpanners = 16

// mergeSymbol is one piece of the text being merged, from byte start of the escaped text to
// its right neighbour's start (start is -1 once merged into its left neighbour), linked to its
// neighbours (-1 at the ends), and the token it is (-1: none).
type mergeSymbol struct {
	start      int32
	prev, next int32
	id         int32
}

// mergePair is a candidate merge of symbol left and its right neighbour, which ends at end,
// into token id (stale once either has merged since); key orders the queue.
type mergePair struct {
	key  uint32
	left int32
	end  int32
	id   int32
}

// utf8SeqLen is the length llama.cpp gives a UTF-8 sequence by its first byte's high bits
// (a stray continuation byte is a symbol of its own).
var utf8SeqLen = [16]int32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}

// initMerger indexes the tokens (ids: text → id, texts: id → text) and finds the spanners
// when cuts may be proven.
func (m *charMerger) initMerger(ids map[string]int32, texts []string, cuts bool) {
	m.ids, m.cuts = ids, cuts
	for c := range m.ascii {
		m.ascii[c] = m.idOf([]byte{byte(c)})
	}
	if !cuts {
		return
	}
	noCut := map[rune]bool{}
	var spanners []string
	for _, text := range texts {
		prev, spans := '▁', false
		for _, r := range text {
			if r == '▁' && prev != '▁' {
				noCut[prev], spans = true, true
			}
			prev = r
		}
		if spans {
			spanners = append(spanners, text)
		}
	}
	if len(spanners) <= maxSpanners {
		m.spanners = spanners
	} else {
		m.noCutAfter = noCut
	}
}

// appendEscaped appends text to b with its spaces written "▁".
func appendEscaped(b []byte, text string) []byte {
	for {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			return append(b, text...)
		}
		b = append(append(b, text[:i]...), escapedSpace...)
		text = text[i+1:]
	}
}

// scoreKeys returns the merge keys of scores: the higher the score, the lower the key.
func scoreKeys(scores []float32) []uint32 {
	keys := make([]uint32, len(scores))
	for i, s := range scores {
		if s == 0 {
			s = 0 // -0 ties with 0
		}
		b := math.Float32bits(s)
		if b>>31 == 0 {
			b = ^b &^ (1 << 31)
		}
		keys[i] = b
	}
	return keys
}

// idOf returns the id of the token b, or -1.
func (m *charMerger) idOf(b []byte) int32 {
	if id, ok := m.ids[string(b)]; ok {
		return id
	}
	return -1
}

// encode appends the ids of escaped text, a word at a time where cuts are proven. When only
// the number of ids is wanted (s.counting) a word of 2 to 32 bytes is merged once per
// scratch and its count recalled from memo after that (the ids appended are then zeros).
func (m *charMerger) encode(dst []uint32, b []byte, s *runScratch) []uint32 {
	for lo := 0; lo < len(b); {
		hi := m.cutEnd(b, lo)
		c := b[lo:hi]
		lo = hi
		switch {
		case !s.counting || len(c) < 2 || len(c) > maxLongPiece:
			dst = m.merge(dst, c, s)
		case len(c) <= maxMemoPiece:
			dst = m.countShort(dst, c, s)
		default:
			dst = m.countLong(dst, c, s)
		}
	}
	return dst
}

// Bounds of runScratch.longMemo: its longest word, and how many it keeps before it is cleared.
const (
	maxLongPiece = 32
	longMemoKept = 1 << 14
)

// countShort appends as many zeros as word c of 2 to maxMemoPiece bytes has ids.
func (m *charMerger) countShort(dst []uint32, c []byte, s *runScratch) []uint32 {
	if s.memo == nil {
		s.memo = new(pieceMemo)
	}
	key0, key1 := packMemoKey(unsafe.String(&c[0], len(c)))
	slot := s.memo.slotOf(key0, key1)
	if slot.lo != key0 || slot.hi != key1 {
		n := len(dst)
		dst = m.merge(dst, c, s)
		*slot = memoSlot{lo: key0, hi: key1, count: uint32(len(dst) - n)}
		return dst
	}
	return append(dst, make([]uint32, slot.count)...)
}

// countLong appends as many zeros as a longer word c (a path, a timestamp) has ids.
func (m *charMerger) countLong(dst []uint32, c []byte, s *runScratch) []uint32 {
	if n, ok := s.longMemo[string(c)]; ok {
		return append(dst, make([]uint32, n)...)
	}
	if s.longMemo == nil || len(s.longMemo) >= longMemoKept {
		s.longMemo = map[string]uint32{}
	}
	n := len(dst)
	dst = m.merge(dst, c, s)
	s.longMemo[string(c)] = uint32(len(dst) - n)
	return dst
}

// cutEnd returns the end of the word of b that starts at lo: where no merge crosses.
func (m *charMerger) cutEnd(b []byte, lo int) int {
	if !m.cuts {
		return len(b)
	}
	p := wordEnd(b, lo, len(b))
	for p < len(b) && (m.spanned(b, p) || overrun(b, lo, p)) {
		p = wordEnd(b, p, len(b))
	}
	return p
}

// overrun says a symbol of b[lo:] that starts before p may run across p: a lead byte of
// invalid UTF-8 whose sequence length, as llama.cpp reads it, reaches past p.
func overrun(b []byte, lo, p int) bool {
	for k := 1; k <= 3 && p-k >= lo; k++ {
		if int(utf8SeqLen[b[p-k]>>4]) > k {
			return true
		}
	}
	return false
}

// spanned says a spanner may be written across the "▁" at p of b.
func (m *charMerger) spanned(b []byte, p int) bool {
	if m.noCutAfter != nil {
		r, _ := utf8.DecodeLastRune(b[:p])
		return m.noCutAfter[r]
	}
	for _, v := range m.spanners {
		for j := 1; j < len(v); j++ {
			if strings.HasPrefix(v[j:], escapedSpace) && p-j >= 0 && p-j+len(v) <= len(b) && string(b[p-j:p-j+len(v)]) == v {
				return true
			}
		}
	}
	return false
}

// wordEnd returns the end of the word of escaped text that starts at lo: the first "▁" after
// lo that follows another character, or hi.
func wordEnd(b []byte, lo, hi int) int {
	for p := lo + 1; p+len(escapedSpace) <= hi; {
		k := bytes.Index(b[p:hi], []byte(escapedSpace))
		if k < 0 {
			break
		}
		if p += k; p-lo < len(escapedSpace) || string(b[p-len(escapedSpace):p]) != escapedSpace {
			return p
		}
		p += len(escapedSpace)
	}
	return hi
}

// merge appends the ids of escaped text b merged as one word.
func (m *charMerger) merge(dst []uint32, b []byte, s *runScratch) []uint32 {
	if len(b) == 0 {
		return dst
	}
	if cap(s.syms) < len(b) { // a symbol a byte at most: one allocation, not a doubling series
		s.syms, s.heap = make([]mergeSymbol, 0, len(b)), make([]mergePair, 0, len(b))
	}
	syms := m.symbols(s.syms[:0], b)
	s.syms = syms
	h := s.heap[:0]
	for i := int32(1); i < int32(len(syms)); i++ {
		h = m.tryMerge(h, syms, b, i-1, i)
	}
	for len(h) > 0 {
		var top mergePair
		top, h = mergePop(h)
		l := &syms[top.left]
		if l.start < 0 || l.next < 0 || symbolEnd(syms, l.next, b) != top.end {
			continue // one of the two was merged since
		}
		r := &syms[l.next]
		l.id, l.next, r.start = top.id, r.next, -1
		if r.next >= 0 {
			syms[r.next].prev = top.left
		}
		h = m.tryMerge(h, syms, b, l.prev, top.left)
		h = m.tryMerge(h, syms, b, top.left, l.next)
	}
	s.heap = h
	for i := int32(0); i >= 0; i = syms[i].next {
		if id := syms[i].id; id >= 0 {
			dst = append(dst, uint32(id))
			continue
		}
		for _, c := range b[syms[i].start:symbolEnd(syms, i, b)] {
			if id := m.byteID[c]; id >= 0 {
				dst = append(dst, uint32(id))
			}
		}
	}
	return dst
}

// symbols splits escaped text into its UTF-8 characters, each with its token, linked in
// order; with bytesFirst a character that is no token is its bytes' tokens.
func (m *charMerger) symbols(syms []mergeSymbol, b []byte) []mergeSymbol {
	for off := int32(0); off < int32(len(b)); {
		n, id := int32(1), int32(-1)
		if c := b[off]; c < utf8.RuneSelf {
			id = m.ascii[c]
		} else {
			n = min(utf8SeqLen[c>>4], int32(len(b))-off)
			id = m.idOf(b[off : off+n])
		}
		if id < 0 && m.bytesFirst {
			for k := off; k < off+n; k++ {
				syms = append(syms, mergeSymbol{start: k, id: m.byteID[b[k]]})
			}
		} else {
			syms = append(syms, mergeSymbol{start: off, id: id})
		}
		off += n
	}
	for i := range syms {
		syms[i].prev, syms[i].next = int32(i-1), int32(i+1)
	}
	syms[len(syms)-1].next = -1
	return syms
}

// symbolEnd returns where symbol i of b ends: at its right neighbour's start.
func symbolEnd(syms []mergeSymbol, i int32, b []byte) int32 {
	if j := syms[i].next; j >= 0 {
		return syms[j].start
	}
	return int32(len(b))
}

// tryMerge queues the merge of symbols left and right: by rank when their pair is in the
// merge list, else by score when their text is a token.
func (m *charMerger) tryMerge(h []mergePair, syms []mergeSymbol, b []byte, left, right int32) []mergePair {
	if left < 0 || right < 0 {
		return h
	}
	l, r := &syms[left], &syms[right]
	p := mergePair{left: left, end: symbolEnd(syms, right, b)}
	if m.merges == nil {
		id, ok := m.ids[string(b[l.start:p.end])]
		if !ok {
			return h
		}
		p.key, p.id = m.keys[id], id
		return mergePush(h, p)
	}
	if l.id < 0 || r.id < 0 {
		return h
	}
	v, ok := m.merges.get(uint64(l.id)<<32 | uint64(r.id))
	if !ok {
		return h
	}
	p.key, p.id = uint32(v>>32), int32(uint32(v))
	return mergePush(h, p)
}

// mergeBefore orders the merge queue: the lowest key first, then the leftmost.
func mergeBefore(a, b mergePair) bool {
	return a.key < b.key || a.key == b.key && a.left < b.left
}

func mergePush(h []mergePair, x mergePair) []mergePair {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !mergeBefore(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

func mergePop(h []mergePair) (mergePair, []mergePair) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && mergeBefore(h[c+1], h[c]) {
			c++
		}
		if !mergeBefore(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top, h
}
