// Package tokenize holds the tokenizers the counts are made with: tiktoken encodings,
// Hugging Face tokenizer.json and GGUF vocabularies as one byte-level BPE with the
// pre-tokenizer each names, GGUF SentencePiece, Gemma 4, WordPiece and Unigram vocabularies as
// llama.cpp runs them, and the fast count of long base64 runs (docs/pipeline.md §13).
package tokenize

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Tokenizer turns text into token ids of one model's vocabulary.
//
// Ordinary text (Encode, Count) never produces special tokens: a string such as
// `<|im_start|>` inside user content is tokenized as the characters it is made of. Framing
// text written by a chat template (EncodeFraming, CountFraming) recognises the vocabulary's
// special and added tokens. This is a deliberate choice: content is data, and only the
// template may emit control tokens (llama.cpp's server does parse specials in content, so a
// message that quotes a control token costs a few tokens more here than there).
type Tokenizer interface {
	// Name identifies the vocabulary: "o200k_base", "cl100k_base", or the file it came from.
	Name() string
	// Encode returns the token ids of ordinary text.
	Encode(text string) []int
	// Count returns len(Encode(text)) without building the list.
	Count(text string) int
	// EncodeFraming returns the token ids of template framing: special tokens are recognised.
	EncodeFraming(text string) []int
	// CountFraming returns len(EncodeFraming(text)) without building the list.
	CountFraming(text string) int
	// Decode returns the bytes of a token sequence (specials as their text).
	Decode(ids []int) ([]byte, error)
	// SpecialID returns the id of a special or added token given by its text.
	SpecialID(text string) (int, bool)
}

// Default tokenizer spec of LoadTokenizer.
const DefaultTokenizer = "o200k_base"

// LoadTokenizer loads a tokenizer from a spec: "o200k_base" (also ""), "cl100k_base", a path
// to a model `.gguf` file, or a path to a Hugging Face `tokenizer.json` (a directory holding
// one is accepted too).
func LoadTokenizer(spec string) (Tokenizer, error) {
	switch spec {
	case "", "o200k_base":
		return asTokenizer(loadTiktoken("o200k_base"))
	case "cl100k_base":
		return asTokenizer(loadTiktoken("cl100k_base"))
	}
	info, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: not o200k_base, cl100k_base or a readable file: %w", spec, err)
	}
	if info.IsDir() {
		return loadHFFile(filepath.Join(spec, "tokenizer.json"))
	}
	if strings.EqualFold(filepath.Ext(spec), ".gguf") {
		return LoadGGUF(spec)
	}
	if head, err := readHead(spec, 4); err == nil && string(head) == "GGUF" {
		return LoadGGUF(spec)
	}
	return loadHFFile(spec)
}

// asTokenizer keeps a nil *BPETokenizer from becoming a non-nil interface.
func asTokenizer(t *BPETokenizer, err error) (Tokenizer, error) {
	if err != nil {
		return nil, err
	}
	return t, nil
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	m, err := f.Read(b)
	return b[:m], err
}

// BPETokenizer is a byte-level BPE tokenizer: a pre-tokenizer, a BPE engine and a table of
// special tokens. It is safe for concurrent use.
type BPETokenizer struct {
	name   string
	engine *bpeEngine
	split  pieceSplitter
	// cascade, when not nil, splits text in place of split (llama.cpp's cascades of regular
	// expressions).
	cascade  []cascadeStage
	pretoken string
	// specials maps special/added token text to its id; specialsByByte indexes them by
	// first byte, longest first, for framing scans.
	specials       map[string]uint32
	specialsByByte [256][]string
	// normalize is applied to text before splitting (Hugging Face NFC), or nil.
	normalize func(string) string
	decoder   tokenTexts
	scratch   sync.Pool
	// b64Fast says countOrdinary may count runs of base64 with countB64Pieces.
	b64Fast bool
	// asciiFast says countOrdinary may count ASCII text with countASCIIPieces (every
	// pre-tokenizer but GPT-2's).
	asciiFast bool
	// user holds the user-defined tokens of a GGUF vocabulary (or the non-special added
	// tokens of a tokenizer.json), found in ordinary text too (as llama.cpp finds them without
	// parse_special, and Hugging Face), or nil.
	user *specialSet
	// bos is the text of the BOS token the vocabulary adds to every prompt (a GGUF's
	// tokenizer.ggml.add_bos_token), or "".
	bos string
}

// AddedBOS returns the text of the BOS token the tokenizer adds in front of every prompt, and
// whether it adds one.
func (t *BPETokenizer) AddedBOS() (string, bool) { return t.bos, t.bos != "" }

// bpeSpec is what a vocabulary source hands to newBPETokenizer.
type bpeSpec struct {
	name            string
	mode            bpeMode
	vocab           map[string]uint32 // token bytes → id
	merges          *u64Table         // left<<32|right → rank<<32|merged id
	wholePieceFirst bool
	pretokenizer    string // a pre* name
	specials        map[string]uint32
	normalize       func(string) string
	// dropMissingBytes accepts a vocabulary in which some bytes have no token: such a byte
	// counts no token and the bytes on either side merge apart, as llama.cpp runs a GGUF (most
	// lack only the bytes UTF-8 never uses).
	dropMissingBytes bool
}

func newBPETokenizer(sp bpeSpec) (*BPETokenizer, error) {
	split, ok := pretokenizerByName(sp.pretokenizer)
	var cascade []cascadeStage
	if stages, isCascade := cascades[sp.pretokenizer]; !ok && isCascade {
		cascade, ok = compileCascade(stages), true
	}
	if !ok {
		return nil, fmt.Errorf("%s: unknown pre-tokenizer %q", sp.name, sp.pretokenizer)
	}
	if sp.mode == rankByMergeList && sp.merges == nil {
		return nil, fmt.Errorf("%s: merge-list BPE without merges", sp.name)
	}
	e := &bpeEngine{mode: sp.mode, merges: sp.merges, wholePieceFirst: sp.wholePieceFirst}
	var missing []int
	for b := 0; b < 256; b++ {
		id, ok := sp.vocab[string([]byte{byte(b)})]
		if !ok {
			missing = append(missing, b)
			continue
		}
		e.byteID[b], e.byteOK[b] = id, true
	}
	if len(missing) > 0 && !sp.dropMissingBytes {
		return nil, fmt.Errorf("%s: vocabulary is not byte-level: %d single bytes have no token (first: 0x%02x)", sp.name, len(missing), missing[0])
	}
	maxID := uint32(0)
	for _, id := range sp.vocab {
		maxID = max(maxID, id)
	}
	for _, id := range sp.specials {
		maxID = max(maxID, id)
	}
	if maxID > 1<<24 {
		return nil, fmt.Errorf("%s: token id %d is implausibly large", sp.name, maxID)
	}
	vocab, decoder, err := newVocabTables(sp.name, sp.vocab, sp.specials, maxID)
	if err != nil {
		return nil, err
	}
	e.vocab, e.index = vocab, newTokenIndex(vocab)
	t := &BPETokenizer{name: sp.name, engine: e, split: split, cascade: cascade, pretoken: sp.pretokenizer,
		specials: sp.specials, normalize: sp.normalize, decoder: decoder}
	for text := range sp.specials {
		if text != "" {
			t.specialsByByte[text[0]] = append(t.specialsByByte[text[0]], text)
		}
	}
	for i := range t.specialsByByte {
		l := t.specialsByByte[i]
		sort.Slice(l, func(a, b int) bool {
			if len(l[a]) != len(l[b]) {
				return len(l[a]) > len(l[b])
			}
			return l[a] < l[b]
		})
	}
	t.scratch.New = func() any { return new(bpeScratch) }
	t.b64Fast = t.b64FastPath()
	t.asciiFast = hasASCIIPath(t.pretoken) && (len(missing) == 0 || missing[0] >= utf8.RuneSelf)
	return t, nil
}

// Name identifies the vocabulary.
func (t *BPETokenizer) Name() string { return t.name }

// CutsProven says whether text may be counted in parts cut where the prompt counter's rules
// cut it (after a newline, between a digit and an ASCII letter): the rules are proven for the
// pre-tokenizers of tiktoken, Qwen2 and GPT-2, not for llama.cpp's cascades, and hold with
// user-defined tokens only when no such token holds a place they cut.
func (t *BPETokenizer) CutsProven() bool {
	switch t.pretoken {
	case preO200K, preCL100K, preQwen2, preGPT2:
	default:
		return false
	}
	if t.user == nil {
		return true
	}
	for text := range t.user.ids {
		for i := 1; i < len(text); i++ {
			if a, b := text[i-1], text[i]; a == '\n' || a >= '0' && a <= '9' && (b|0x20) >= 'a' && (b|0x20) <= 'z' {
				return false
			}
		}
	}
	return true
}

// Pretokenizer names the pre-tokenizer in use (o200k, cl100k, qwen2, gpt2).
func (t *BPETokenizer) Pretokenizer() string { return t.pretoken }

// SpecialID returns the id of a special or added token.
func (t *BPETokenizer) SpecialID(text string) (int, bool) {
	id, ok := t.specials[text]
	return int(id), ok
}

// prepare makes text valid UTF-8 the way tiktoken-go does (each invalid byte becomes U+FFFD)
// and applies the normaliser.
func (t *BPETokenizer) prepare(text string) string {
	text = InvalidBytesAsRune(text)
	if t.normalize != nil {
		text = t.normalize(text)
	}
	return text
}

// InvalidBytesAsRune is s with each byte that is not UTF-8 replaced by U+FFFD (one for each
// byte, unlike strings.ToValidUTF8, which replaces a run of them with one); valid s comes back
// as it is.
func InvalidBytesAsRune(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// Encode returns the token ids of ordinary text (a GGUF vocabulary's user-defined tokens and
// a tokenizer.json's non-special added tokens are recognised in it, no other special token).
func (t *BPETokenizer) Encode(text string) []int {
	s := t.scratch.Get().(*bpeScratch)
	defer t.scratch.Put(s)
	if t.user != nil {
		var ids []uint32
		t.user.partition(text, func(chunk string, id int32, special bool) {
			if special {
				ids = append(ids, uint32(id))
			} else {
				ids = t.encodeOrdinary(ids, t.prepare(chunk), s)
			}
		})
		return widen(ids)
	}
	ids := t.encodeOrdinary(nil, t.prepare(text), s)
	return widen(ids)
}

// Count returns the number of tokens of ordinary text; it allocates nothing per token.
func (t *BPETokenizer) Count(text string) int {
	s := t.scratch.Get().(*bpeScratch)
	defer t.scratch.Put(s)
	if t.user != nil {
		n := 0
		t.user.partition(text, func(chunk string, _ int32, special bool) {
			if special {
				n++
			} else {
				n += t.countOrdinary(t.prepare(chunk), s)
			}
		})
		return n
	}
	return t.countOrdinary(t.prepare(text), s)
}

// EncodeFraming returns the token ids of framing text, recognising special tokens.
func (t *BPETokenizer) EncodeFraming(text string) []int {
	s := t.scratch.Get().(*bpeScratch)
	defer t.scratch.Put(s)
	var ids []uint32
	t.walkFraming(text, func(chunk string, special uint32, isSpecial bool) {
		if isSpecial {
			ids = append(ids, special)
			return
		}
		ids = t.encodeOrdinary(ids, t.prepare(chunk), s)
	})
	return widen(ids)
}

// CountFraming returns the number of tokens of framing text, recognising special tokens.
func (t *BPETokenizer) CountFraming(text string) int {
	s := t.scratch.Get().(*bpeScratch)
	defer t.scratch.Put(s)
	n := 0
	t.walkFraming(text, func(chunk string, _ uint32, isSpecial bool) {
		if isSpecial {
			n++
			return
		}
		n += t.countOrdinary(t.prepare(chunk), s)
	})
	return n
}

// walkFraming calls fn for each run of ordinary text and each special token of text, in
// order. Special tokens are matched leftmost, longest first.
func (t *BPETokenizer) walkFraming(text string, fn func(chunk string, id uint32, special bool)) {
	last := 0
	for i := 0; i < len(text); i++ {
		cands := t.specialsByByte[text[i]]
		if len(cands) == 0 {
			continue
		}
		for _, sp := range cands {
			if strings.HasPrefix(text[i:], sp) {
				if last < i {
					fn(text[last:i], 0, false)
				}
				fn(sp, t.specials[sp], true)
				i += len(sp) - 1
				last = i + 1
				break
			}
		}
	}
	if last < len(text) {
		fn(text[last:], 0, false)
	}
}

// SplitFraming splits framing text into ordinary runs and special tokens, for callers that
// cache the ordinary runs.
func (t *BPETokenizer) SplitFraming(text string, fn func(chunk string, special bool)) {
	t.walkFraming(text, func(chunk string, _ uint32, special bool) { fn(chunk, special) })
}

func (t *BPETokenizer) encodeOrdinary(dst []uint32, text string, s *bpeScratch) []uint32 {
	if t.cascade != nil {
		splitCascade(t.cascade, text, func(piece string) { dst = t.encodePiece(dst, piece, s) })
		return dst
	}
	for p := 0; p < len(text); {
		end := t.split(text, p)
		dst = t.encodePiece(dst, text[p:end], s)
		p = end
	}
	return dst
}

// encodePiece appends the ids of one piece; a byte without a token is left out and the runs
// on either side of it merge apart.
func (t *BPETokenizer) encodePiece(dst []uint32, piece string, s *bpeScratch) []uint32 {
	out, ok := t.engine.encodePiece(dst, piece, s)
	if ok {
		return out
	}
	for start := 0; start < len(piece); {
		end := start
		for end < len(piece) && t.engine.byteOK[piece[end]] {
			end++
		}
		if end > start {
			dst, _ = t.engine.mergePiece(dst, piece[start:end], s)
		}
		start = end + 1
	}
	return dst
}

// countPiece returns the number of tokens of one piece, as encodePiece makes them.
func (t *BPETokenizer) countPiece(piece string, s *bpeScratch) int {
	if n, ok := t.engine.countPiece(piece, s); ok {
		return n
	}
	return len(t.encodePiece(nil, piece, s))
}

func (t *BPETokenizer) countOrdinary(text string, s *bpeScratch) int {
	n := 0
	if t.cascade != nil {
		splitCascade(t.cascade, text, func(piece string) { n += t.countPiece(piece, s) })
		return n
	}
	// The base64 fast path is tried where the last piece ended on a base64 byte and eight more
	// follow (in prose it would stop at once after every word); the ASCII fast path takes every
	// piece it can decide, and the general path each one it leaves.
	fast := t.b64Fast
	for p := 0; p < len(text); {
		if fast && b64Ahead(text, p) {
			c, stop := t.engine.countB64Pieces(text, p, s)
			if n, p = n+c, stop; p == len(text) {
				break
			}
		}
		if t.asciiFast {
			c, stop, b64 := t.countASCIIPieces(text, p, s)
			if n, p = n+c, stop; p == len(text) {
				break
			}
			if fast = b64; b64 {
				continue
			}
		}
		end := t.split(text, p)
		n += t.countPiece(text[p:end], s)
		p = end
		fast = t.b64Fast && p < len(text) && b64Class[text[p]] != b64Other && b64Class[text[p-1]] != b64Other
	}
	return n
}

// Decode returns the bytes of a token sequence.
func (t *BPETokenizer) Decode(ids []int) ([]byte, error) {
	var out []byte
	for i, id := range ids {
		text, ok := t.decoder.at(id)
		if !ok {
			return out, fmt.Errorf("decode %s: token %d (at %d) is not in the vocabulary", t.name, id, i)
		}
		out = append(out, text...)
	}
	return out, nil
}

func widen(ids []uint32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// errNotByteLevel is returned for vocabularies this engine cannot run.
var errNotByteLevel = errors.New("only byte-level BPE vocabularies are supported")
