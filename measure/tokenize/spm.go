package tokenize

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"
)

// SPMTokenizer is a SentencePiece vocabulary as llama.cpp runs it (`tokenizer.ggml.model`
// "llama": Llama 2, Phi-3, Baichuan, Gemma 3, …): spaces become "▁", a "▁" is put in front of
// each text that follows a special token or starts the prompt (add_space_prefix), the pair of
// adjacent pieces whose merge is the token of highest score is merged first, and what forms no
// token is spelt as its bytes' <0xXX> tokens. It is safe for concurrent use.
type SPMTokenizer struct {
	vocabFrame
	ids    map[string]int32 // every token's text → id
	scores []float32
	// byteID is the token of each byte where no token spells a symbol: <0xXX>, else the byte
	// itself, else the unknown token (-1: dropped).
	byteID      [256]int32
	spacePrefix bool
	// merges, when not nil, makes this the SentencePiece-shaped BPE of Gemma 4 (llama.cpp's
	// "gemma4" model): adjacent symbols merge by the rank of their pair in the merge list
	// (left id<<32|right id → rank<<32|merged id), lowest first, never across a newline; a
	// run of newlines that is a token is that token; a byte without a <0xXX> token is dropped.
	merges *u64Table
	// wordCuts says at most maxSpanners tokens hold a "▁" right after another character
	// (spanners; Gemma 4 has one, ">▁</"): no merge crosses the start of a word where none of
	// them is written across it, and each word is merged (and counted) on its own.
	wordCuts bool
	spanners []string
}

// maxSpanners is the most tokens across a word's start that wordCuts checks for.
const maxSpanners = 16

// spmSymbol is one piece of the text being merged: bytes [start, start+n) of the escaped
// text, linked to its neighbours (-1 at the ends); n is 0 once merged into its left neighbour.
type spmSymbol struct {
	start, n   int32
	prev, next int32
	id         int32 // the token the symbol is (-1: none), kept in merge-rank mode only
}

// spmBigram is a candidate merge of two adjacent symbols into a token of that score.
type spmBigram struct {
	score       float32
	left, right int32
	size        int32
	id          int32 // the merged token in merge-rank mode
}

// spmVocab is what a vocabulary source hands to newSPMTokenizer.
type spmVocab struct {
	name        string
	tokens      []string
	scores      []float32
	types       []int32 // nil: every token normal
	unkID       int32
	bosID       int32 // -1: no BOS is added
	spacePrefix bool
	// rstripSpecials makes every special token but <unk>, <s> and <|endoftext|> take the white
	// space after it (llama.cpp does so for models named Phi-3).
	rstripSpecials bool
	// merges, when not nil, are the merge list of a merge-rank vocabulary (Gemma 4), each
	// "left right".
	merges []string
}

// llama.cpp token types beyond those of vocab_gguf.go.
const (
	ggufTokenUnknown = 2
	ggufTokenByte    = 6
)

func newSPMTokenizer(v spmVocab) (*SPMTokenizer, error) {
	n := len(v.tokens)
	if len(v.scores) < n {
		return nil, fmt.Errorf("%s: %d scores for %d tokens", v.name, len(v.scores), n)
	}
	t := &SPMTokenizer{ids: make(map[string]int32, n), scores: v.scores[:n], spacePrefix: v.spacePrefix}
	var rstrip func(string) bool
	if v.rstripSpecials {
		rstrip = func(text string) bool { return text != "<unk>" && text != "<s>" && text != "<|endoftext|>" }
	}
	t.init(v.name, v.tokens, v.types, rstrip)
	for id, text := range t.texts {
		t.ids[text] = int32(id)
		if strings.Contains(strings.TrimLeft(text, escapedSpace), escapedSpace) {
			t.spanners = append(t.spanners, text)
		}
	}
	t.wordCuts = len(t.spanners) <= maxSpanners
	t.run = func(dst []uint32, text string, afterSpecial bool, s *runScratch) []uint32 {
		return t.encodeRun(dst, text, t.spacePrefix && afterSpecial, s)
	}
	if v.unkID < 0 || int(v.unkID) >= n {
		v.unkID = -1
	}
	if v.merges != nil {
		if err := t.setMerges(v.merges); err != nil {
			return nil, err
		}
	}
	for b := range 256 {
		id, ok := t.ids[fmt.Sprintf("<0x%02X>", b)]
		if !ok && t.merges == nil {
			id, ok = t.ids[string([]byte{byte(b)})]
		}
		switch {
		case ok:
		case t.merges != nil:
			id = -1 // llama.cpp's BPE drops a byte it cannot spell
		case v.unkID < 0:
			return nil, fmt.Errorf("%s: byte 0x%02x has neither a <0x%02X> token nor an unknown token to fall back on", v.name, b, b)
		default:
			id = v.unkID
		}
		t.byteID[b] = id
	}
	if v.bosID >= 0 {
		if int(v.bosID) >= n {
			return nil, fmt.Errorf("%s: BOS token %d is out of the vocabulary's %d tokens", v.name, v.bosID, n)
		}
		t.bos = t.texts[v.bosID]
	}
	return t, nil
}

// utf8SeqLen is the length llama.cpp gives a UTF-8 sequence by its first byte's high bits
// (a stray continuation byte is a symbol of its own).
var utf8SeqLen = [16]int32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}

// encodeRun appends the ids of one run of ordinary text.
func (t *SPMTokenizer) encodeRun(dst []uint32, text string, prefix bool, s *runScratch) []uint32 {
	b := t.escape(s.buf[:0], text, prefix)
	s.buf = b
	for lo := 0; lo < len(b); {
		hi := t.chunkEnd(b, lo)
		dst = t.encodeChunk(dst, b[lo:hi], s)
		lo = hi
	}
	return dst
}

// chunkEnd returns the end of the chunk of the escaped text b that starts at lo: no merge
// crosses a chunk's end. In merge-rank mode a chunk is a run of newlines or of other
// characters; with wordCuts a chunk ends before each "▁" that follows another character and
// that no spanner is written across; else the text is one chunk.
func (t *SPMTokenizer) chunkEnd(b []byte, lo int) int {
	hi := len(b)
	if t.merges != nil {
		nl := b[lo] == '\n'
		for i := lo + 1; i < hi; i++ {
			if (b[i] == '\n') != nl {
				hi = i
				break
			}
		}
		if nl {
			return hi
		}
	}
	if !t.wordCuts {
		return hi
	}
	p := wordEnd(b, lo, hi)
	for p < hi && t.spanned(b, p) {
		p = wordEnd(b, p, hi)
	}
	return p
}

// spanned says a spanner is written across the word start at p of b.
func (t *SPMTokenizer) spanned(b []byte, p int) bool {
	for _, v := range t.spanners {
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

// encodeChunk appends the ids of one chunk; when only the number of ids is wanted
// (s.counting) a chunk of 2 to 15 bytes is counted once per scratch and recalled from its
// memo after that (the ids appended are then zeros).
func (t *SPMTokenizer) encodeChunk(dst []uint32, c []byte, s *runScratch) []uint32 {
	if !s.counting || len(c) < 2 || len(c) > maxMemoPiece {
		return t.mergeChunk(dst, c, s)
	}
	if s.memo == nil {
		s.memo = new(pieceMemo)
	}
	lo, hi := packMemoKey(unsafe.String(&c[0], len(c)))
	slot := s.memo.slotOf(lo, hi)
	if slot.lo != lo || slot.hi != hi {
		n := len(dst)
		dst = t.mergeChunk(dst, c, s)
		*slot = memoSlot{lo: lo, hi: hi, count: uint32(len(dst) - n)}
		return dst
	}
	for range slot.count {
		dst = append(dst, 0)
	}
	return dst
}

// mergeChunk appends the ids of one chunk of escaped text by merging its symbols.
func (t *SPMTokenizer) mergeChunk(dst []uint32, b []byte, s *runScratch) []uint32 {
	syms := t.symbols(s.syms[:0], b)
	s.syms = syms
	h := s.heap[:0]
	for i := int32(1); i < int32(len(syms)); i++ {
		h = t.tryMerge(h, syms, b, i-1, i)
	}
	for len(h) > 0 {
		var top spmBigram
		top, h = spmPop(h)
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
		h = t.tryMerge(h, syms, b, l.prev, top.left)
		h = t.tryMerge(h, syms, b, top.left, l.next)
	}
	s.heap = h
	for _, sym := range syms {
		if sym.n == 0 {
			continue
		}
		id, ok := sym.id, sym.id >= 0
		if t.merges == nil {
			id, ok = t.ids[string(b[sym.start:sym.start+sym.n])]
		}
		if ok {
			dst = append(dst, uint32(id))
			continue
		}
		for _, c := range b[sym.start : sym.start+sym.n] {
			if id := t.byteID[c]; id >= 0 {
				dst = append(dst, uint32(id))
			}
		}
	}
	return dst
}

// escape appends text to b with its spaces as "▁", after a "▁" when prefix is set; in
// merge-rank mode each byte of invalid UTF-8 becomes U+FFFD, as llama.cpp's BPE splitter
// re-encodes the text.
func (t *SPMTokenizer) escape(b []byte, text string, prefix bool) []byte {
	if prefix {
		b = append(b, escapedSpace...)
	}
	if t.merges != nil {
		text = InvalidBytesAsRune(text)
	}
	for {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			return append(b, text...)
		}
		b = append(append(b, text[:i]...), escapedSpace...)
		text = text[i+1:]
	}
}

// symbols splits a chunk of escaped text into its UTF-8 characters, linked in order. In
// merge-rank mode a chunk of newlines that is a token is one symbol, and each symbol knows its
// token.
func (t *SPMTokenizer) symbols(syms []spmSymbol, b []byte) []spmSymbol {
	if t.merges != nil && b[0] == '\n' {
		if id := t.idOf(b); id >= 0 {
			return append(syms, spmSymbol{start: 0, n: int32(len(b)), prev: -1, next: -1, id: id})
		}
	}
	for off := int32(0); off < int32(len(b)); {
		n := min(utf8SeqLen[b[off]>>4], int32(len(b))-off)
		k := int32(len(syms))
		sym := spmSymbol{start: off, n: n, prev: k - 1, next: k + 1, id: -1}
		if t.merges != nil {
			sym.id = t.idOf(b[off : off+n])
		}
		syms = append(syms, sym)
		off += n
	}
	syms[len(syms)-1].next = -1
	return syms
}

// idOf returns the id of the token b, or -1.
func (t *SPMTokenizer) idOf(b []byte) int32 {
	if id, ok := t.ids[string(b)]; ok {
		return id
	}
	return -1
}

// tryMerge queues the merge of symbols left and right: in merge-rank mode when their pair is
// in the merge list, else when their text is a token.
func (t *SPMTokenizer) tryMerge(h []spmBigram, syms []spmSymbol, b []byte, left, right int32) []spmBigram {
	if left < 0 || right < 0 {
		return h
	}
	start, size := syms[left].start, syms[left].n+syms[right].n
	if t.merges != nil {
		l, r := syms[left].id, syms[right].id
		if l < 0 || r < 0 {
			return h
		}
		v, ok := t.merges.get(uint64(l)<<32 | uint64(r))
		if !ok {
			return h
		}
		// ranks are below 2^24, exact as float32: the lowest rank is the highest score
		return spmPush(h, spmBigram{score: -float32(v >> 32), left: left, right: right, size: size, id: int32(uint32(v))})
	}
	id, ok := t.ids[string(b[start:start+size])]
	if !ok {
		return h
	}
	return spmPush(h, spmBigram{score: t.scores[id], left: left, right: right, size: size, id: -1})
}

// setMerges builds the merge table of a merge-rank vocabulary from its "left right" merges
// (split at the first space after the first byte, as llama.cpp does).
func (t *SPMTokenizer) setMerges(merges []string) error {
	if len(merges) >= 1<<24 {
		return fmt.Errorf("%s: %d merges, more than ranks as float32 hold", t.name, len(merges))
	}
	t.merges = newU64Table(len(merges))
	for i, m := range merges {
		cut := strings.IndexByte(m[min(1, len(m)):], ' ') + 1
		if cut <= 0 {
			return fmt.Errorf("%s: merge %d %q has no space", t.name, i, m)
		}
		l, okL := t.ids[m[:cut]]
		r, okR := t.ids[m[cut+1:]]
		id, okM := t.ids[m[:cut]+m[cut+1:]]
		if !okL || !okR || !okM {
			continue // a merge of no token never applies: llama.cpp's symbols are tokens or single characters
		}
		if _, seen := t.merges.get(uint64(l)<<32 | uint64(r)); !seen {
			t.merges.put(uint64(l)<<32|uint64(r), uint64(i)<<32|uint64(uint32(id)))
		}
	}
	return nil
}

// spmBefore orders the merge queue: the highest score first, then the leftmost.
func spmBefore(a, b spmBigram) bool {
	return a.score > b.score || a.score == b.score && a.left < b.left
}

func spmPush(h []spmBigram, x spmBigram) []spmBigram {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !spmBefore(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

func spmPop(h []spmBigram) (spmBigram, []spmBigram) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && spmBefore(h[c+1], h[c]) {
			c++
		}
		if !spmBefore(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top, h
}
