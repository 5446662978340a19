package tokenize

import (
	"math"
	"math/bits"
	"sync"
)

// bpeMode says how a pair of adjacent parts is ranked during merging.
type bpeMode uint8

const (
	// rankByConcatenation is tiktoken's rule: two adjacent parts may merge when their
	// concatenated bytes are a token, and the token's id is the merge rank.
	rankByConcatenation bpeMode = iota
	// rankByMergeList is Hugging Face's rule: two adjacent parts may merge only when the
	// pair (left id, right id) is in the merges list; the rank is the list position.
	rankByMergeList
)

// bpeEngine is a byte-level BPE: it splits one pre-tokenized piece into token ids. It is
// read-only after construction and safe for concurrent use.
//
// Merging is the classic lowest-rank-first rule (leftmost on ties), which is what tiktoken and
// Hugging Face tokenizers both do. Short pieces use a linear scan over a small array (fast for
// the usual few-byte piece); long pieces switch to a binary heap over a linked list, so a
// 100,000-letter piece costs O(n log n) instead of O(n²).
type bpeEngine struct {
	mode bpeMode
	// vocab lists every byte-level token's bytes with its id, specials excluded.
	vocab *vocabList
	// index finds multi-byte tokens fast (built from vocab).
	index *tokenIndex
	// merges maps left<<32|right to rank<<32|merged id (rankByMergeList only).
	merges *u64Table
	// byteID is the id of each single-byte token; byteOK says whether that byte has one.
	byteID [256]uint32
	byteOK [256]bool
	// wholePieceFirst looks the whole piece up in the vocabulary before merging (tiktoken
	// always does; Hugging Face does when the model sets ignore_merges).
	wholePieceFirst bool
	// b64Counts holds the token counts of every piece of two or three base64 characters,
	// filled on first use (see countB64Short).
	b64Once   sync.Once
	b64Counts *b64ShortCounts
}

// b64ShortCounts are the token counts of every piece of two or three characters of the base64
// alphabet (A–Z, a–z, 0–9, '+', '/'), indexed by their 6-bit codes; 0 marks a piece the
// vocabulary cannot encode. Random base64 splits into short letter runs, and 56% of the pieces
// the piece memo misses there have two or three bytes: this table answers them all, in 260 KB,
// and leaves the memo to the longer ones.
type b64ShortCounts struct {
	two   [1 << 12]uint8
	three [1 << 18]uint8
	// pairRank is the rank of each two-character base64 token (noRank: no token), and
	// tripleTok a bit per three-character piece that is a token: what countB64Four needs
	// besides the whole piece (rankByConcatenation only).
	pairRank  [1 << 12]uint32
	tripleTok [1 << 18 / 64]uint64
	// tripleIDs are the ids of the three-character tokens in the order of their codes, and
	// tripleBase[w] how many of them come before word w of tripleTok: the rank of a triple is
	// read with a count of the bits before it (tripleRank), from 100 KB or so, where a table of
	// every triple took 1 MB and missed the cache in the merge.
	tripleIDs  []uint32
	tripleBase [1 << 18 / 64]uint32
	// bytesOK says every byte of the alphabet is a token.
	bytesOK bool
	// longTok is a filter of the tokens of more than maxShortToken base64 characters (a bit per
	// hash of their length and first eight bytes, see b64LongBit): a clear bit proves a span is
	// no token without the map look-up.
	longTok [1 << 16 / 64]uint64
	// tokens are the tokens of minB64Token to maxB64Token base64 characters (newB64TokenSet).
	tokens *b64TokenSet
}

// b64Code maps a byte to its 6-bit base64 code, or 0xff.
var b64Code = func() (t [256]uint8) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = uint8(i)
	}
	return t
}()

// countB64Short returns the token count of a piece of two or three base64 characters; ok is
// false for any other piece.
func (e *bpeEngine) countB64Short(piece string) (int, bool) {
	if len(piece) != 2 && len(piece) != 3 {
		return 0, false
	}
	var code uint32
	for i := 0; i < len(piece); i++ {
		c := b64Code[piece[i]]
		if c == 0xff {
			return 0, false
		}
		code = code<<6 | uint32(c)
	}
	e.b64Once.Do(e.fillB64Counts)
	var n uint8
	if len(piece) == 2 {
		n = e.b64Counts.two[code]
	} else {
		n = e.b64Counts.three[code]
	}
	return int(n), n != 0
}

// tripleRank returns the rank of the three-character base64 token with the given codes (the
// first highest), or noRank.
func (t *b64ShortCounts) tripleRank(code uint32) uint32 {
	w, bit := code>>6, code&63
	word := t.tripleTok[w]
	// Read without a branch (a triple is a token at random): a triple that is none reads
	// the next token's id, or the sentinel after the last, and gets noRank.
	id := t.tripleIDs[t.tripleBase[w]+uint32(bits.OnesCount64(word&(1<<bit-1)))]
	if word>>bit&1 == 0 {
		id = noRank
	}
	return id
}

// countB64Four returns the token count of a piece of four base64 characters under tiktoken's
// rule (rankByConcatenation, the whole piece looked up first), without merging; ok is false for
// any other piece or rule. TestB64FourEqualsMerging compares it with the merge on all 64⁴
// pieces. With the bytes a, b, c, d, all of them tokens:
//
//   - the whole piece is a token: 1;
//   - no pair ab, bc, cd is a token: 4;
//   - else the pair of lowest rank merges first (the leftmost on equal ranks, which only equal
//     pairs have), and one more merge happens, leaving 2 parts, exactly when a pair is left
//     that is a token: after ab, abc or cd; after bc, abc or bcd; after cd, ab or bcd. The
//     part it makes is abc, bcd or ab+cd, never the whole piece, which is no token, so no
//     third merge can follow. Otherwise 3.
func (e *bpeEngine) countB64Four(piece string) (int, bool) {
	if len(piece) != 4 || e.mode != rankByConcatenation || !e.wholePieceFirst {
		return 0, false
	}
	a, b, c, d := b64Code[piece[0]], b64Code[piece[1]], b64Code[piece[2]], b64Code[piece[3]]
	if (a|b|c|d)&0xc0 != 0 { // a byte outside the alphabet (code 0xff)
		return 0, false
	}
	e.b64Once.Do(e.fillB64Counts)
	t := e.b64Counts
	if !t.bytesOK {
		return 0, false
	}
	return t.countFour(uint32(a), uint32(b), uint32(c), uint32(d)), true
}

// countFour is countB64Four of the piece with the codes a, b, c, d, all of whose bytes are
// tokens, under tiktoken's rule; past the look-up of the whole piece it takes no branch (the
// pairs' ranks are random), with the comparisons as the sign of a difference.
func (t *b64ShortCounts) countFour(a, b, c, d uint32) int {
	if _, ok := t.tokens.id(uint64(a)|uint64(b)<<6|uint64(c)<<12|uint64(d)<<18, 4); ok {
		return 1
	}
	ab, bc, cd := uint64(t.pairRank[a<<6|b]), uint64(t.pairRank[b<<6|c]), uint64(t.pairRank[c<<6|d])
	abc, bcd := t.tripleTok[a<<6|b]>>c&1, t.tripleTok[b<<6|c]>>d&1
	less := func(x, y uint64) uint64 { return (x - y) >> 63 } // x < y, both under 1<<32
	abTok, bcTok, cdTok := less(ab, noRank), less(bc, noRank), less(cd, noRank)
	abFirst := (1 - less(bc, ab)) & (1 - less(cd, ab)) // the lowest, the leftmost on ties
	bcFirst := (1 - abFirst) & (1 - less(cd, bc))
	cdFirst := (1 - abFirst) & (1 - bcFirst)
	second := abFirst&(abc|cdTok) | bcFirst&(abc|bcd) | cdFirst&(abTok|bcd)
	merged := abTok | bcTok | cdTok
	return int(4 - merged - merged&second)
}

// isB64 says every byte of s is a base64 character.
func isB64(s string) bool {
	for i := 0; i < len(s); i++ {
		if b64Code[s[i]] == 0xff {
			return false
		}
	}
	return true
}

// b64LongBit is the bit of b64Counts.longTok of a string of eight bytes or more.
func b64LongBit(s string) uint32 {
	h := (le64(s, 0) ^ uint64(len(s))<<58) * 0x9E3779B97F4A7C15
	return uint32(h >> 48)
}

// lookupB64 is index.lookup for a span of base64 characters, with the long tokens filtered
// by b64Counts.longTok first.
func (e *bpeEngine) lookupB64(span string) (uint32, bool) {
	if len(span) > maxShortToken {
		if bit := b64LongBit(span); e.b64Counts.longTok[bit>>6]>>(bit&63)&1 == 0 {
			return 0, false
		}
	}
	return e.index.lookup(span)
}

// b64BytesOK says every base64 character has a byte token.
func (e *bpeEngine) b64BytesOK() bool {
	for c := range 256 {
		if b64Code[c] != 0xff && !e.byteOK[c] {
			return false
		}
	}
	return true
}

// fillB64Counts counts every two- and three-character base64 piece once.
//
// Under tiktoken's rule with a byte token for every base64 character (b64CountsByRule) the
// counts follow from which spans are tokens, without merging: a piece of two is 1 token when it
// is one, else 2; a piece of three is 1 when it is a token, else 2 when one of its pairs is (the
// lowest-ranked pair merges, and the two parts left would make the whole piece, no token), else
// 3. Any other rule merges each piece (TestB64ShortCountsEqualMerging holds both to merging).
func (e *bpeEngine) fillB64Counts() {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	t := new(b64ShortCounts)
	s := new(bpeScratch)
	t.bytesOK = e.b64BytesOK()
	byRule := t.bytesOK && e.mode == rankByConcatenation && e.wholePieceFirst
	var buf [3]byte
	for i := 0; i < 64; i++ {
		for j := 0; j < 64; j++ {
			buf[0], buf[1] = alphabet[i], alphabet[j]
			t.pairRank[i<<6|j] = noRank
			id, pairOK := e.index.lookup(string(buf[:2]))
			if pairOK && e.mode == rankByConcatenation {
				t.pairRank[i<<6|j] = id
			}
			switch {
			case byRule && pairOK:
				t.two[i<<6|j] = 1
			case byRule:
				t.two[i<<6|j] = 2
			default:
				if n, ok := e.countPieceUncached(string(buf[:2]), s); ok {
					t.two[i<<6|j] = uint8(n)
				}
			}
		}
	}
	for i := 0; i < 64; i++ {
		for j := 0; j < 64; j++ {
			buf[0], buf[1] = alphabet[i], alphabet[j]
			for k := 0; k < 64; k++ {
				buf[2] = alphabet[k]
				code := i<<12 | j<<6 | k
				id, ok := e.index.lookup(string(buf[:3]))
				if ok {
					t.tripleTok[code>>6] |= 1 << (k & 63)
					t.tripleIDs = append(t.tripleIDs, id)
				}
				switch {
				case byRule && ok:
					t.three[code] = 1
				case byRule && (t.pairRank[i<<6|j] != noRank || t.pairRank[j<<6|k] != noRank):
					t.three[code] = 2
				case byRule:
					t.three[code] = 3
				default:
					if n, ok := e.countPieceUncached(string(buf[:3]), s); ok {
						t.three[code] = uint8(n)
					}
				}
			}
		}
	}
	t.tripleIDs = append(t.tripleIDs, noRank) // the sentinel tripleRank may read
	for w, count := 0, 0; w < len(t.tripleTok); w++ {
		t.tripleBase[w] = uint32(count)
		count += bits.OnesCount64(t.tripleTok[w])
	}
	t.tokens = newB64TokenSet(e.vocab.all())
	for tok := range e.index.long.tokens() {
		if isB64(tok) {
			bit := b64LongBit(tok)
			t.longTok[bit>>6] |= 1 << (bit & 63)
		}
	}
	e.b64Counts = t
}

// noRank marks a pair that cannot merge.
const noRank = math.MaxUint32

// heapThreshold is the piece length (bytes) from which the heap merge is used.
const heapThreshold = 128

// bpeScratch holds reusable buffers for one goroutine's merging.
type bpeScratch struct {
	start  []int32  // start offset of each part (plus a sentinel at the end for the scan)
	ids    []uint32 // id of each part
	ranks  []uint32 // rank of merging part i with part i+1
	merged []uint32 // id of the token that merging part i with part i+1 makes
	out    []uint32 // output buffer of countPiece
	// heap merge
	next, prev []int32
	version    []uint32
	heap       []heapItem
	// memo remembers the token counts of recent short pieces (see countPiece); nil until the
	// first use.
	memo *pieceMemo
}

// Piece memo: a direct-mapped table of the token counts of short pieces (2 to 15 bytes). Text
// repeats its pieces (English words, log fields, the short letter runs of base64), and a memo
// hit skips the whole-piece lookup and the merge. One memo per scratch (per goroutine at a
// time) and per tokenizer, so it needs no lock; it holds counts only, so Encode ignores it.
const (
	memoBits     = 13
	maxMemoPiece = 15
)

// pieceMemo is the memo's table; a slot's key is the piece's bytes packed in two words with
// its length in the top byte (0 marks an empty slot).
type pieceMemo [1 << memoBits]memoSlot

type memoSlot struct {
	lo, hi uint64
	count  uint32
}

// packMemoKey packs a piece of 2 to 15 bytes into two words: bytes 0–7 in lo, bytes 8–14 and
// the length in hi.
func packMemoKey(piece string) (lo, hi uint64) {
	n := len(piece)
	if n >= 8 {
		lo, hi = le64(piece, 0), loadUpTo8(piece[8:])
	} else {
		lo = loadUpTo8(piece)
	}
	return lo, hi | uint64(n)<<56
}

// loadUpTo8 reads a string of at most eight bytes as a little-endian word, with two loads that
// overlap where its length is no power of two (the bytes both read are the same).
func loadUpTo8(s string) uint64 {
	switch n := len(s); {
	case n >= 4:
		return uint64(le32(s, 0)) | uint64(le32(s, n-4))<<(8*(n-4))
	case n >= 2:
		return uint64(le16(s, 0)) | uint64(le16(s, n-2))<<(8*(n-2))
	case n == 1:
		return uint64(s[0])
	}
	return 0
}

// memoSlotOf returns the slot of a packed key.
func (m *pieceMemo) slotOf(lo, hi uint64) *memoSlot { return &m[memoIndex(lo, hi)] }

// memoIndex is the slot of a packed key in a memo of 1<<memoBits slots.
func memoIndex(lo, hi uint64) uint64 {
	return (lo ^ hi*0xC2B2AE3D27D4EB4F) * 0x9E3779B97F4A7C15 >> (64 - memoBits)
}

// heapItem is a candidate merge of the part starting at node with its right neighbour. The
// key orders by rank, then by position (node is the part's start offset), so ties go to the
// leftmost pair.
type heapItem struct {
	key     uint64 // rank<<32 | node
	version uint32 // the node's version when pushed; stale items are skipped
	merged  uint32 // id of the merged token
}

// pairRank returns the rank and merged id of two adjacent parts: the left part spans
// piece[a:b] with id leftID, the right part spans piece[b:c] with id rightID.
func (e *bpeEngine) pairRank(piece string, a, c int32, leftID, rightID uint32) (uint32, uint32) {
	if e.mode == rankByConcatenation {
		if id, ok := e.index.lookup(piece[a:c]); ok {
			return id, id
		}
		return noRank, 0
	}
	if v, ok := e.merges.get(uint64(leftID)<<32 | uint64(rightID)); ok {
		return uint32(v >> 32), uint32(v)
	}
	return noRank, 0
}

// encodePiece appends the ids of one piece to dst. It returns dst unchanged and false when a
// byte of the piece has no token (a vocabulary that is not byte-complete).
func (e *bpeEngine) encodePiece(dst []uint32, piece string, s *bpeScratch) ([]uint32, bool) {
	if len(piece) == 0 {
		return dst, true
	}
	if len(piece) == 1 {
		if !e.byteOK[piece[0]] {
			return dst, false
		}
		return append(dst, e.byteID[piece[0]]), true
	}
	if e.wholePieceFirst {
		if id, ok := e.index.lookup(piece); ok {
			return append(dst, id), true
		}
	}
	return e.mergePiece(dst, piece, s)
}

// mergePiece appends the ids of a piece of two or more bytes by merging, without looking the
// whole piece up first (encodePiece and countPieceUncached have done that).
func (e *bpeEngine) mergePiece(dst []uint32, piece string, s *bpeScratch) ([]uint32, bool) {
	for i := 0; i < len(piece); i++ {
		if !e.byteOK[piece[i]] {
			return dst, false
		}
	}
	if len(piece) >= heapThreshold {
		return e.mergeHeap(dst, piece, s), true
	}
	return e.mergeScan(dst, piece, s), true
}

// countPiece returns the number of tokens of one piece without keeping them.
func (e *bpeEngine) countPiece(piece string, s *bpeScratch) (int, bool) {
	if len(piece) == 1 {
		return 1, e.byteOK[piece[0]]
	}
	if len(piece) > maxMemoPiece {
		return e.countPieceUncached(piece, s)
	}
	if len(piece) <= 3 {
		if n, ok := e.countB64Short(piece); ok {
			return n, true
		}
	}
	if s.memo == nil {
		s.memo = new(pieceMemo)
	}
	lo, hi := packMemoKey(piece)
	slot := s.memo.slotOf(lo, hi)
	if slot.lo == lo && slot.hi == hi {
		return int(slot.count), true
	}
	return e.countMemoMiss(piece, slot, lo, hi, s)
}

// countMemoMiss counts a piece of 1 to maxMemoPiece bytes that its memo slot (keyed lo, hi)
// does not hold, and keeps the count there.
func (e *bpeEngine) countMemoMiss(piece string, slot *memoSlot, lo, hi uint64, s *bpeScratch) (int, bool) {
	n, ok := e.countB64Four(piece) // a memo miss of four characters: likely base64
	if !ok && len(piece) <= 3 {
		n, ok = e.countB64Short(piece)
	}
	if !ok {
		n, ok = e.countPieceUncached(piece, s)
	}
	if ok {
		*slot = memoSlot{lo: lo, hi: hi, count: uint32(n)}
	}
	return n, ok
}

// countPieceUncached counts one piece of two or more bytes with the BPE.
func (e *bpeEngine) countPieceUncached(piece string, s *bpeScratch) (int, bool) {
	if len(piece) < 2 {
		out, ok := e.encodePiece(s.out[:0], piece, s)
		return len(out), ok
	}
	if e.wholePieceFirst {
		if _, ok := e.index.lookup(piece); ok {
			return 1, true
		}
	}
	out, ok := e.mergePiece(s.out[:0], piece, s)
	s.out = out
	return len(out), ok
}

// mergeScan merges a short piece with a linear scan for the lowest rank each round.
func (e *bpeEngine) mergeScan(dst []uint32, piece string, s *bpeScratch) []uint32 {
	n := len(piece)
	start := growInt32(s.start, n+1)
	ids := growUint32(s.ids, n)
	ranks := growUint32(s.ranks, n)
	merged := growUint32(s.merged, n)
	s.start, s.ids, s.ranks, s.merged = start, ids, ranks, merged
	for i := 0; i < n; i++ {
		start[i] = int32(i)
		ids[i] = e.byteID[piece[i]]
	}
	start[n] = int32(n)
	for i := 0; i+1 < n; i++ {
		ranks[i], merged[i] = e.pairRank(piece, start[i], start[i+2], ids[i], ids[i+1])
	}
	ranks[n-1] = noRank
	parts := n
	for parts > 1 {
		i := lowestRank(ranks[:parts-1])
		if i < 0 {
			break
		}
		ids[i] = merged[i]
		copy(start[i+1:parts], start[i+2:parts+1])
		copy(ids[i+1:parts-1], ids[i+2:parts])
		copy(ranks[i+1:parts-1], ranks[i+2:parts])
		copy(merged[i+1:parts-1], merged[i+2:parts])
		parts--
		if i+1 < parts {
			ranks[i], merged[i] = e.pairRank(piece, start[i], start[i+2], ids[i], ids[i+1])
		} else {
			ranks[i] = noRank
		}
		if i > 0 {
			ranks[i-1], merged[i-1] = e.pairRank(piece, start[i-1], start[i+1], ids[i-1], ids[i])
		}
	}
	return append(dst, ids[:parts]...)
}

// lowestRank returns the index of the lowest rank, the leftmost on ties, or -1 when every rank
// is noRank.
func lowestRank(ranks []uint32) int {
	best, at := uint32(noRank), -1
	for i, r := range ranks {
		if r < best {
			best, at = r, i
		}
	}
	return at
}

// mergeHeap merges a long piece: parts form a doubly linked list, candidate pairs sit in a
// binary heap ordered by (rank, position), and stale entries are skipped by version.
func (e *bpeEngine) mergeHeap(dst []uint32, piece string, s *bpeScratch) []uint32 {
	n := len(piece)
	start := growInt32(s.start, n+1)
	ids := growUint32(s.ids, n)
	next := growInt32(s.next, n)
	prev := growInt32(s.prev, n)
	version := growUint32(s.version, n)
	h := s.heap[:0]
	for i := 0; i < n; i++ {
		start[i] = int32(i)
		ids[i] = e.byteID[piece[i]]
		next[i] = int32(i + 1)
		prev[i] = int32(i - 1)
		version[i] = 0
	}
	next[n-1] = -1
	end := func(node int32) int32 {
		if nx := next[node]; nx >= 0 {
			return start[nx]
		}
		return int32(n)
	}
	push := func(node int32) {
		nx := next[node]
		if nx < 0 {
			return
		}
		r, id := e.pairRank(piece, start[node], end(nx), ids[node], ids[nx])
		if r == noRank {
			return
		}
		h = heapPush(h, heapItem{key: uint64(r)<<32 | uint64(node), version: version[node], merged: id})
	}
	for i := int32(0); i < int32(n-1); i++ {
		push(i)
	}
	for len(h) > 0 {
		var top heapItem
		top, h = heapPop(h)
		node := int32(uint32(top.key))
		if version[node] != top.version || next[node] < 0 {
			continue
		}
		right := next[node]
		ids[node] = top.merged
		next[node] = next[right]
		if next[right] >= 0 {
			prev[next[right]] = node
		}
		version[right]++ // the right node is gone: its pending pair is stale
		version[node]++
		push(node)
		if p := prev[node]; p >= 0 {
			version[p]++
			push(p)
		}
	}
	for node := int32(0); node >= 0; node = next[node] {
		dst = append(dst, ids[node])
	}
	s.start, s.ids, s.next, s.prev, s.version, s.heap = start, ids, next, prev, version, h
	return dst
}

func heapPush(h []heapItem, it heapItem) []heapItem {
	h = append(h, it)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].key <= it.key {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = it
	return h
}

func heapPop(h []heapItem) (heapItem, []heapItem) {
	top := h[0]
	last := len(h) - 1
	it := h[last]
	h = h[:last]
	if last == 0 {
		return top, h
	}
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		small := l
		if r := l + 1; r < last && h[r].key < h[l].key {
			small = r
		}
		if it.key <= h[small].key {
			break
		}
		h[i] = h[small]
		i = small
	}
	h[i] = it
	return top, h
}

func growInt32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n, n+n/2)
	}
	return b[:n]
}

func growUint32(b []uint32, n int) []uint32 {
	if cap(b) < n {
		return make([]uint32, n, n+n/2)
	}
	return b[:n]
}

// u64Table is an open-addressing hash table from uint64 keys to uint64 values, built once and
// read-only afterwards. One probe usually costs one cache line, which is what makes BPE on
// random text (base64) fast: a Go map of strings costs two or three cache misses per lookup.
//
// A small Bloom filter (two bits per key, about 16 bits per key, sized to stay in the L2
// cache) answers most misses without touching the slots: in BPE most candidate pairs are not
// tokens.
type u64Table struct {
	slots      []u64Slot
	shift      uint
	filter     []uint64
	filterBits uint
}

type u64Slot struct {
	key   uint64 // stored key + 1; 0 marks an empty slot
	value uint64
}

func newU64Table(n int) *u64Table {
	size, shift := 1, uint(64)
	for size < 2*n+16 {
		size <<= 1
		shift--
	}
	bits := uint(10)
	for 1<<bits < 16*n && bits < 24 {
		bits++
	}
	return &u64Table{slots: make([]u64Slot, size), shift: shift,
		filter: make([]uint64, 1<<bits/64), filterBits: bits}
}

// filterBitsOf returns the two filter bit positions of a key.
func (t *u64Table) filterBitsOf(key uint64) (uint64, uint64) {
	h := (key ^ key>>29) * 0xBF58476D1CE4E5B9
	h ^= h >> 32
	mask := uint64(1)<<t.filterBits - 1
	return h & mask, (h >> 32) & mask
}

func (t *u64Table) home(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> t.shift }

func (t *u64Table) put(key, value uint64) {
	b1, b2 := t.filterBitsOf(key)
	t.filter[b1/64] |= 1 << (b1 % 64)
	t.filter[b2/64] |= 1 << (b2 % 64)
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == 0 || s.key == key+1 {
			s.key, s.value = key+1, value
			return
		}
	}
}

func (t *u64Table) get(key uint64) (uint64, bool) {
	b1, b2 := t.filterBitsOf(key)
	if t.filter[b1/64]&(1<<(b1%64)) == 0 || t.filter[b2/64]&(1<<(b2%64)) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.key == key+1 {
			return s.value, true
		}
		if s.key == 0 {
			return 0, false
		}
	}
}

// maxShortToken is the longest token kept in the packed table; longer ones use a map.
const maxShortToken = 7

// packShort packs up to 7 bytes and their length into one uint64.
func packShort(s string) uint64 {
	k := uint64(len(s)) << 56
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

// tokenIndex finds a token id by its bytes: two-byte tokens in a direct table, tokens of up to
// seven bytes in a packed hash table, longer ones in a table of their places in the vocabulary
// list (none of the three holds a pointer per token).
type tokenIndex struct {
	pair  []uint32 // 65536 entries: id of the two-byte token b0 b1, or noRank
	short *u64Table
	long  longIndex
}

func newTokenIndex(vocab *vocabList) *tokenIndex {
	nShort := 0
	for tok := range vocab.all() {
		if len(tok) > 2 && len(tok) <= maxShortToken {
			nShort++
		}
	}
	ix := &tokenIndex{pair: make([]uint32, 1<<16), short: newU64Table(nShort), long: newLongIndex(vocab)}
	for i := range ix.pair {
		ix.pair[i] = noRank
	}
	for tok, id := range vocab.all() {
		switch {
		case len(tok) == 2:
			ix.pair[uint16(tok[0])<<8|uint16(tok[1])] = id
		case len(tok) > 2 && len(tok) <= maxShortToken:
			ix.short.put(packShort(tok), uint64(id))
		}
	}
	return ix
}

// lookup returns the id of a token of two or more bytes.
func (ix *tokenIndex) lookup(tok string) (uint32, bool) {
	switch {
	case len(tok) == 2:
		id := ix.pair[uint16(tok[0])<<8|uint16(tok[1])]
		return id, id != noRank
	case len(tok) <= maxShortToken:
		v, ok := ix.short.get(packShort(tok))
		return uint32(v), ok
	}
	return ix.long.lookup(tok)
}

// le32 reads 4 bytes of s at i as a little-endian word.
func le32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// le16 reads 2 bytes of s at i as a little-endian word.
func le16(s string, i int) uint16 { s = s[i : i+2]; return uint16(s[0]) | uint16(s[1])<<8 }

// le64 reads 8 bytes of s at i as a little-endian word.
func le64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
