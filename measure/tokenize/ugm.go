package tokenize

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
)

// UGMTokenizer is a SentencePiece Unigram vocabulary as llama.cpp runs a GGUF of
// `tokenizer.ggml.model` "t5" (T5, XLM-RoBERTa and the embedding models built on them): the
// text is normalized by the vocabulary's precompiled character map (SentencePiece's
// normalization rules, longest match first), its spaces become "▁" (runs of them one, with one
// in front when the vocabulary says so), and the tokens whose scores sum highest spell it
// (Viterbi over every token that starts at each character); a character no token spells is the
// unknown token, a run of them one. It is safe for concurrent use.
type UGMTokenizer struct {
	vocabFrame
	trie byteTrie
	// leaves holds, for each node of the trie, the token it spells (-1: none) and the score
	// the Viterbi adds for it: 0 for a user-defined token (llama.cpp favours them so). One
	// look-up per node where the token's id and score took two.
	leaves []ugmLeaf
	unkID  int32
	// unkScore is the score of a character spelt by the unknown token: the lowest score of a
	// normal token, less 10.
	unkScore float64
	charsmap ugmCharsmap
	// wordCuts says the Viterbi may count word by word: "▁" is a token and none holds a "▁"
	// after another character, so every spelling passes through each word's start. Below
	// exactBelow every sum of scores is exact in float64, so a word's best spelling does not
	// depend on the score before it and a memo may recall its count.
	wordCuts   bool
	exactBelow float64
	maxAbs     float64 // the largest magnitude of a score the Viterbi adds
	// spacePrefix puts a "▁" in front of the text (add_space_prefix); mergeSpaces drops
	// leading and trailing spaces and makes each run of them one (remove_extra_whitespaces).
	spacePrefix, mergeSpaces bool
}

// ugmMemo remembers the token counts and best scores of recent words of 2 to 15 bytes (keyed
// as pieceMemo is).
type ugmMemo [1 << memoBits]ugmMemoSlot

type ugmMemoSlot struct {
	lo, hi uint64
	count  uint32
	score  float64
}

// ugmLeaf is what the Viterbi reads at a trie node.
type ugmLeaf struct {
	score float64
	id    int32
}

// ugmBest is the best spelling found of the text up to one byte offset: its score, its last
// token and where that token starts.
type ugmBest struct {
	score float64
	id    int32
	from  int32
}

// loadGGUFUGM loads a Unigram vocabulary with llama.cpp's defaults for it: unknown token 2,
// no BOS unless tokenizer.ggml.add_bos_token says so.
func loadGGUFUGM(path string, kvs gguf.GGUFMetadataKVs) (*UGMTokenizer, error) {
	tokens, types, scores, err := ggufScoredTokens(path, kvs)
	if err != nil {
		return nil, err
	}
	unk, bos := int32(2), int32(-1)
	if err := ggufTokenIDs(path, kvs, len(tokens), map[string]*int32{"tokenizer.ggml.unknown_token_id": &unk, "tokenizer.ggml.bos_token_id": &bos}); err != nil {
		return nil, err
	}
	if int(unk) >= len(tokens) {
		return nil, fmt.Errorf("%s: %d tokens, fewer than the unknown token's id %d", path, len(tokens), unk)
	}
	t := &UGMTokenizer{unkID: unk,
		spacePrefix: ggufBool(kvs, "tokenizer.ggml.add_space_prefix", false),
		mergeSpaces: ggufBool(kvs, "tokenizer.ggml.remove_extra_whitespaces", false)}
	t.init(path, tokens, types, nil)
	if bos >= 0 && ggufBool(kvs, "tokenizer.ggml.add_bos_token", false) {
		t.bos = tokens[bos]
	}
	if t.charsmap, err = ggufCharsmap(kvs); err != nil {
		return nil, fmt.Errorf("%s at tokenizer.ggml.precompiled_charsmap: %w", path, err)
	}
	minScore := float32(math.MaxFloat32)
	t.trie = newByteTrie()
	for id, text := range tokens {
		typ := int32(ggufTokenNormal)
		if types != nil {
			typ = types[id]
		}
		switch typ {
		case ggufTokenNormal:
			minScore = min(minScore, scores[id])
		case ggufTokenUserDefined, ggufTokenUnused:
		default:
			continue
		}
		if !t.trie.insert(text, int32(id)) {
			return nil, fmt.Errorf("%s: more than %d trie nodes", path, maxTrieNodes)
		}
	}
	t.unkScore = float64(minScore - 10)
	t.leaves = make([]ugmLeaf, len(t.trie.value))
	for node, id := range t.trie.value {
		t.leaves[node] = ugmLeaf{id: id}
		if id >= 0 && (types == nil || types[id] != ggufTokenUserDefined) {
			t.leaves[node].score = float64(scores[id])
		}
	}
	t.setWordCuts(tokens)
	t.run = func(dst []uint32, text string, _ bool, s *runScratch) []uint32 { return t.encodeRun(dst, text, s) }
	return t, nil
}

// setWordCuts sets wordCuts, exactBelow and maxAbs: float32 scores are multiples of their
// ulp, so their sums are exact while below 2^53 times the smallest ulp.
func (t *UGMTokenizer) setWordCuts(tokens []string) {
	node := int32(0)
	for i := 0; i < len(escapedSpace) && node >= 0; i++ {
		node = t.trie.child(node, escapedSpace[i])
	}
	t.wordCuts = node >= 0 && t.leaves[node].id >= 0
	_, minExp := math.Frexp(t.unkScore)
	minExp -= 24
	t.maxAbs = math.Abs(t.unkScore)
	for _, leaf := range t.leaves {
		if leaf.id < 0 {
			continue
		}
		if strings.Contains(strings.TrimLeft(tokens[leaf.id], escapedSpace), escapedSpace) {
			t.wordCuts = false
		}
		if leaf.score != 0 {
			_, e := math.Frexp(leaf.score)
			minExp = min(minExp, e-24)
			t.maxAbs = max(t.maxAbs, math.Abs(leaf.score))
		}
	}
	t.exactBelow = math.Ldexp(1, 52+minExp)
}

// ggufTokenUnused is llama.cpp's token type of an unused token (Unigram spells with it).
const ggufTokenUnused = 5

// encodeRun appends the ids of one run of ordinary text.
func (t *UGMTokenizer) encodeRun(dst []uint32, text string, s *runScratch) []uint32 {
	b := t.normalize(s.buf[:0], text)
	s.buf = b
	if s.counting && t.wordCuts {
		if n, ok := t.countWords(b, s); ok {
			for range n {
				dst = append(dst, 0)
			}
			return dst
		}
	}
	dst, _ = t.viterbi(dst, b, s)
	return dst
}

// countWords counts the tokens of normalized text word by word, each word of 2 to 15 bytes
// once per scratch; false when a sum of scores could be inexact (the whole text is then
// spelt at once, as llama.cpp does).
func (t *UGMTokenizer) countWords(b []byte, s *runScratch) (int, bool) {
	if s.ugmMemo == nil {
		s.ugmMemo = new(ugmMemo)
	}
	n, total := 0, 0.0
	for lo := 0; lo < len(b); {
		hi := wordEnd(b, lo, len(b))
		w := b[lo:hi]
		lo = hi
		// every sum the Viterbi forms over this word, here or after the text before it, is
		// within len(w) scores of the total so far
		if math.Abs(total)+float64(len(w))*t.maxAbs >= t.exactBelow {
			return 0, false
		}
		var k, m uint64
		if len(w) >= 2 && len(w) <= maxMemoPiece {
			k, m = packMemoKey(unsafe.String(&w[0], len(w)))
			if slot := &s.ugmMemo[memoIndex(k, m)]; slot.lo == k && slot.hi == m {
				n, total = n+int(slot.count), total+slot.score
				continue
			}
		}
		ids, score := t.viterbi(s.ids2[:0], w, s)
		s.ids2 = ids
		if k|m != 0 {
			s.ugmMemo[memoIndex(k, m)] = ugmMemoSlot{lo: k, hi: m, count: uint32(len(ids)), score: score}
		}
		n, total = n+len(ids), total+score
	}
	return n, true
}

// viterbi appends the ids of the best spelling of normalized text, and returns its score.
func (t *UGMTokenizer) viterbi(dst []uint32, b []byte, s *runScratch) ([]uint32, float64) {
	if len(b) == 0 {
		return dst, 0
	}
	best := s.best[:0]
	for range len(b) + 1 {
		best = append(best, ugmBest{score: -math.MaxFloat64, id: t.unkID})
	}
	best[0].score = 0
	s.best = best
	for off := 0; off < len(b); {
		n := min(int(utf8SeqLen[b[off]>>4]), len(b)-off)
		base, single := best[off].score, false
		for node, end := int32(0), off; end < len(b); {
			if node = t.trie.child(node, b[end]); node < 0 {
				break
			}
			end++
			leaf := t.leaves[node]
			if leaf.id < 0 {
				continue
			}
			single = single || end-off == n
			if c := base + leaf.score; c > best[end].score {
				best[end] = ugmBest{score: c, id: leaf.id, from: int32(off)}
			}
		}
		if c := base + t.unkScore; !single && c > best[off+n].score {
			best[off+n] = ugmBest{score: c, id: t.unkID, from: int32(off)}
		}
		off += n
	}
	start := len(dst)
	prevUnk := false
	for at := len(b); at > 0; at = int(best[at].from) {
		unk := best[at].id == t.unkID
		if !prevUnk || !unk {
			dst = append(dst, uint32(best[at].id))
		}
		prevUnk = unk
	}
	for i, j := start, len(dst)-1; i < j; i, j = i+1, j-1 {
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst, best[len(b)].score
}

// normalize appends text normalized as llama.cpp's Unigram does: each place replaced by the
// longest rule of the character map that matches there (or kept as the character it starts,
// a byte of invalid UTF-8 as U+FFFD), its spaces as "▁".
func (t *UGMTokenizer) normalize(b []byte, text string) []byte {
	prepended, inWord := false, false
	put := func(c byte) {
		if c == ' ' {
			inWord = false
			if !t.mergeSpaces {
				b = append(b, escapedSpace...)
			}
			return
		}
		if !inWord {
			inWord = true
			if t.spacePrefix && !prepended || t.mergeSpaces {
				b = append(b, escapedSpace...)
				prepended = true
			}
		}
		b = append(b, c)
	}
	for off := 0; off < len(text); {
		if t.plainASCII(text[off]) && text[off] != ' ' {
			// a run of ASCII no rule changes, no space in it: its first byte starts a word
			// when none is open, the others go as they are
			put(text[off])
			end := off + 1
			for end < len(text) && t.plainASCII(text[end]) && text[end] != ' ' {
				end++
			}
			b = append(b, text[off+1:end]...)
			off = end
			continue
		}
		piece, n := t.charsmap.match(text, off)
		if n == 0 {
			r, w := utf8.DecodeRuneInString(text[off:])
			if piece, n = text[off:off+w], w; r == utf8.RuneError && w == 1 {
				piece = "\uFFFD"
			}
		}
		off += n
		for i := 0; i < len(piece); i++ {
			put(piece[i])
		}
	}
	return b
}

// plainASCII says c is an ASCII byte no rule of the character map starts with.
func (t *UGMTokenizer) plainASCII(c byte) bool {
	return c < 0x80 && (t.charsmap.plain[c] || len(t.charsmap.nodes) == 0)
}

// ugmCharsmap is SentencePiece's precompiled character map: a XOR-compressed compact double
// array (Kanda, 2018) of the strings with a rule, whose leaves point into the NUL-terminated
// replacements.
type ugmCharsmap struct {
	nodes        []uint32
	replacements string
	// plain marks the ASCII bytes no rule starts with (most of them, most of the text).
	plain [128]bool
}

// ggufCharsmap reads tokenizer.ggml.precompiled_charsmap (empty when absent): a little-endian
// uint32 byte size of the array, the array, then the replacements.
func ggufCharsmap(kvs gguf.GGUFMetadataKVs) (ugmCharsmap, error) {
	av, ok, err := ggufmeta.Array(kvs, "tokenizer.ggml.precompiled_charsmap")
	if err != nil || !ok {
		return ugmCharsmap{}, err
	}
	ints, err := ggufInts("tokenizer.ggml.precompiled_charsmap", av.Array)
	if err != nil {
		return ugmCharsmap{}, err
	}
	raw := make([]byte, len(ints))
	for i, x := range ints {
		raw[i] = byte(x)
	}
	if len(raw) < 4 {
		return ugmCharsmap{}, fmt.Errorf("%d bytes, too few for the array's size", len(raw))
	}
	size := binary.LittleEndian.Uint32(raw)
	if uint64(size)+4 >= uint64(len(raw)) || size%4 != 0 {
		return ugmCharsmap{}, fmt.Errorf("array of %d bytes in a map of %d", size, len(raw))
	}
	m := ugmCharsmap{nodes: make([]uint32, size/4), replacements: string(raw[4+size:])}
	for i := range m.nodes {
		m.nodes[i] = binary.LittleEndian.Uint32(raw[4+4*i:])
	}
	for c := uint32(1); c < 128; c++ {
		m.plain[c] = m.node(ugmBase(m.node(0))^c)&(1<<31|0xff) != c
	}
	return m, nil
}

// node returns the packed node at i (0, which matches no byte, past the end).
func (m *ugmCharsmap) node(i uint32) uint32 {
	if int(i) >= len(m.nodes) {
		return 0
	}
	return m.nodes[i]
}

// base is a node's BASE (bits 10–30, shifted by 8 when bit 9 is set).
func ugmBase(node uint32) uint32 { return (node >> 10) << ((node & (1 << 9)) >> 6) }

// match returns the replacement of the longest string with a rule at text[off:] and that
// string's length (0: no rule matches there).
func (m *ugmCharsmap) match(text string, off int) (string, int) {
	if len(m.nodes) == 0 {
		return "", 0
	}
	longest, at := 0, uint32(0)
	i := ugmBase(m.node(0))
	for p := off; p < len(text) && text[p] != 0; p++ {
		c := uint32(text[p])
		i ^= c
		node := m.node(i)
		if node&(1<<31|0xff) != c {
			break
		}
		i ^= ugmBase(node)
		if node>>8&1 != 0 { // a leaf: its value is the offset of the replacement
			longest, at = p-off+1, m.node(i)&(1<<31-1)
		}
	}
	if longest == 0 || int(at) >= len(m.replacements) {
		return "", 0
	}
	r := m.replacements[at:]
	for k := 0; k < len(r); k++ {
		if r[k] == 0 {
			return r[:k], longest
		}
	}
	return "", 0 // unterminated: no rule
}

// byteTrie is a trie of byte strings kept as a hash table of its edges: each slot packs the
// parent node and the byte (40 bits) with the child node (24 bits), so a vocabulary of a
// quarter of a million tokens takes a few megabytes and each step is one probe.
type byteTrie struct {
	slots []uint64
	shift uint
	value []int32 // node → token id, -1: none (node 0 is the root)
	// root holds the root's children (-1: none) without a probe: every step of the Viterbi
	// starts there.
	root [256]int32
}

// maxTrieNodes is the most nodes a byteTrie holds (24 bits).
const maxTrieNodes = 1 << 24

// newByteTrie makes an empty trie.
func newByteTrie() byteTrie {
	t := byteTrie{slots: make([]uint64, 64), shift: 58, value: []int32{-1}}
	for i := range t.root {
		t.root[i] = -1
	}
	return t
}

func (t *byteTrie) home(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> t.shift }

// child returns the child of node by byte c, or -1.
func (t *byteTrie) child(node int32, c byte) int32 {
	if node == 0 {
		return t.root[c]
	}
	key := uint64(node)<<8 | uint64(c)
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if s>>24 == key {
			return int32(s & (1<<24 - 1))
		}
	}
}

// insert adds a token (a string already in the trie keeps its first id); false when the trie
// is full.
func (t *byteTrie) insert(text string, id int32) bool {
	node := int32(0)
	for i := 0; i < len(text); i++ {
		next := t.child(node, text[i])
		if next < 0 {
			if len(t.value) >= maxTrieNodes {
				return false
			}
			next = int32(len(t.value))
			t.value = append(t.value, -1)
			t.put(uint64(node)<<8|uint64(text[i]), next)
			if node == 0 {
				t.root[text[i]] = next
			}
		}
		node = next
	}
	if t.value[node] < 0 {
		t.value[node] = id
	}
	return true
}

// put adds an edge, growing the table past half full.
func (t *byteTrie) put(key uint64, child int32) {
	if 2*len(t.value) > len(t.slots) {
		old := t.slots
		t.slots, t.shift = make([]uint64, 2*len(old)), t.shift-1
		for _, s := range old {
			if s != 0 {
				t.place(s)
			}
		}
	}
	t.place(key<<24 | uint64(child))
}

func (t *byteTrie) place(s uint64) {
	mask := uint64(len(t.slots) - 1)
	for i := t.home(s >> 24); ; i = (i + 1) & mask {
		if t.slots[i] == 0 {
			t.slots[i] = s
			return
		}
	}
}
