package tokenize

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/strata-eval/strata-eval/internal/jsonpos"
	"golang.org/x/text/unicode/norm"
)

// byteLevelDecoder maps the printable runes of GPT-2's byte-level alphabet back to bytes:
// '!'–'~', 0xA1–0xAC and 0xAE–0xFF stand for themselves; the other 68 bytes, in ascending
// order, are U+0100, U+0101, ….
func byteLevelDecoder() map[rune]byte {
	m := make(map[rune]byte, 256)
	next := rune(0x100)
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[rune(b)] = byte(b)
			continue
		}
		m[next] = byte(b)
		next++
	}
	return m
}

// decodeByteLevel turns a byte-level token string into its bytes.
func decodeByteLevel(dec map[rune]byte, tok string) (string, bool) {
	var b strings.Builder
	b.Grow(len(tok))
	for _, r := range tok {
		c, ok := dec[r]
		if !ok {
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// isAddedToken says whether text with that id is one of the added tokens.
func (f *hfTokenizerFile) isAddedToken(text string, id int) bool {
	for _, at := range f.AddedTokens {
		if at.Content == text && at.ID == id {
			return true
		}
	}
	return false
}

// hfTokenizerFile is the part of a Hugging Face tokenizer.json that byte-level BPE needs.
type hfTokenizerFile struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Model        struct {
		Type                    string          `json:"type"`
		Vocab                   map[string]int  `json:"vocab"`
		Merges                  json.RawMessage `json:"merges"`
		IgnoreMerges            bool            `json:"ignore_merges"`
		ByteFallback            bool            `json:"byte_fallback"`
		ContinuingSubwordPrefix string          `json:"continuing_subword_prefix"`
		EndOfWordSuffix         string          `json:"end_of_word_suffix"`
	} `json:"model"`
}

type hfComponent struct {
	Type           string          `json:"type"`
	Normalizers    []hfComponent   `json:"normalizers"`
	Pretokenizers  []hfComponent   `json:"pretokenizers"`
	AddPrefixSpace bool            `json:"add_prefix_space"`
	UseRegex       *bool           `json:"use_regex"`
	Pattern        json.RawMessage `json:"pattern"`
	Behavior       string          `json:"behavior"`
	Invert         bool            `json:"invert"`
}

// loadHFFile loads a Hugging Face tokenizer.json: a byte-fallback BPE model as a
// CharBPETokenizer, any other as LoadHFTokenizer does.
func loadHFFile(path string) (Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	var f hfTokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, jsonpos.ErrorAt(data, err))
	}
	if isCharBPE(&f) {
		return newCharBPETokenizer(path, &f)
	}
	return asTokenizer(buildHFByteLevel(path, &f))
}

// LoadHFTokenizer loads a Hugging Face tokenizer.json of a byte-level BPE model (Qwen2/2.5/3,
// Llama 3, GPT-2 style): model type BPE, a ByteLevel pre-tokenizer (alone, or after a Split
// whose regular expression is one this package implements), an optional NFC normaliser, and
// added tokens (all recognised in template framing, the non-special ones in content too).
func LoadHFTokenizer(path string) (*BPETokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	return parseHFTokenizer(path, data)
}

func parseHFTokenizer(name string, data []byte) (*BPETokenizer, error) {
	var f hfTokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, jsonpos.ErrorAt(data, err))
	}
	return buildHFByteLevel(name, &f)
}

// buildHFByteLevel builds the tokenizer of a byte-level BPE tokenizer.json.
func buildHFByteLevel(name string, f *hfTokenizerFile) (*BPETokenizer, error) {
	if f.Model.Type != "BPE" {
		return nil, fmt.Errorf("%s at /model/type: model type %q is not supported (%v)", name, f.Model.Type, errNotByteLevel)
	}
	if f.Model.ContinuingSubwordPrefix != "" || f.Model.EndOfWordSuffix != "" {
		return nil, fmt.Errorf("%s at /model: subword prefixes/suffixes are not supported (%v)", name, errNotByteLevel)
	}
	normalize, err := hfNormalizer(f.Normalizer)
	if err != nil {
		return nil, fmt.Errorf("%s at /normalizer: %w", name, err)
	}
	pre, err := hfPretokenizer(f.PreTokenizer)
	if err != nil {
		return nil, fmt.Errorf("%s at /pre_tokenizer: %w", name, err)
	}
	dec := byteLevelDecoder()
	vocab := make(map[string]uint32, len(f.Model.Vocab))
	for tok, id := range f.Model.Vocab {
		raw, ok := decodeByteLevel(dec, tok)
		if !ok && f.isAddedToken(tok, id) {
			continue // DeepSeek V3 lists its added tokens in the vocabulary too, as written
		}
		if !ok {
			return nil, fmt.Errorf("%s at /model/vocab/%s: token is not in the byte-level alphabet (%v)", name, jsonPointerEscape(tok), errNotByteLevel)
		}
		if id < 0 || id > 1<<24 {
			return nil, fmt.Errorf("%s at /model/vocab/%s: id %d out of range", name, jsonPointerEscape(tok), id)
		}
		vocab[raw] = uint32(id)
	}
	pairs, err := hfMerges(f.Model.Merges)
	if err != nil {
		return nil, fmt.Errorf("%s at /model/merges: %w", name, err)
	}
	merges, err := buildMerges(pairs, f.Model.Vocab, func(i int) string { return fmt.Sprintf("%s at /model/merges/%d", name, i) })
	if err != nil {
		return nil, err
	}
	specials, user := map[string]uint32{}, map[string]int32{}
	for i, at := range f.AddedTokens {
		if at.Content == "" || at.ID < 0 || at.ID > 1<<24 {
			return nil, fmt.Errorf("%s at /added_tokens/%d: empty content or bad id %d", name, i, at.ID)
		}
		specials[at.Content] = uint32(at.ID)
		if !at.Special {
			user[at.Content] = int32(at.ID)
		}
	}
	t, err := newBPETokenizer(bpeSpec{
		name:            name,
		mode:            rankByMergeList,
		vocab:           vocab,
		merges:          merges,
		wholePieceFirst: f.Model.IgnoreMerges,
		pretokenizer:    pre,
		specials:        specials,
		normalize:       normalize,
	})
	if err == nil && len(user) > 0 {
		t.user = newSpecialSet(user, nil) // Hugging Face finds a non-special added token in content too
	}
	return t, err
}

// buildMerges turns merge pairs (in byte-level form) into the engine's table. vocab maps the
// byte-level token strings to ids.
func buildMerges(pairs [][2]string, vocab map[string]int, where func(int) string) (*u64Table, error) {
	t := newU64Table(len(pairs))
	for i, p := range pairs {
		l, okL := vocab[p[0]]
		r, okR := vocab[p[1]]
		m, okM := vocab[p[0]+p[1]]
		if !okL || !okR || !okM {
			return nil, fmt.Errorf("%s: merge %q + %q names a token that is not in the vocabulary", where(i), p[0], p[1])
		}
		// A repeated pair keeps its last rank, as Hugging Face's merge map does.
		t.put(uint64(l)<<32|uint64(r), uint64(i)<<32|uint64(m))
	}
	return t, nil
}

// hfMerges reads merges written as "a b" strings or as ["a", "b"] pairs.
func hfMerges(raw json.RawMessage) ([][2]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var asStrings []string
	if err := json.Unmarshal(raw, &asStrings); err == nil {
		out := make([][2]string, len(asStrings))
		for i, s := range asStrings {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("/%d: merge %q has no space", i, s)
			}
			out[i] = [2]string{a, b}
		}
		return out, nil
	}
	var asPairs [][]string
	if err := json.Unmarshal(raw, &asPairs); err != nil {
		return nil, fmt.Errorf("merges are neither strings nor pairs: %w", err)
	}
	out := make([][2]string, len(asPairs))
	for i, p := range asPairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("/%d: merge has %d parts, want 2", i, len(p))
		}
		out[i] = [2]string{p[0], p[1]}
	}
	return out, nil
}

// hfNormalizer accepts no normaliser, NFC, or a sequence of NFC only.
func hfNormalizer(raw json.RawMessage) (func(string) string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var c hfComponent
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	list := []hfComponent{c}
	if c.Type == "Sequence" {
		list = c.Normalizers
	}
	var nfc bool
	for _, n := range list {
		if n.Type != "NFC" {
			return nil, fmt.Errorf("normaliser %q is not supported (only NFC)", n.Type)
		}
		nfc = true
	}
	if !nfc {
		return nil, nil
	}
	return nfcString, nil
}

// nfcString applies Unicode NFC, skipping the work for text that is already NFC (all ASCII,
// most of the time).
func nfcString(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			if norm.NFC.IsNormalString(s) {
				return s
			}
			return norm.NFC.String(s)
		}
	}
	return s
}

// hfPretokenizer maps a pre_tokenizer object to a splitter name.
func hfPretokenizer(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("no pre-tokenizer (%v)", errNotByteLevel)
	}
	var c hfComponent
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", err
	}
	byteLevel := func(b hfComponent, wantRegex bool) error {
		if b.Type != "ByteLevel" {
			return fmt.Errorf("pre-tokenizer %q is not supported (%v)", b.Type, errNotByteLevel)
		}
		if b.AddPrefixSpace {
			return fmt.Errorf("ByteLevel add_prefix_space=true is not supported")
		}
		useRegex := b.UseRegex == nil || *b.UseRegex
		if useRegex != wantRegex {
			return fmt.Errorf("ByteLevel use_regex=%v is not supported here", useRegex)
		}
		return nil
	}
	switch c.Type {
	case "ByteLevel":
		if err := byteLevel(c, true); err != nil {
			return "", err
		}
		return preGPT2, nil
	case "Sequence":
		if name, ok := hfSplitSequence(c.Pretokenizers); ok {
			return name, nil
		}
		if len(c.Pretokenizers) != 2 {
			return "", fmt.Errorf("a Sequence of %d pre-tokenizers is not supported (want Split then ByteLevel)", len(c.Pretokenizers))
		}
		split := c.Pretokenizers[0]
		if split.Type != "Split" || split.Invert || split.Behavior != "Isolated" {
			return "", fmt.Errorf("/pretokenizers/0: want an Isolated, non-inverted Split, got %s %s invert=%v", split.Type, split.Behavior, split.Invert)
		}
		var pat struct {
			Regex *string `json:"Regex"`
		}
		if err := json.Unmarshal(split.Pattern, &pat); err != nil || pat.Regex == nil {
			return "", fmt.Errorf("/pretokenizers/0/pattern: want a Regex pattern")
		}
		name, ok := pretokenizerByRegex(*pat.Regex)
		if !ok {
			return "", fmt.Errorf("/pretokenizers/0/pattern/Regex: pattern %q is not one of the implemented pre-tokenizers (o200k, cl100k/Llama 3, Qwen2, GPT-2)", *pat.Regex)
		}
		if err := byteLevel(c.Pretokenizers[1], false); err != nil {
			return "", fmt.Errorf("/pretokenizers/1: %w", err)
		}
		return name, nil
	}
	return "", fmt.Errorf("pre-tokenizer %q is not supported (%v)", c.Type, errNotByteLevel)
}

// jsonPointerEscape escapes one JSON Pointer token.
func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
