package corpora

import (
	"encoding/binary"
	"math/bits"

	"github.com/strata-eval/strata-eval/internal/vecscan"
)

// jwMaxDepth is encoding/json's nesting limit: 10,000 open arrays and objects are accepted,
// 10,001 are "exceeded max depth".
const jwMaxDepth = 10000

// jwValid reports whether b is one JSON value (with optional white space around it), with
// exactly the verdict of encoding/json.Valid: the same grammar, the same nesting limit, and
// bytes that are not UTF-8 accepted inside strings (the readers check UTF-8 apart, with a
// located error). It exists for speed: a record is mostly multi-megabyte strings of base64 or
// escaped JSON, which it passes eight bytes at a time, where encoding/json's scanner takes an
// indirect call per byte. FuzzJWValid holds it to encoding/json.
func jwValid(b []byte) bool {
	// stack holds one bit per open container: 1 for an object, 0 for an array.
	var stack [jwMaxDepth/64 + 1]uint64
	depth := 0
	i := jwSkipSpace(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if depth == jwMaxDepth {
				return false
			}
			if c == '{' {
				stack[depth/64] |= 1 << (depth % 64)
			} else {
				stack[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			i = jwSkipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2: an empty container
				depth--
				i++
				break
			}
			if c == '{' {
				if i = jwValidKey(b, i); i < 0 {
					return false
				}
			}
			continue // the first member's (or element's) value
		case '"':
			if i = jwValidString(b, i); i < 0 {
				return false
			}
		default:
			if i = jwValidAtom(b, i); i < 0 {
				return false
			}
		}
		// A value ended at b[i]: close containers until one goes on with another value.
		for {
			i = jwSkipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			inObject := stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			c := b[i]
			if c == ',' {
				i = jwSkipSpace(b, i+1)
				if inObject {
					if i = jwValidKey(b, i); i < 0 {
						return false
					}
				}
				break
			}
			if inObject && c == '}' || !inObject && c == ']' {
				depth--
				i++
				continue
			}
			return false
		}
	}
}

// jwValidAtom checks the literal (true, false, null) or number starting at b[i]; it returns the
// index after it, or -1.
func jwValidAtom(b []byte, i int) int {
	switch b[i] {
	case 't':
		return jwValidLiteral(b, i, "true")
	case 'f':
		return jwValidLiteral(b, i, "false")
	case 'n':
		return jwValidLiteral(b, i, "null")
	}
	return jwValidNumber(b, i)
}

// jwValidKey checks an object key and its colon at b[i]; it returns the index of the member's
// value (white space skipped), or -1.
func jwValidKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = jwValidString(b, i); i < 0 {
		return -1
	}
	i = jwSkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return jwSkipSpace(b, i+1)
}

// SWAR constants: a byte of ones in every lane, and the high bit of every lane.
const (
	jwLanes = 0x0101010101010101
	jwHighs = 0x8080808080808080
)

// jwSpecial is the class of the bytes that end a plain run of a JSON string for the vector
// scan: '"' (0x22), '\' (0x5C) and the control bytes (high nibble 0 or 1).
var jwSpecial = vecscan.NewClass(
	[16]byte{1, 1, 1 | 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 | 4, 1, 1, 1},
	[16]byte{0: 1, 1: 1, 2: 2, 5: 4},
)

// jwStopASCII is the class of jwSpecial's bytes and every byte from 0x80 (high nibble 8 to F).
var jwStopASCII = vecscan.NewClass(
	[16]byte{1 | 8, 1 | 8, 1 | 2 | 8, 1 | 8, 1 | 8, 1 | 8, 1 | 8, 1 | 8, 1 | 8, 1 | 8, 1 | 8, 1 | 8, 1 | 4 | 8, 1 | 8, 1 | 8, 1 | 8},
	[16]byte{0: 1, 1: 1, 2: 2, 5: 4, 8: 8, 9: 8, 10: 8, 11: 8, 12: 8, 13: 8, 14: 8, 15: 8},
)

// jwValidString checks the JSON string starting at b[i] (a quote) and returns the index just
// after its closing quote, or -1: no control byte below 0x20, only the escapes JSON defines.
func jwValidString(b []byte, i int) int {
	i++
	for {
		if i = jwPlain(b, i, jwSpecial, 0); i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default: // a control byte
			return -1
		}
	}
}

// jwPlain returns the index of the first byte from b[i] on that is in class c: a quote, a
// backslash or a control byte (jwSpecial), with pastASCII jwHighs also any byte from 0x80
// (jwStopASCII; pastASCII 0 for jwSpecial); len(b) when there is none. Eight bytes at a time
// (the first flagged lane is exact: a borrow only runs upward from a flagged lane); past four
// such words, 32 at a time (AVX2) while at least 64 bytes are left: most strings end within
// 32 bytes, and the vector scan pays its set-up only for the long ones.
func jwPlain(b []byte, i int, c *vecscan.Class, pastASCII uint64) int {
	for words := 0; i+8 <= len(b); words++ {
		if words == 4 && vecscan.HasAVX2 && len(b)-i >= 64 {
			if i += vecscan.PrefixBytes(b[i:], c); i+8 > len(b) {
				break
			}
		}
		x := binary.LittleEndian.Uint64(b[i:])
		quote := x ^ (jwLanes * '"')
		backslash := x ^ (jwLanes * '\\')
		special := (quote-jwLanes)&^quote | (backslash-jwLanes)&^backslash | (x - jwLanes*0x20)
		if stop := (special&^x | x&pastASCII) & jwHighs; stop != 0 {
			return i + bits.TrailingZeros64(stop)/8
		}
		i += 8
	}
	for ; i < len(b) && !c.Has(b[i]); i++ {
	}
	return i
}

// jwValidLiteral checks that the literal word starts at b[i]; it returns the index after it,
// or -1.
func jwValidLiteral(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// jwValidNumber checks the JSON number starting at b[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
// It returns the index after it, or -1. What follows is checked by the caller.
func jwValidNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = jwDigits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := jwDigits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := jwDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// jwDigits returns the index of the first byte at or after i that is not an ASCII digit.
func jwDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
