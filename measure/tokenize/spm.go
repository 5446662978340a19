package tokenize

import (
	"fmt"
	"strings"
)

// SPMTokenizer is a SentencePiece vocabulary as llama.cpp runs it (`tokenizer.ggml.model`
// "llama": Llama 2, Phi-3, Baichuan, Gemma 3, …): spaces become "▁", a "▁" is put in front of
// each text that follows a special token or starts the prompt (add_space_prefix), the pair of
// adjacent pieces whose merge is the token of highest score is merged first, and what forms no
// token is spelt as its bytes' <0xXX> tokens. It is safe for concurrent use.
type SPMTokenizer struct {
	vocabFrame
	charMerger
	spacePrefix bool
	// newlineRuns makes this the SentencePiece-shaped BPE of Gemma 4 (llama.cpp's "gemma4"
	// model, merged by rank): no merge crosses a newline, a run of newlines that is a token is
	// that token, invalid UTF-8 is read as U+FFFD and a byte without a <0xXX> token is dropped.
	newlineRuns bool
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
	t := &SPMTokenizer{spacePrefix: v.spacePrefix, newlineRuns: v.merges != nil}
	var rstrip func(string) bool
	if v.rstripSpecials {
		rstrip = func(text string) bool { return text != "<unk>" && text != "<s>" && text != "<|endoftext|>" }
	}
	t.init(v.name, v.tokens, v.types, rstrip)
	ids := make(map[string]int32, n)
	for id, text := range t.texts {
		ids[text] = int32(id)
	}
	t.initMerger(ids, t.texts, true)
	t.run = func(dst []uint32, text string, afterSpecial bool, s *runScratch) []uint32 {
		return t.encodeRun(dst, text, t.spacePrefix && afterSpecial, s)
	}
	if v.unkID < 0 || int(v.unkID) >= n {
		v.unkID = -1
	}
	if v.merges == nil {
		t.keys = scoreKeys(v.scores[:n])
	} else if err := t.setMerges(v.merges); err != nil {
		return nil, err
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

// encodeRun appends the ids of one run of ordinary text.
func (t *SPMTokenizer) encodeRun(dst []uint32, text string, prefix bool, s *runScratch) []uint32 {
	b := t.escape(s.buf[:0], text, prefix)
	s.buf = b
	if !t.newlineRuns {
		return t.encode(dst, b, s)
	}
	for lo := 0; lo < len(b); {
		hi, nl := lo+1, b[lo] == '\n'
		for hi < len(b) && (b[hi] == '\n') == nl {
			hi++
		}
		if nl {
			if id := t.idOf(b[lo:hi]); id >= 0 {
				dst, lo = append(dst, uint32(id)), hi
				continue
			}
		}
		dst, lo = t.encode(dst, b[lo:hi], s), hi
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
	return appendEscaped(b, text)
}

// setMerges builds the merge table of a merge-rank vocabulary from its "left right" merges
// (split at the first space after the first byte, as llama.cpp does).
func (t *SPMTokenizer) setMerges(merges []string) error {
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
