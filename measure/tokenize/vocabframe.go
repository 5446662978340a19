package tokenize

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// vocabFrame is what the GGUF vocabularies this package runs with their own algorithm
// (SentencePiece, Gemma 4's BPE, WordPiece, Unigram) share: the token texts, the partition of
// a prompt at special tokens as llama.cpp makes it, the BOS added in front, and the pool of
// scratch buffers. Each kind sets run, which appends the ids of one run of ordinary text.
type vocabFrame struct {
	name  string
	texts []string // id → text ("[EMPTY_<id>]" for an empty one, as llama.cpp names it)
	types []int32  // id → llama.cpp token type (nil: all normal)
	// user holds the user-defined tokens (found in ordinary text too), special every special
	// token (control, user-defined and unknown: found in framing).
	user, special *specialSet
	bos           string
	// run appends the ids of a run of ordinary text; afterSpecial says a special token (or
	// the start of the text) is right before it.
	run     func(dst []uint32, text string, afterSpecial bool, s *runScratch) []uint32
	scratch sync.Pool
}

// runScratch holds one goroutine's buffers, for any kind of run.
type runScratch struct {
	ids  []uint32
	buf  []byte
	syms []mergeSymbol
	heap []mergePair
	best []ugmBest
	// counting says only the number of ids is wanted: a run may append zeros for ids it
	// recalls the count of from memo.
	counting bool
	memo     *pieceMemo
	longMemo map[string]uint32 // counts of words too long for memo (charMerger)
	ugmMemo  *ugmMemo
	ids2     []uint32 // a word's ids, counted apart from ids
}

// init names the vocabulary and indexes its special tokens; rstrip, when not nil, says which
// of them take the white space after them.
func (f *vocabFrame) init(name string, tokens []string, types []int32, rstrip func(text string) bool) {
	f.name, f.texts, f.types = name, make([]string, len(tokens)), types
	userIDs, specialIDs := map[string]int32{}, map[string]int32{}
	strip := map[string]uint8{}
	for id, text := range tokens {
		if text == "" {
			text = fmt.Sprintf("[EMPTY_%d]", id)
		}
		f.texts[id] = text
		if types == nil {
			continue
		}
		switch types[id] {
		case ggufTokenUserDefined:
			userIDs[text] = int32(id)
			specialIDs[text] = int32(id)
		case ggufTokenControl, ggufTokenUnknown:
			specialIDs[text] = int32(id)
		default:
			continue
		}
		if rstrip != nil && rstrip(text) {
			strip[text] = stripRight
		}
	}
	f.user, f.special = newSpecialSet(userIDs, strip), newSpecialSet(specialIDs, strip)
}

// Name identifies the vocabulary.
func (f *vocabFrame) Name() string { return f.name }

// AddedBOS returns the text of the BOS token the tokenizer adds in front of every prompt, and
// whether it adds one.
func (f *vocabFrame) AddedBOS() (string, bool) { return f.bos, f.bos != "" }

// SpecialID returns the id of a control, user-defined or unknown token given by its text.
func (f *vocabFrame) SpecialID(text string) (int, bool) {
	id, ok := f.special.ids[text]
	return int(id), ok
}

// Encode returns the token ids of ordinary text: user-defined tokens are recognised (as
// llama.cpp does without parse_special), control tokens are not.
func (f *vocabFrame) Encode(text string) []int { return widen(f.encodeWith(text, f.user, false)) }

// Count returns len(Encode(text)).
func (f *vocabFrame) Count(text string) int { return len(f.encodeWith(text, f.user, true)) }

// EncodeFraming returns the token ids of framing text: every special token is recognised.
func (f *vocabFrame) EncodeFraming(text string) []int {
	return widen(f.encodeWith(text, f.special, false))
}

// CountFraming returns len(EncodeFraming(text)).
func (f *vocabFrame) CountFraming(text string) int {
	return len(f.encodeWith(text, f.special, true))
}

// SplitFraming splits framing text into ordinary runs and special tokens (the runs with the
// white space a Phi-3 special token takes taken off), for callers that count the runs
// between two special tokens as one text each.
func (f *vocabFrame) SplitFraming(text string, fn func(chunk string, special bool)) {
	f.special.partition(text, func(chunk string, _ int32, special bool) { fn(chunk, special) })
}

// encodeWith encodes text split at the special tokens of set; scratch says the ids may be
// the pooled buffer's (only their number is read).
func (f *vocabFrame) encodeWith(text string, set *specialSet, scratch bool) []uint32 {
	s, _ := f.scratch.Get().(*runScratch)
	if s == nil {
		s = new(runScratch)
	}
	defer f.scratch.Put(s)
	ids := s.ids[:0]
	s.counting = scratch
	afterSpecial := true
	set.partition(text, func(chunk string, id int32, special bool) {
		if special {
			ids = append(ids, uint32(id))
		} else {
			ids = f.run(ids, chunk, afterSpecial, s)
		}
		afterSpecial = special
	})
	if scratch {
		s.ids = ids
		return ids
	}
	return slices.Clone(ids)
}

// Decode returns the bytes of a token sequence: "▁" as a space in normal tokens, <0xXX> as
// its byte, other tokens as their text.
func (f *vocabFrame) Decode(ids []int) ([]byte, error) {
	var out []byte
	for i, id := range ids {
		if id < 0 || id >= len(f.texts) {
			return out, fmt.Errorf("decode %s: token %d (at %d) is not in the vocabulary", f.name, id, i)
		}
		text := f.texts[id]
		typ := int32(ggufTokenNormal)
		if f.types != nil {
			typ = f.types[id]
		}
		switch {
		case typ == ggufTokenByte && len(text) == 6 && strings.HasPrefix(text, "<0x"):
			var b byte
			if _, err := fmt.Sscanf(text[3:5], "%02X", &b); err != nil {
				return out, fmt.Errorf("decode %s: byte token %q: %w", f.name, text, err)
			}
			out = append(out, b)
		case typ == ggufTokenNormal:
			out = append(out, strings.ReplaceAll(text, escapedSpace, " ")...)
		default:
			out = append(out, text...)
		}
	}
	return out, nil
}

// escapedSpace is the "▁" SentencePiece-style vocabularies write for a space.
const escapedSpace = "\u2581"
