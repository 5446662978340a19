package tokenize

import (
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// DeepSeek V3's tokenizer.json pre-tokenizer: a Sequence of three Isolated Splits, each
// splitting the pieces of the one before it, then ByteLevel without its regular expression.
const (
	preDSV3HF = "deepseek-v3-hf" // DeepSeek V3 / R1 tokenizer.json

	regexDSV3Digits = `\p{N}{1,3}`
	regexDSV3CJK    = `[一-龥぀-ゟ゠-ヿ]+`
	regexDSV3Words  = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
)

// hfSplitSequence returns the pre-tokenizer of a tokenizer.json Sequence of Isolated Splits
// followed by ByteLevel, when this package implements it.
func hfSplitSequence(list []hfComponent) (string, bool) {
	want := []string{regexDSV3Digits, regexDSV3CJK, regexDSV3Words}
	if len(list) != len(want)+1 {
		return "", false
	}
	for i, re := range want {
		if got, ok := isolatedSplitRegex(list[i]); !ok || got != re {
			return "", false
		}
	}
	last := list[len(want)]
	if last.Type != "ByteLevel" || last.AddPrefixSpace || last.UseRegex == nil || *last.UseRegex {
		return "", false
	}
	return preDSV3HF, true
}

// isolatedSplitRegex returns the regular expression of an Isolated, non-inverted Split.
func isolatedSplitRegex(c hfComponent) (string, bool) {
	if c.Type != "Split" || c.Invert || c.Behavior != "Isolated" {
		return "", false
	}
	var pat struct {
		Regex *string `json:"Regex"`
	}
	if err := json.Unmarshal(c.Pattern, &pat); err != nil || pat.Regex == nil {
		return "", false
	}
	return *pat.Regex, true
}

// isDSV3CJK is the class of regexDSV3CJK.
func isDSV3CJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FA5 || r >= 0x3040 && r <= 0x309F || r >= 0x30A0 && r <= 0x30FF
}

// splitDSV3 runs the three Splits as one splitter: a piece is up to three numbers, a run of
// the CJK class, or a piece of regexDSV3Words inside the segment between them (whose end the
// third expression sees as the end of the text).
func splitDSV3(s string, p int) int {
	r, w := utf8.DecodeRuneInString(s[p:])
	switch {
	case unicode.IsNumber(r):
		q := p + w
		for n := 1; n < 3 && q < len(s); n++ {
			r, w := utf8.DecodeRuneInString(s[q:])
			if !unicode.IsNumber(r) {
				break
			}
			q += w
		}
		return q
	case isDSV3CJK(r):
		q := p + w
		for q < len(s) {
			r, w := utf8.DecodeRuneInString(s[q:])
			if !isDSV3CJK(r) {
				break
			}
			q += w
		}
		return q
	}
	if end := dsv3Word(s, p); end > p {
		return end
	}
	// No alternative matches here: the text up to where one does is a piece of its own.
	q := p + w
	for q < len(s) && !dsv3Boundary(s, q) && dsv3Word(s, q) == q {
		_, w := utf8.DecodeRuneInString(s[q:])
		q += w
	}
	return q
}

// dsv3Boundary says whether the rune at p ends a segment of the third Split.
func dsv3Boundary(s string, p int) bool {
	r, _ := utf8.DecodeRuneInString(s[p:])
	return unicode.IsNumber(r) || isDSV3CJK(r)
}

// dsv3Class holds the classes the third expression tells apart.
type dsv3Class uint8

const (
	dsv3End      dsv3Class = iota // the end of the segment
	dsv3Letter                    // [\p{L}\p{M}]
	dsv3PunctSym                  // [\p{P}\p{S}]
	dsv3Space                     // \s
	dsv3Other
)

// dsv3At classifies the rune at p of the segment that starts before p.
func dsv3At(s string, p int) (dsv3Class, rune, int) {
	if p >= len(s) {
		return dsv3End, 0, 0
	}
	r, w := utf8.DecodeRuneInString(s[p:])
	switch {
	case unicode.IsNumber(r) || isDSV3CJK(r):
		return dsv3End, r, w
	case unicode.IsLetter(r) || unicode.Is(unicode.M, r):
		return dsv3Letter, r, w
	case unicode.IsPunct(r) || unicode.IsSymbol(r):
		return dsv3PunctSym, r, w
	case unicode.IsSpace(r):
		return dsv3Space, r, w
	}
	return dsv3Other, r, w
}

// dsv3Run returns the end of the run of runes of class k from p.
func dsv3Run(s string, p int, k dsv3Class) int {
	for {
		c, _, w := dsv3At(s, p)
		if c != k {
			return p
		}
		p += w
	}
}

// dsv3Word matches regexDSV3Words at p (within its segment) and returns the end, or p when no
// alternative matches.
func dsv3Word(s string, p int) int {
	k0, r0, w0 := dsv3At(s, p)
	k1, r1, _ := dsv3At(s, p+w0)
	isASCIILetter := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
	switch {
	case k0 == dsv3End:
		return p
	case r0 < utf8.RuneSelf && k0 == dsv3PunctSym && isASCIILetter(r1):
		q := p + w0
		for q < len(s) && isASCIILetter(rune(s[q])) {
			q++
		}
		return q
	case k0 == dsv3Letter:
		return dsv3Run(s, p, dsv3Letter)
	case k0 != dsv3PunctSym && r0 != '\r' && r0 != '\n' && k1 == dsv3Letter:
		return dsv3Run(s, p+w0, dsv3Letter)
	case k0 == dsv3PunctSym || r0 == ' ' && k1 == dsv3PunctSym:
		q := dsv3Run(s, p+w0, dsv3PunctSym)
		for q < len(s) && (s[q] == '\r' || s[q] == '\n') {
			q++
		}
		return q
	case k0 == dsv3Space:
		end := dsv3Run(s, p, dsv3Space)
		if k, _, _ := dsv3At(s, end); k == dsv3End {
			s = s[:end] // the segment ends here: (?!\S) holds
		}
		return cls().whitespaceTail(s, p, true)
	}
	return p
}
