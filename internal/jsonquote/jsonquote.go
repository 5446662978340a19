// Package jsonquote writes JSON strings the way Python's json.dumps(ensure_ascii=False) and
// JavaScript's JSON.stringify write them, which for valid text is the same: only `"`, `\`
// and control characters are escaped, everything else is written as it is.
package jsonquote

import "unicode/utf8"

// Writer is what Write writes to: *strings.Builder and *bytes.Buffer are Writers.
type Writer interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

// Replacement texts for a byte that is not UTF-8.
const (
	// InvalidAsRune writes U+FFFD itself, as a decoder that replaces bad bytes would.
	InvalidAsRune = "\uFFFD"
	// InvalidAsEscape writes the escape \ufffd.
	InvalidAsEscape = `\ufffd`
)

const hexDigits = "0123456789abcdef"

// Write writes s to w as a quoted JSON string: `"` and `\` escaped, \b \f \n \r \t as short
// escapes, other control characters as lowercase \u00xx; '/', DEL and non-ASCII as they are.
// Each byte of s that is not part of valid UTF-8 is written as invalid (InvalidAsRune or
// InvalidAsEscape).
func Write[W Writer](w W, s, invalid string) {
	_ = w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			_, _ = w.WriteString(s[start:i])
			switch c {
			case '"':
				_, _ = w.WriteString(`\"`)
			case '\\':
				_, _ = w.WriteString(`\\`)
			case '\n':
				_, _ = w.WriteString(`\n`)
			case '\r':
				_, _ = w.WriteString(`\r`)
			case '\t':
				_, _ = w.WriteString(`\t`)
			case '\b':
				_, _ = w.WriteString(`\b`)
			case '\f':
				_, _ = w.WriteString(`\f`)
			default:
				_, _ = w.WriteString(`\u00`)
				_ = w.WriteByte(hexDigits[c>>4])
				_ = w.WriteByte(hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			_, _ = w.WriteString(s[start:i])
			_, _ = w.WriteString(invalid)
			i++
			start = i
			continue
		}
		i += size
	}
	_, _ = w.WriteString(s[start:])
	_ = w.WriteByte('"')
}
