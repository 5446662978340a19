package tokenize

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// CharBPETokenizer is a Hugging Face tokenizer.json of a SentencePiece-style BPE model (Llama 2,
// Gemma 3, Mistral: model BPE with byte_fallback, spaces written "▁" by the normaliser): each
// text between added tokens is normalised, then split into characters; the adjacent pair of
// lowest merge rank is merged first (leftmost on ties); a character that is no token is spelt as
// its bytes' <0xXX> tokens. It is safe for concurrent use.
type CharBPETokenizer struct {
	name  string
	ids   map[string]int32
	texts []string // id → token text
	// merges maps a pair of ids (left<<32 | right) to rank<<32 | merged id.
	merges       *u64Table
	byteID       [256]int32
	byteOf       []int16 // id → the byte of a <0xXX> token, else -1
	prepend      string  // the normaliser's Prepend ("▁" for Llama 2), or ""
	ignoreMerges bool
	// cutAtSpace says a word may be merged in parts, cut before each "▁" that follows a
	// character of no merged token holding that character then "▁" (the same ids, in small
	// merge queues): no merge takes a <0xXX> token, and noCutAfter lists those characters.
	cutAtSpace bool
	noCutAfter map[rune]bool
	// ascii holds the token of each ASCII character, or -1.
	ascii [128]int32
	// user holds the non-special added tokens (found in ordinary text too, as Hugging Face
	// finds every added token), special all of them (found in framing).
	user, special *specialSet
	scratch       sync.Pool
}

// charBPEScratch is the reusable state of one encoding.
type charBPEScratch struct {
	syms []charBPESymbol
	heap charBPEHeap
	buf  strings.Builder
	// parts remembers the ids of the short parts of words met before (" the", " and", …).
	parts map[string][]uint32
}

// Bounds of charBPEScratch.parts: the longest part kept, and how many before it is cleared.
const (
	charBPEPartMax   = 32
	charBPEPartsKept = 1 << 14
)

// charBPESymbol is one piece of the word being merged, linked to its neighbours (-1 at the
// ends); id is -1 once merged into its left neighbour.
type charBPESymbol struct {
	id         int32
	prev, next int32
}

// charBPEPair is a candidate merge of the symbol at left with its right neighbour, valid while
// both still hold the ids it was made from.
type charBPEPair struct {
	rank, left   int32
	lid, rid, to int32
}

// charBPEHeap is the merge queue: the lowest rank first, then the leftmost.
type charBPEHeap []charBPEPair

func (h charBPEHeap) before(a, b int) bool {
	return h[a].rank < h[b].rank || h[a].rank == h[b].rank && h[a].left < h[b].left
}

func (h *charBPEHeap) push(x charBPEPair) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0 && q.before(i, (i-1)/2); i = (i - 1) / 2 {
		q[i], q[(i-1)/2] = q[(i-1)/2], q[i]
	}
}

func (h *charBPEHeap) pop() charBPEPair {
	q := *h
	top, last := q[0], len(q)-1
	q[0], q = q[last], q[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c+1 < len(q) && q.before(c+1, c) {
			c++
		}
		if c >= len(q) || !q.before(c, i) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	*h = q
	return top
}

// isCharBPE says whether a tokenizer.json is a byte-fallback BPE model rather than a
// byte-level one.
func isCharBPE(f *hfTokenizerFile) bool { return f.Model.Type == "BPE" && f.Model.ByteFallback }

// newCharBPETokenizer builds the tokenizer of a byte-fallback BPE tokenizer.json.
func newCharBPETokenizer(name string, f *hfTokenizerFile) (*CharBPETokenizer, error) {
	prepend, err := charBPENormalizer(f.Normalizer)
	if err != nil {
		return nil, fmt.Errorf("%s at /normalizer: %w", name, err)
	}
	if err := charBPEPretokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("%s at /pre_tokenizer: %w", name, err)
	}
	n := 0
	for _, id := range f.Model.Vocab {
		n = max(n, id+1)
	}
	for _, at := range f.AddedTokens {
		n = max(n, at.ID+1)
	}
	if n > 1<<24 {
		return nil, fmt.Errorf("%s at /model/vocab: ids up to %d", name, n-1)
	}
	t := &CharBPETokenizer{name: name, ids: make(map[string]int32, n), texts: make([]string, n),
		byteOf: make([]int16, n), prepend: prepend, ignoreMerges: f.Model.IgnoreMerges}
	for id := range t.byteOf {
		t.byteOf[id] = -1
	}
	for text, id := range f.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("%s at /model/vocab/%s: id %d out of range", name, jsonPointerEscape(text), id)
		}
		t.ids[text], t.texts[id] = int32(id), text
	}
	if err := t.addTokens(name, f); err != nil {
		return nil, err
	}
	for b := range 256 {
		id, ok := t.ids[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			return nil, fmt.Errorf("%s at /model/vocab: byte_fallback without a <0x%02X> token", name, b)
		}
		t.byteID[b], t.byteOf[id] = id, int16(b)
	}
	pairs, err := hfMerges(f.Model.Merges)
	if err != nil {
		return nil, fmt.Errorf("%s at /model/merges: %w", name, err)
	}
	t.cutAtSpace, t.noCutAfter = t.spaceCuts(pairs)
	for c := range t.ascii {
		t.ascii[c] = -1
		if id, ok := t.ids[string(rune(c))]; ok {
			t.ascii[c] = id
		}
	}
	if t.merges, err = buildMerges(pairs, f.Model.Vocab, func(i int) string { return fmt.Sprintf("%s at /model/merges/%d", name, i) }); err != nil {
		return nil, err
	}
	t.scratch.New = func() any { return new(charBPEScratch) }
	return t, nil
}

// spaceCuts finds whether words may be cut before a "▁", and the characters after which not.
func (t *CharBPETokenizer) spaceCuts(pairs [][2]string) (bool, map[rune]bool) {
	if t.ignoreMerges {
		return false, nil
	}
	noCut := map[rune]bool{}
	for _, p := range pairs {
		for _, side := range p {
			if id, ok := t.ids[side]; ok && t.byteOf[id] >= 0 {
				return false, nil
			}
		}
		prev := '▁'
		for _, r := range p[0] + p[1] {
			if r == '▁' && prev != '▁' {
				noCut[prev] = true
			}
			prev = r
		}
	}
	return true, noCut
}

// nextCut returns where the first part of word ends: before the first "▁" after its start
// that may be cut before, else the end.
func (t *CharBPETokenizer) nextCut(word string) int {
	for i := 0; ; {
		j := strings.Index(word[i+1:], "▁")
		if j < 0 {
			return len(word)
		}
		i += 1 + j
		if r, _ := utf8.DecodeLastRuneInString(word[:i]); r != '▁' && !t.noCutAfter[r] {
			return i
		}
	}
}

// addTokens indexes the added tokens: every one is found in framing, the non-special ones in
// ordinary text too.
func (t *CharBPETokenizer) addTokens(name string, f *hfTokenizerFile) error {
	user, special := map[string]int32{}, map[string]int32{}
	for i, at := range f.AddedTokens {
		if at.Content == "" || at.ID < 0 || at.ID >= len(t.texts) {
			return fmt.Errorf("%s at /added_tokens/%d: empty content or bad id %d", name, i, at.ID)
		}
		t.ids[at.Content], t.texts[at.ID] = int32(at.ID), at.Content
		special[at.Content] = int32(at.ID)
		if !at.Special {
			user[at.Content] = int32(at.ID)
		}
	}
	t.user, t.special = newSpecialSet(user, nil), newSpecialSet(special, nil)
	return nil
}

// charBPENormalizer accepts a Replace of " " by "▁", alone or after a Prepend of "▁", and
// returns what is prepended.
func charBPENormalizer(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("byte_fallback BPE without a normaliser is not supported (want Replace \" \" by \"▁\")")
	}
	var c struct {
		hfComponent
		Prepend string `json:"prepend"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", err
	}
	list := []json.RawMessage{raw}
	if c.Type == "Sequence" {
		var seq struct {
			Normalizers []json.RawMessage `json:"normalizers"`
		}
		if err := json.Unmarshal(raw, &seq); err != nil {
			return "", err
		}
		list = seq.Normalizers
	}
	prepend, replaced := "", false
	for i, r := range list {
		c.Prepend, c.Content, c.Pattern = "", "", nil
		if err := json.Unmarshal(r, &c); err != nil {
			return "", err
		}
		switch {
		case c.Type == "Prepend" && c.Prepend == "▁" && i == 0:
			prepend = c.Prepend
		case c.Type == "Replace" && isStringPattern(c.Pattern, " ") && c.Content == "▁":
			replaced = true
		default:
			return "", fmt.Errorf("normaliser %q is not supported with byte_fallback (want Replace \" \" by \"▁\", after an optional Prepend \"▁\")", c.Type)
		}
	}
	if !replaced {
		return "", fmt.Errorf("byte_fallback BPE without a Replace of \" \" by \"▁\" is not supported")
	}
	return prepend, nil
}

// charBPEPretokenizer accepts none, or a Split on " " (which finds nothing once the normaliser
// has written every space as "▁").
func charBPEPretokenizer(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var c hfComponent
	if err := json.Unmarshal(raw, &c); err != nil {
		return err
	}
	if c.Type == "Split" && isStringPattern(c.Pattern, " ") {
		return nil
	}
	return fmt.Errorf("pre-tokenizer %q is not supported with byte_fallback (want none, or a Split on \" \")", c.Type)
}

// isStringPattern says whether a pattern object is {"String": s}.
func isStringPattern(raw json.RawMessage, s string) bool {
	var p struct {
		String *string `json:"String"`
	}
	return json.Unmarshal(raw, &p) == nil && p.String != nil && *p.String == s
}

// Name identifies the vocabulary.
func (t *CharBPETokenizer) Name() string { return t.name }

// SpecialID returns the id of an added token.
func (t *CharBPETokenizer) SpecialID(text string) (int, bool) {
	id, ok := t.special.ids[text]
	return int(id), ok
}

// Encode returns the token ids of ordinary text (non-special added tokens are found).
func (t *CharBPETokenizer) Encode(text string) []int { return widen(t.encodeWith(text, t.user)) }

// Count returns len(Encode(text)).
func (t *CharBPETokenizer) Count(text string) int { return len(t.encodeWith(text, t.user)) }

// EncodeFraming returns the token ids of template framing: every added token is found.
func (t *CharBPETokenizer) EncodeFraming(text string) []int {
	return widen(t.encodeWith(text, t.special))
}

// CountFraming returns len(EncodeFraming(text)).
func (t *CharBPETokenizer) CountFraming(text string) int {
	return len(t.encodeWith(text, t.special))
}

func (t *CharBPETokenizer) encodeWith(text string, set *specialSet) []uint32 {
	s := t.scratch.Get().(*charBPEScratch)
	defer t.scratch.Put(s)
	var out []uint32
	set.partition(InvalidBytesAsRune(text), func(chunk string, id int32, special bool) {
		if special {
			out = append(out, uint32(id))
			return
		}
		out = t.encodeChunk(out, chunk, s)
	})
	return out
}

// encodeChunk normalises one run of text between added tokens and encodes it as one word.
func (t *CharBPETokenizer) encodeChunk(dst []uint32, chunk string, s *charBPEScratch) []uint32 {
	word := t.normalize(chunk, s)
	if id, ok := t.ids[word]; ok && t.ignoreMerges {
		return append(dst, uint32(id))
	}
	if !t.cutAtSpace {
		return t.encodeWord(dst, word, s)
	}
	for word != "" {
		end := t.nextCut(word)
		dst, word = t.encodePart(dst, word[:end], s), word[end:]
	}
	return dst
}

// normalize applies the normaliser: the Prepend, then every space written "▁".
func (t *CharBPETokenizer) normalize(chunk string, s *charBPEScratch) string {
	s.buf.Reset()
	s.buf.WriteString(t.prepend)
	for i := 0; i < len(chunk); {
		j := strings.IndexByte(chunk[i:], ' ')
		if j < 0 {
			s.buf.WriteString(chunk[i:])
			break
		}
		s.buf.WriteString(chunk[i : i+j])
		s.buf.WriteString("▁")
		i += j + 1
	}
	return s.buf.String()
}

// encodePart encodes one part of a word, from the scratch's memory when short.
func (t *CharBPETokenizer) encodePart(dst []uint32, part string, s *charBPEScratch) []uint32 {
	if len(part) > charBPEPartMax {
		return t.encodeWord(dst, part, s)
	}
	if ids, ok := s.parts[part]; ok {
		return append(dst, ids...)
	}
	if s.parts == nil || len(s.parts) >= charBPEPartsKept {
		s.parts = make(map[string][]uint32, 1024)
	}
	n := len(dst)
	dst = t.encodeWord(dst, part, s)
	s.parts[strings.Clone(part)] = slices.Clone(dst[n:])
	return dst
}

// encodeWord splits a word into characters (or the <0xXX> tokens of their bytes) and merges
// them.
func (t *CharBPETokenizer) encodeWord(dst []uint32, word string, s *charBPEScratch) []uint32 {
	s.syms = s.syms[:0]
	for i := 0; i < len(word); {
		if c := word[i]; c < utf8.RuneSelf && t.ascii[c] >= 0 {
			s.syms = append(s.syms, charBPESymbol{id: t.ascii[c]})
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(word[i:])
		if id, ok := t.ids[word[i:i+w]]; ok {
			s.syms = append(s.syms, charBPESymbol{id: id})
		} else {
			for k := i; k < i+w; k++ {
				s.syms = append(s.syms, charBPESymbol{id: t.byteID[word[k]]})
			}
		}
		i += w
	}
	return t.merge(dst, s)
}

// merge runs the merges over the symbols of s and appends the ids left.
func (t *CharBPETokenizer) merge(dst []uint32, s *charBPEScratch) []uint32 {
	syms := s.syms
	for i := range syms {
		syms[i].prev, syms[i].next = int32(i-1), int32(i+1)
	}
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
	s.heap = s.heap[:0]
	for i := 0; i+1 < len(syms); i++ {
		t.pushPair(s, int32(i), int32(i+1))
	}
	for len(s.heap) > 0 {
		p := s.heap.pop()
		l := &syms[p.left]
		if l.id != p.lid || l.next < 0 || syms[l.next].id != p.rid {
			continue
		}
		r := l.next
		l.id, l.next = p.to, syms[r].next
		syms[r].id = -1
		if l.next >= 0 {
			syms[l.next].prev = p.left
			t.pushPair(s, p.left, l.next)
		}
		if l.prev >= 0 {
			t.pushPair(s, l.prev, p.left)
		}
	}
	for i := int32(0); len(syms) > 0 && i >= 0; i = syms[i].next {
		dst = append(dst, uint32(syms[i].id))
	}
	return dst
}

// pushPair queues the merge of symbols a and b when their pair has one.
func (t *CharBPETokenizer) pushPair(s *charBPEScratch, a, b int32) {
	la, lb := s.syms[a].id, s.syms[b].id
	if v, ok := t.merges.get(uint64(la)<<32 | uint64(lb)); ok {
		s.heap.push(charBPEPair{rank: int32(v >> 32), left: a, lid: la, rid: lb, to: int32(uint32(v))})
	}
}

// SplitFraming splits framing text into ordinary runs and added tokens, for callers that count
// the runs between two added tokens as one text each.
func (t *CharBPETokenizer) SplitFraming(text string, fn func(chunk string, special bool)) {
	t.special.partition(text, func(chunk string, _ int32, special bool) { fn(chunk, special) })
}

// Decode returns the text of a token sequence: "▁" as a space, <0xXX> tokens as their byte.
func (t *CharBPETokenizer) Decode(ids []int) ([]byte, error) {
	var out []byte
	for _, id := range ids {
		if id < 0 || id >= len(t.texts) || t.texts[id] == "" {
			return nil, fmt.Errorf("%s: token id %d is not in the vocabulary", t.name, id)
		}
		if b := t.byteOf[id]; b >= 0 {
			out = append(out, byte(b))
			continue
		}
		out = append(out, strings.ReplaceAll(t.texts[id], "▁", " ")...)
	}
	return out, nil
}
