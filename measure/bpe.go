package measure

import (
	"math"
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

// mergeRule is one entry of a Hugging Face merges list.
type mergeRule struct {
	rank uint32 // position in the merges list
	id   uint32 // id of the merged token
}

// bpeEngine is a byte-level BPE: it splits one pre-tokenized piece into token ids. It is
// read-only after construction and safe for concurrent use.
//
// Merging is the classic lowest-rank-first rule (leftmost on ties), which is what tiktoken and
// Hugging Face tokenizers both do. Short pieces use a linear scan over a small array (fast for
// the usual few-byte piece); long pieces switch to a binary heap over a linked list, so a
// 100,000-letter piece costs O(n log n) instead of O(n²).
type bpeEngine struct {
	mode bpeMode
	// vocab maps a token's bytes to its id (every byte-level token, specials excluded).
	vocab map[string]uint32
	// merges maps left<<32|right to the merge rule (rankByMergeList only).
	merges map[uint64]mergeRule
	// byteID is the id of each single-byte token; byteOK says whether that byte has one.
	byteID [256]uint32
	byteOK [256]bool
	// wholePieceFirst looks the whole piece up in the vocabulary before merging (tiktoken
	// always does; Hugging Face does when the model sets ignore_merges).
	wholePieceFirst bool
}

// noRank marks a pair that cannot merge.
const noRank = math.MaxUint32

// heapThreshold is the piece length (bytes) from which the heap merge is used.
const heapThreshold = 128

// bpeScratch holds reusable buffers for one goroutine's merging.
type bpeScratch struct {
	start []int32  // start offset of each part (plus a sentinel at the end for the scan)
	ids   []uint32 // id of each part
	ranks []uint32 // rank of merging part i with part i+1
	out   []uint32 // output buffer of countPiece
	// heap merge
	next, prev []int32
	version    []uint32
	heap       []heapItem
}

type heapItem struct {
	rank    uint32
	pos     int32 // start offset of the left part: ties go to the leftmost pair
	node    int32
	version uint32
}

// pairRank returns the rank and merged id of two adjacent parts: the left part spans
// piece[a:b] with id leftID, the right part spans piece[b:c] with id rightID.
func (e *bpeEngine) pairRank(piece string, a, c int32, leftID, rightID uint32) (uint32, uint32) {
	if e.mode == rankByConcatenation {
		if id, ok := e.vocab[piece[a:c]]; ok {
			return id, id
		}
		return noRank, 0
	}
	if m, ok := e.merges[uint64(leftID)<<32|uint64(rightID)]; ok {
		return m.rank, m.id
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
		if id, ok := e.vocab[piece]; ok {
			return append(dst, id), true
		}
	}
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
	if e.wholePieceFirst && len(piece) > 0 {
		if _, ok := e.vocab[piece]; ok {
			return 1, true
		}
	}
	out, ok := e.encodePiece(s.out[:0], piece, s)
	s.out = out
	return len(out), ok
}

// mergeScan merges a short piece with a linear scan for the lowest rank each round.
func (e *bpeEngine) mergeScan(dst []uint32, piece string, s *bpeScratch) []uint32 {
	n := len(piece)
	start := growInt32(s.start, n+1)
	ids := growUint32(s.ids, n)
	ranks := growUint32(s.ranks, n)
	s.start, s.ranks = start, ranks
	for i := 0; i < n; i++ {
		start[i] = int32(i)
		ids[i] = e.byteID[piece[i]]
	}
	start[n] = int32(n)
	for i := 0; i+1 < n; i++ {
		ranks[i], _ = e.pairRank(piece, start[i], start[i+2], ids[i], ids[i+1])
	}
	ranks[n-1] = noRank
	parts := n
	for parts > 1 {
		best, bestAt := uint32(noRank), -1
		for i := 0; i+1 < parts; i++ {
			if ranks[i] < best {
				best, bestAt = ranks[i], i
			}
		}
		if bestAt < 0 {
			break
		}
		i := bestAt
		_, merged := e.pairRank(piece, start[i], start[i+2], ids[i], ids[i+1])
		ids[i] = merged
		copy(start[i+1:parts], start[i+2:parts+1])
		copy(ids[i+1:parts-1], ids[i+2:parts])
		copy(ranks[i+1:parts-1], ranks[i+2:parts])
		parts--
		if i+1 < parts {
			ranks[i], _ = e.pairRank(piece, start[i], start[i+2], ids[i], ids[i+1])
		} else {
			ranks[i] = noRank
		}
		if i > 0 {
			ranks[i-1], _ = e.pairRank(piece, start[i-1], start[i+1], ids[i-1], ids[i])
		}
	}
	s.ids = ids
	return append(dst, ids[:parts]...)
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
		r, _ := e.pairRank(piece, start[node], end(nx), ids[node], ids[nx])
		if r == noRank {
			return
		}
		h = heapPush(h, heapItem{rank: r, pos: start[node], node: node, version: version[node]})
	}
	for i := int32(0); i < int32(n-1); i++ {
		push(i)
	}
	for len(h) > 0 {
		var top heapItem
		top, h = heapPop(h)
		node := top.node
		if version[node] != top.version || next[node] < 0 {
			continue
		}
		right := next[node]
		_, merged := e.pairRank(piece, start[node], end(right), ids[node], ids[right])
		ids[node] = merged
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

func heapLess(a, b heapItem) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

func heapPush(h []heapItem, it heapItem) []heapItem {
	h = append(h, it)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !heapLess(h[i], h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
	return h
}

func heapPop(h []heapItem) (heapItem, []heapItem) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		small := l
		if r := l + 1; r < len(h) && heapLess(h[r], h[l]) {
			small = r
		}
		if !heapLess(h[small], h[i]) {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
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
