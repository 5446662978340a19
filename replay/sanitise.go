package replay

import (
	"strings"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
)

// Plane-14 TAG characters (docs/pipeline.md §8.1).
const (
	tagFirst      = 0xE0000 // first code point of the TAG block
	tagLast       = 0xE007F // CANCEL TAG, last code point of the block
	tagSpecFirst  = 0xE0020 // first TAG that can carry a tag spec (variant A)
	tagSpecLast   = 0xE007E // last TAG that can carry a tag spec (variant A)
	blackFlagBase = 0x1F3F4 // WAVING BLACK FLAG, the base of a subdivision flag
)

// pinnedFlagSpecs are the only emoji tag sequences variant B keeps: the RGI subdivision flags
// of England, Scotland and Wales.
var pinnedFlagSpecs = [...]string{"gbeng", "gbsct", "gbwls"}

// hasTagChars reports whether s holds any code point of U+E0000–U+E007F. In UTF-8 those all
// start with F3 A0 80 or F3 A0 81.
func hasTagChars(s string) bool {
	return strings.Contains(s, "\xf3\xa0\x80") || strings.Contains(s, "\xf3\xa0\x81")
}

func isTagRune(r rune) bool { return r >= tagFirst && r <= tagLast }

// StripTags removes the invisible TAG characters U+E0000–U+E007F from text an MCP server sent
// (text blocks, resource text, tool descriptions), keeping only the three pinned subdivision
// flags (England, Scotland, Wales) as whole sequences. This is the newest rule of the source
// agent (variant B, docs/pipeline.md §8.1). Text without TAG characters comes out
// unchanged; in text with TAG characters, bytes that are not valid UTF-8 become U+FFFD.
func StripTags(s string) string {
	return stripTags(s, pinnedFlagLen)
}

// stripTags removes TAG characters from s, keeping a WAVING BLACK FLAG together with the
// tag sequence after it when keptLen gives that sequence a length (0: not kept). Text without
// TAG characters comes out unchanged; in text with TAG characters, bytes that are not valid
// UTF-8 become U+FFFD.
func stripTags(s string, keptLen func(rest string) int) string {
	if !hasTagChars(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == blackFlagBase && size == 4:
			if n := keptLen(s[i+size:]); n > 0 {
				b.WriteString(s[i : i+size+n])
				i += size + n
				continue
			}
			b.WriteString(s[i : i+size])
		case isTagRune(r):
			// dropped
		case r == utf8.RuneError && size == 1:
			// An invalid byte becomes U+FFFD (as a JSON decoder would have made it), so that
			// removing a TAG character can never splice fragments into a new one.
			b.WriteString("\ufffd")
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// pinnedFlagLen returns the byte length of tag(spec)+CANCEL at the start of s when spec is one
// of the pinned flags, else 0.
func pinnedFlagLen(s string) int {
	for _, spec := range pinnedFlagSpecs {
		n := 0
		ok := true
		for j := 0; j < len(spec); j++ {
			r, size := utf8.DecodeRuneInString(s[n:])
			if r != tagFirst+rune(spec[j]) {
				ok = false
				break
			}
			n += size
		}
		if !ok {
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[n:]); r == tagLast {
			return n + size
		}
	}
	return 0
}

// StripTagsShapePreserving is the original rule of the source agent (variant A,
// docs/pipeline.md §8.1): it keeps every U+1F3F4 followed by one or more code points of
// U+E0020–U+E007E and then U+E007F, whatever the payload, and removes every other TAG
// character. It is kept for comparison; StripTags is the rule applied to model-bound text.
func StripTagsShapePreserving(s string) string {
	return stripTags(s, tagSequenceLen)
}

// tagSequenceLen returns the byte length of one or more tag-spec characters followed by
// CANCEL TAG at the start of s, else 0.
func tagSequenceLen(s string) int {
	n, count := 0, 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		switch {
		case r >= tagSpecFirst && r <= tagSpecLast:
			n += size
			count++
		case r == tagLast && count > 0:
			return n + size
		default:
			return 0
		}
	}
	return 0
}

// SanitiseToolDefs returns the tools with TAG characters stripped from their descriptions
// (docs/pipeline.md §8.1). The input slice is not modified.
func SanitiseToolDefs(tools []corpora.ToolDef) []corpora.ToolDef {
	if tools == nil {
		return nil
	}
	out := make([]corpora.ToolDef, len(tools))
	for i, t := range tools {
		t.Description = StripTags(t.Description)
		out[i] = t
	}
	return out
}
