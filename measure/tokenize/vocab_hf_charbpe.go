package tokenize

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// CharBPETokenizer is a Hugging Face tokenizer.json of a SentencePiece-style BPE model (Llama 2,
// Gemma 3, Mistral: model BPE with byte_fallback, spaces written "▁" by the normaliser): each
// text between added tokens is normalised, then merged by rank as charMerger merges, a
// character that is no token being its bytes' <0xXX> tokens. It is safe for concurrent use.
type CharBPETokenizer struct {
	charMerger
	name         string
	texts        []string // id → token text
	byteOf       []int16  // id → the byte of a <0xXX> token, else -1
	prepend      string   // the normaliser's Prepend ("▁" for Llama 2), or ""
	ignoreMerges bool
	// user holds the non-special added tokens (found in ordinary text too, as Hugging Face
	// finds every added token), special all of them (found in framing).
	user, special *specialSet
	scratch       sync.Pool
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
	t := &CharBPETokenizer{name: name, texts: make([]string, n), byteOf: make([]int16, n),
		prepend: prepend, ignoreMerges: f.Model.IgnoreMerges}
	t.bytesFirst = true
	ids := make(map[string]int32, n)
	for id := range t.byteOf {
		t.byteOf[id] = -1
	}
	for text, id := range f.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("%s at /model/vocab/%s: id %d out of range", name, jsonPointerEscape(text), id)
		}
		ids[text], t.texts[id] = int32(id), text
	}
	if err := t.addTokens(name, f, ids); err != nil {
		return nil, err
	}
	for b := range 256 {
		id, ok := ids[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			return nil, fmt.Errorf("%s at /model/vocab: byte_fallback without a <0x%02X> token", name, b)
		}
		t.byteID[b], t.byteOf[id] = id, int16(b)
	}
	pairs, err := hfMerges(f.Model.Merges)
	if err != nil {
		return nil, fmt.Errorf("%s at /model/merges: %w", name, err)
	}
	t.initMerger(ids, t.texts, t.cutsProvable(ids, pairs))
	if t.merges, err = buildMerges(pairs, f.Model.Vocab, func(i int) string { return fmt.Sprintf("%s at /model/merges/%d", name, i) }); err != nil {
		return nil, err
	}
	t.scratch.New = func() any { return new(runScratch) }
	return t, nil
}

// cutsProvable says whether a word may be merged in parts: not with ignore_merges, nor when
// a merge takes a <0xXX> token (its text is not the text's).
func (t *CharBPETokenizer) cutsProvable(ids map[string]int32, pairs [][2]string) bool {
	if t.ignoreMerges {
		return false
	}
	for _, p := range pairs {
		for _, side := range p {
			if id, ok := ids[side]; ok && t.byteOf[id] >= 0 {
				return false
			}
		}
	}
	return true
}

// addTokens indexes the added tokens: every one is found in framing, the non-special ones in
// ordinary text too.
func (t *CharBPETokenizer) addTokens(name string, f *hfTokenizerFile, ids map[string]int32) error {
	user, special := map[string]int32{}, map[string]int32{}
	for i, at := range f.AddedTokens {
		if at.Content == "" || at.ID < 0 || at.ID >= len(t.texts) {
			return fmt.Errorf("%s at /added_tokens/%d: empty content or bad id %d", name, i, at.ID)
		}
		ids[at.Content], t.texts[at.ID] = int32(at.ID), at.Content
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
func (t *CharBPETokenizer) Encode(text string) []int {
	return widen(t.encodeWith(text, t.user, false))
}

// Count returns len(Encode(text)).
func (t *CharBPETokenizer) Count(text string) int { return len(t.encodeWith(text, t.user, true)) }

// EncodeFraming returns the token ids of template framing: every added token is found.
func (t *CharBPETokenizer) EncodeFraming(text string) []int {
	return widen(t.encodeWith(text, t.special, false))
}

// CountFraming returns len(EncodeFraming(text)).
func (t *CharBPETokenizer) CountFraming(text string) int {
	return len(t.encodeWith(text, t.special, true))
}

// encodeWith encodes text split at the added tokens of set; counting says only the number of
// ids is read.
func (t *CharBPETokenizer) encodeWith(text string, set *specialSet, counting bool) []uint32 {
	s := t.scratch.Get().(*runScratch)
	defer t.scratch.Put(s)
	s.counting = counting
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

// encodeChunk normalises one run of text between added tokens and encodes it.
func (t *CharBPETokenizer) encodeChunk(dst []uint32, chunk string, s *runScratch) []uint32 {
	word := t.normalize(chunk, s)
	if t.ignoreMerges { // a word that is a token is that token
		if id := t.idOf(word); id >= 0 {
			return append(dst, uint32(id))
		}
	}
	return t.encode(dst, word, s)
}

// normalize applies the normaliser: the Prepend, then every space written "▁".
func (t *CharBPETokenizer) normalize(chunk string, s *runScratch) []byte {
	s.buf = appendEscaped(append(s.buf[:0], t.prepend...), chunk)
	return s.buf
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
