package tokenize

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	gguf "github.com/gpustack/gguf-parser-go"
	"golang.org/x/text/unicode/norm"
)

// WPMTokenizer is BERT's WordPiece as llama.cpp runs a GGUF vocabulary of
// `tokenizer.ggml.model` "bert": the text is cut into words at white space and around each
// punctuation mark, ASCII symbol and CJK ideograph (control characters dropped; lower-cased
// and accents stripped unless the vocabulary says otherwise), and each word, behind a "▁", is
// spelt greedily by its longest tokens from the left; a word that cannot be spelt is the
// unknown token. It is safe for concurrent use.
type WPMTokenizer struct {
	vocabFrame
	ids    map[string]int32
	maxLen int // bytes of the longest token
	unkID  int32
	// lower and strip are BertNormalizer's lowercase and strip_accents.
	lower, strip bool
}

// loadGGUFWPM loads a WordPiece vocabulary with llama.cpp's defaults: unknown token 100,
// [CLS] 101 as the BOS added in front, lowercase and strip_accents on, unless the file says
// otherwise.
func loadGGUFWPM(path string, kvs gguf.GGUFMetadataKVs) (*WPMTokenizer, error) {
	tokens, types, _, err := ggufScoredTokens(path, kvs)
	if err != nil {
		return nil, err
	}
	unk, cls := int32(100), int32(101)
	if err := ggufTokenIDs(path, kvs, len(tokens), map[string]*int32{"tokenizer.ggml.unknown_token_id": &unk, "tokenizer.ggml.bos_token_id": &cls}); err != nil {
		return nil, err
	}
	if int(unk) >= len(tokens) || int(cls) >= len(tokens) {
		return nil, fmt.Errorf("%s: %d tokens, fewer than BERT's unknown token %d and [CLS] %d", path, len(tokens), unk, cls)
	}
	t := &WPMTokenizer{ids: make(map[string]int32, len(tokens)), unkID: unk,
		lower: ggufBool(kvs, "tokenizer.ggml.normalizer.lowercase", true)}
	t.strip = ggufBool(kvs, "tokenizer.ggml.normalizer.strip_accents", t.lower)
	for id, text := range tokens {
		t.ids[text] = int32(id)
		t.maxLen = max(t.maxLen, len(text))
	}
	t.init(path, tokens, types, nil)
	t.bos = tokens[cls] // llama.cpp adds it whatever add_bos_token says (and [SEP] after the text)
	t.run = func(dst []uint32, text string, _ bool, s *runScratch) []uint32 { return t.encodeRun(dst, text, s) }
	return t, nil
}

// encodeRun appends the ids of one run of ordinary text, word by word.
func (t *WPMTokenizer) encodeRun(dst []uint32, text string, s *runScratch) []uint32 {
	const phantom = escapedSpace
	word := append(s.buf[:0], phantom...)
	flush := func() {
		if len(word) > len(phantom) {
			dst = t.encodeWord(dst, word)
		}
		word = word[:len(phantom)]
	}
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
		} else if wpmWordASCII[r] {
			if t.lower && r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			word = append(word, byte(r))
			i++
			continue
		}
		i += n
		if t.strip {
			r = wpmBase(r)
		}
		if unicode.Is(unicode.White_Space, r) {
			flush()
			continue
		}
		if r == 0 || r == utf8.RuneError || unicode.Is(unicode.C, r) || t.strip && unicode.Is(unicode.M, r) {
			continue
		}
		if t.lower {
			r = unicode.ToLower(r)
		}
		if unicode.IsPunct(r) || r < 0x7f && unicode.IsSymbol(r) || isCJKIdeograph(r) {
			flush()
			word = utf8.AppendRune(word, r)
			flush()
			continue
		}
		word = utf8.AppendRune(word, r)
	}
	flush()
	s.buf = word
	return dst
}

// encodeWord appends the ids of one word (behind its "▁"): its longest tokens from the left,
// or the unknown token when some place of it starts none.
func (t *WPMTokenizer) encodeWord(dst []uint32, word []byte) []uint32 {
	start := len(dst)
	for i := 0; i < len(word); {
		j := min(len(word), i+t.maxLen)
		for ; j > i; j-- {
			if id, ok := t.ids[string(word[i:j])]; ok {
				dst = append(dst, uint32(id))
				break
			}
		}
		if j == i {
			return append(dst[:start], uint32(t.unkID))
		}
		i = j
	}
	return dst
}

// wpmBase is the first character of r's canonical decomposition (llama.cpp strips accents by
// that table, one character for one).
func wpmBase(r rune) rune {
	if r < 0xc0 {
		return r
	}
	if r >= 0xac00 && r <= 0xd7a3 { // a Hangul syllable: its leading consonant (norm has no table of them)
		return 0x1100 + (r-0xac00)/588
	}
	var buf [utf8.UTFMax]byte
	d := norm.NFD.Properties(buf[:utf8.EncodeRune(buf[:], r)]).Decomposition()
	if len(d) == 0 {
		return r
	}
	base, _ := utf8.DecodeRune(d)
	return base
}

// wpmWordASCII marks the ASCII letters and digits: a word goes on over them (the other
// ASCII characters take the general path).
var wpmWordASCII = func() (k [utf8.RuneSelf]bool) {
	for c := range k {
		k[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return k
}()

// isCJKIdeograph says r is in one of the CJK ideograph blocks BERT cuts around (llama.cpp's
// ranges, Extension D's start as in Hugging Face's code).
func isCJKIdeograph(r rune) bool {
	return r >= 0x4e00 && r <= 0x9fff || r >= 0x3400 && r <= 0x4dbf || r >= 0x20000 && r <= 0x2a6df ||
		r >= 0x2a700 && r <= 0x2b73f || r >= 0x2b740 && r <= 0x2b81f || r >= 0x2b920 && r <= 0x2ceaf ||
		r >= 0xf900 && r <= 0xfaff || r >= 0x2f800 && r <= 0x2fa1f
}
