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
	// spanner may be written across its start: with at most maxSpanners tested against the
	// text, with more against the character before the "▁" (noCutAfter: the characters
	// right before a "▁" in a spanner). cuts is false where the loader proves nothing.
	cuts       bool
	spanners   []string
	noCutAfter map[rune]bool
}

// maxSpanners is the most spanners tested against the text.
const maxSpanners = 16

// mergeSymbol is one piece of the text being merged: bytes [start, start+n) of the escaped
// text, linked to its neighbours (-1 at the ends), the token it is (-1: none); n is 0 once
// merged into its left neighbour.
type mergeSymbol struct {
	start, n   int32
	prev, next int32
	id         int32
}

// mergePair is a candidate merge of adjacent symbols left and right, of size bytes in all,
// into token id; key orders the queue.
type mergePair struct {
	key         uint32
	left, right int32
	size        int32
	id          int32
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
// the number of ids is wanted (s.counting) a word of 2 to 15 bytes is merged once per
// scratch and its count recalled from memo after that (the ids appended are then zeros).
func (m *charMerger) encode(dst []uint32, b []byte, s *runScratch) []uint32 {
	for lo := 0; lo < len(b); {
		hi := m.cutEnd(b, lo)
		c := b[lo:hi]
		lo = hi
		if !s.counting || len(c) < 2 || len(c) > maxMemoPiece {
			dst = m.merge(dst, c, s)
			continue
		}
		if s.memo == nil {
			s.memo = new(pieceMemo)
		}
		key0, key1 := packMemoKey(unsafe.String(&c[0], len(c)))
		slot := s.memo.slotOf(key0, key1)
		if slot.lo != key0 || slot.hi != key1 {
			n := len(dst)
			dst = m.merge(dst, c, s)
			*slot = memoSlot{lo: key0, hi: key1, count: uint32(len(dst) - n)}
			continue
		}
		for range slot.count {
			dst = append(dst, 0)
		}
	}
	return dst
}

// cutEnd returns the end of the word of b that starts at lo: where no merge crosses.
func (m *charMerger) cutEnd(b []byte, lo int) int {
	if !m.cuts {
		return len(b)
	}
	p := wordEnd(b, lo, len(b))
	for p < len(b) && m.spanned(b, p) {
		p = wordEnd(b, p, len(b))
	}
	return p
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
	syms := m.symbols(s.syms[:0], b)
	s.syms = syms
	h := s.heap[:0]
	for i := int32(1); i < int32(len(syms)); i++ {
		h = m.tryMerge(h, syms, b, i-1, i)
	}
	for len(h) > 0 {
		var top mergePair
		top, h = mergePop(h)
		l, r := &syms[top.left], &syms[top.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != top.size {
			continue // one of the two was merged since
		}
		l.n += r.n
		l.id = top.id
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = top.left
		}
		h = m.tryMerge(h, syms, b, l.prev, top.left)
		h = m.tryMerge(h, syms, b, top.left, l.next)
	}
	s.heap = h
	for _, sym := range syms {
		if sym.n == 0 {
			continue
		}
		if sym.id >= 0 {
			dst = append(dst, uint32(sym.id))
			continue
		}
		for _, c := range b[sym.start : sym.start+sym.n] {
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
				syms = append(syms, mergeSymbol{start: k, n: 1, id: m.byteID[b[k]]})
			}
		} else {
			syms = append(syms, mergeSymbol{start: off, n: n, id: id})
		}
		off += n
	}
	for i := range syms {
		syms[i].prev, syms[i].next = int32(i-1), int32(i+1)
	}
	syms[len(syms)-1].next = -1
	return syms
}

// tryMerge queues the merge of symbols left and right: by rank when their pair is in the
// merge list, else by score when their text is a token.
func (m *charMerger) tryMerge(h []mergePair, syms []mergeSymbol, b []byte, left, right int32) []mergePair {
	if left < 0 || right < 0 {
		return h
	}
	l, r := &syms[left], &syms[right]
	p := mergePair{left: left, right: right, size: l.n + r.n}
	if m.merges == nil {
		id, ok := m.ids[string(b[l.start:l.start+p.size])]
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
