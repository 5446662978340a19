package tokenize

import (
	"slices"
	"sort"
)

// specialSet finds special tokens in text the way llama.cpp partitions a prompt before its
// tokenizer runs: the tokens are taken longest first, each at every place it occurs in what the
// longer ones left (leftmost first), and a token marked lstrip or rstrip takes the white space
// before or after it with it.
type specialSet struct {
	ids map[string]int32
	// lens holds, for each first byte, the lengths of the tokens that start with it, longest
	// first.
	lens [256][]int
	// strip holds the tokens that take white space with them (stripLeft, stripRight bits).
	strip map[string]uint8
}

// The strip bits of a special token.
const (
	stripLeft  = 1
	stripRight = 2
)

// newSpecialSet indexes the tokens of ids; strip may be nil.
func newSpecialSet(ids map[string]int32, strip map[string]uint8) *specialSet {
	s := &specialSet{ids: ids, strip: strip}
	for text := range ids {
		if text == "" {
			continue
		}
		if l := &s.lens[text[0]]; !slices.Contains(*l, len(text)) {
			*l = append(*l, len(text))
		}
	}
	for i := range s.lens {
		sort.Sort(sort.Reverse(sort.IntSlice(s.lens[i])))
	}
	return s
}

// specialMatch is one place a special token occurs.
type specialMatch struct {
	pos, n int
	id     int32
}

// partition calls fn for each run of ordinary text and each special token of text, in order.
// A run is never empty.
func (s *specialSet) partition(text string, fn func(chunk string, id int32, special bool)) {
	var found []specialMatch
	for i := 0; i < len(text); i++ {
		for _, n := range s.lens[text[i]] {
			if i+n > len(text) {
				continue
			}
			if id, ok := s.ids[text[i:i+n]]; ok {
				found = append(found, specialMatch{pos: i, n: n, id: id})
			}
		}
	}
	if len(found) == 0 {
		if text != "" {
			fn(text, 0, false)
		}
		return
	}
	// longest first, then (for tokens of one length) by id, then leftmost first; a match is
	// kept when it overlaps none kept before it
	sort.SliceStable(found, func(a, b int) bool {
		if found[a].n != found[b].n {
			return found[a].n > found[b].n
		}
		if found[a].id != found[b].id {
			return found[a].id < found[b].id
		}
		return found[a].pos < found[b].pos
	})
	kept := found[:0:0]
	for _, m := range found {
		at := sort.Search(len(kept), func(k int) bool { return kept[k].pos >= m.pos })
		if at > 0 && kept[at-1].pos+kept[at-1].n > m.pos || at < len(kept) && m.pos+m.n > kept[at].pos {
			continue
		}
		kept = slices.Insert(kept, at, m)
	}
	last := 0
	for k, m := range kept {
		chunk := text[last:m.pos]
		if s.strip[text[m.pos:m.pos+m.n]]&stripLeft != 0 {
			chunk = trimCSpaceRight(chunk)
		}
		if k > 0 && s.strip[text[kept[k-1].pos:kept[k-1].pos+kept[k-1].n]]&stripRight != 0 {
			chunk = trimCSpaceLeft(chunk)
		}
		if chunk != "" {
			fn(chunk, 0, false)
		}
		fn(text[m.pos:m.pos+m.n], m.id, true)
		last = m.pos + m.n
	}
	chunk := text[last:]
	if m := kept[len(kept)-1]; s.strip[text[m.pos:m.pos+m.n]]&stripRight != 0 {
		chunk = trimCSpaceLeft(chunk)
	}
	if chunk != "" {
		fn(chunk, 0, false)
	}
}

// isCSpace is C's isspace: space, \t, \n, \v, \f, \r.
func isCSpace(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' }

func trimCSpaceLeft(s string) string {
	for s != "" && isCSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func trimCSpaceRight(s string) string {
	for s != "" && isCSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}
