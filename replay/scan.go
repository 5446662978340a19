package replay

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/strata-eval/strata-eval/internal/vecscan"
)

// Byte classes of the base64 scanner.
const (
	scanOther  = 0 // ends a run
	scanAlpha  = 1 // A–Z a–z 0–9 + /
	scanEscape = 2 // '\': a "\/" escape inside a JSON string counts as '/'
	scanPad    = 3 // '='
)

// scanClass is the 256-entry class table of the scanner. It is filled once and never written.
var scanClass = func() (t [256]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = scanAlpha
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = scanAlpha
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = scanAlpha
	}
	t['+'] = scanAlpha
	t['/'] = scanAlpha
	t['\\'] = scanEscape
	t['='] = scanPad
	return t
}()

// Run is a candidate base64 run of a text: a maximal run of at least the minimum number of
// base64 characters (A–Z a–z 0–9 + /, with "\/" counting as '/'), followed by up to two '='.
type Run struct {
	// Start and End delimit the run's bytes in the text: its characters and its padding.
	Start, End int
	// Chars is the number of base64 characters, padding excluded (an escape counts once).
	Chars int
	// Padding is the number of '=' that end the run (0–2).
	Padding int
	// Escaped says the run contains "\/" escapes, so its bytes are not plain base64.
	Escaped bool
	// URLStart is where the data URL ("data:<type>;base64,") carrying the run begins, or -1
	// for a bare run.
	URLStart int
	// Label is the type the data URL declares (unescaped, never trusted); "" for a bare run.
	Label string
}

// SpanStart is where the text to replace begins: the data URL for a data URL, else the run.
func (r Run) SpanStart() int {
	if r.URLStart >= 0 {
		return r.URLStart
	}
	return r.Start
}

// DecodedLen is the number of bytes the run decodes to.
func (r Run) DecodedLen() int64 {
	return int64(r.Chars)/4*3 + int64(r.Chars%4*6/8)
}

// Decodable says whether the run's length can be base64 (one character past a group of
// four cannot).
func (r Run) Decodable() bool { return r.Chars%4 != 1 }

// NextRun finds the first candidate run that starts at or after from, with at least minRun
// characters (minRun < 1 counts as 1). It reads the text in place and in linear time: it
// probes one byte every minRun bytes (a run that long must cover one of the probes) and
// reads a run's bytes only when a probe lands on a base64 byte.
func NextRun(text string, from, minRun int) (Run, bool) {
	if minRun < 1 {
		minRun = 1
	}
	if from < 0 {
		from = 0
	}
	stride := minRun
	pos := from // no run begins before pos
	for p := pos + stride - 1; p < len(text); {
		c := scanClass[text[p]]
		if c == scanEscape && p+1 < len(text) && text[p+1] == '/' {
			p++
			c = scanAlpha
		}
		if c != scanAlpha {
			p += stride
			continue
		}
		// Read forward first: a run of minRun characters spans at least minRun bytes, so
		// when the byte minRun before its end is not base64 it is too short, and the walk
		// back to its start is saved (most probes of prose or JSON land in short words).
		end, fwdChars, fwdEscaped := scanRunEnd(text, p)
		if end-minRun < pos || (scanClass[text[end-minRun]] != scanAlpha && scanClass[text[end-minRun]] != scanEscape) {
			pos = end
			for pos < len(text) && text[pos] == '=' && pos < end+2 {
				pos++
			}
			p = pos + stride - 1
			continue
		}
		start, backEscapes := scanRunStart(text, pos, p)
		chars := fwdChars + (p - start) - backEscapes
		escaped := fwdEscaped || backEscapes > 0
		pad := 0
		for pad < 2 && end < len(text) && text[end] == '=' {
			end++
			pad++
		}
		if chars >= minRun {
			r := Run{Start: start, End: end, Chars: chars, Padding: pad, Escaped: escaped, URLStart: -1}
			if u, label := dataURLBefore(text, start); u >= from {
				r.URLStart, r.Label = u, label // a data URL whose prefix no earlier run holds
			}
			return r, true
		}
		pos = end
		p = pos + stride - 1
	}
	return Run{}, false
}

// scanRunStart walks back from the base64 byte at p to the first byte of its run, never
// before lo, and counts the "\/" escapes it passes (p's own included). A '/' preceded by an
// odd number of backslashes is a "\/" escape and belongs to the run with its backslash.
func scanRunStart(text string, lo, p int) (start, escapes int) {
	start = p + 1
	for start > lo {
		c := text[start-1]
		if scanClass[c] != scanAlpha {
			break
		}
		if c == '/' && start-2 >= lo && text[start-2] == '\\' {
			k := 0
			for j := start - 2; j >= lo && text[j] == '\\'; j-- {
				k++
			}
			if k%2 == 0 { // "\\/": an escaped backslash, then a plain '/'
				start--
				break
			}
			start -= 2
			escapes++
			if k > 1 {
				break
			}
			continue
		}
		start--
	}
	return start, escapes
}

const (
	swarOnes = 0x0101010101010101
	swarHigh = 0x8080808080808080
	swarLow7 = 0x7F7F7F7F7F7F7F7F
)

// load64 reads 8 bytes of s at i as a little-endian word (one load on amd64 and arm64).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// notAlphaMask has the high bit of each byte of x set when that byte is not a base64
// character (A–Z a–z 0–9 + /). It tests the eight bytes at once.
func notAlphaMask(x uint64) uint64 {
	x7 := x & swarLow7
	// Letters: fold upper case onto lower case, then test 0x61 ≤ y ≤ 0x7A.
	y := x7 | 0x2020202020202020
	letters := (y + (0x80-0x61)*swarOnes) &^ (y + (0x7F-0x7A)*swarOnes)
	// '/' and digits: 0x2F ≤ x ≤ 0x39.
	digits := (x7 + (0x80-0x2F)*swarOnes) &^ (x7 + (0x7F-0x39)*swarOnes)
	// '+': x == 0x2B.
	plus := ^((x7 ^ 0x2B*swarOnes) + 0x7F*swarOnes)
	good := (letters | digits | plus) &^ x
	return ^good & swarHigh
}

// notBase64 is the class of the bytes outside the base64 alphabet (A–Z a–z 0–9 + /) for the
// vector scan: the high nibble picks a group (2x, 3x, 4x/6x, 5x/7x, the rest), and each low
// nibble names the groups in which it is no base64 character.
var notBase64 = vecscan.NewClass(
	[16]byte{0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A},
	[16]byte{0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10},
)

// alphaPrefix returns a number of leading bytes of s that are all base64 characters: the
// index of the first other byte, or a shorter prefix that the caller finishes a word at a time.
func alphaPrefix(s string) int {
	if vecscan.HasAVX2 && len(s) >= 64 {
		// One block in words first: most runs of prose and JSON end within it, and the
		// vector loop pays its set-up only for the long ones.
		if n := alphaPrefixSWAR(s[:32]); n == 0 {
			return 0
		}
		return 32 + vecscan.Prefix(s[32:], notBase64)
	}
	return alphaPrefixSWAR(s)
}

// alphaPrefixSWAR returns the length of the leading blocks of 32 bytes of s that are all
// base64 characters, testing four words a branch.
func alphaPrefixSWAR(s string) int {
	i := 0
	for i+32 <= len(s) {
		b := s[i : i+32]
		if notAlphaMask(load64(b, 0))|notAlphaMask(load64(b, 8))|
			notAlphaMask(load64(b, 16))|notAlphaMask(load64(b, 24)) != 0 {
			break
		}
		i += 32
	}
	return i
}

// scanRunEnd reads the run that begins at start and returns the end of its characters
// (before any padding), the number of characters and whether it holds "\/" escapes.
func scanRunEnd(text string, start int) (end, chars int, escaped bool) {
	i := start
	escapes := 0
	for {
		// One word first (most runs in prose are short), then blocks while all are base64
		// (AVX2 where the CPU has it, else four words a branch), then the first other byte a
		// word at a time.
		if i+8 <= len(text) {
			if m := notAlphaMask(load64(text, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto tail
			}
			i += 8
		}
		i += alphaPrefix(text[i:])
		for i+8 <= len(text) {
			if m := notAlphaMask(load64(text, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto tail
			}
			i += 8
		}
		for i < len(text) && scanClass[text[i]] == scanAlpha {
			i++
		}
	tail:
		if i+1 < len(text) && text[i] == '\\' && text[i+1] == '/' {
			i += 2
			escapes++
			continue
		}
		break
	}
	return i, i - start - escapes, escapes > 0
}

// dataURLBefore says whether the run that begins at start is the payload of a data URL
// "data:<type>[;param…];base64," and returns where the URL begins and the type it declares.
func dataURLBefore(text string, start int) (urlStart int, label string) {
	const marker = ";base64,"
	if start < len(marker)+len("data:") || !strings.EqualFold(text[start-len(marker):start], marker) {
		return -1, ""
	}
	end := start - len(marker)
	lo := max(end-256, 0)
	for j := end - 1; j >= lo; j-- {
		c := text[j]
		if c == ':' && j >= 4 && strings.EqualFold(text[j-4:j], "data") {
			decl := text[j+1 : end]
			if k := strings.IndexByte(decl, ';'); k >= 0 {
				decl = decl[:k]
			}
			if strings.Contains(decl, `\/`) {
				decl = strings.ReplaceAll(decl, `\/`, "/")
			}
			return j - 4, strings.TrimSpace(decl)
		}
		if c <= ' ' || c == '"' || c == '\'' || c == ',' || c == '<' || c == '>' || c >= 0x7F {
			return -1, ""
		}
	}
	return -1, ""
}

// errRunLength is the error of a run whose length cannot be base64.
var errRunLength = errors.New("one character past a group of four is not base64")

// decodeRunPrefix decodes the first bytes of the run (at most len(dst), rounded down to a
// group of three) into dst and returns them.
func decodeRunPrefix(text string, r Run, dst []byte) []byte {
	var src [64]byte
	want := min(len(dst)/3*4, len(src), r.Chars)
	n := 0
	for i := r.Start; n < want && i < r.End; i++ {
		c := text[i]
		if c == '\\' {
			continue
		}
		if c == '=' {
			break
		}
		src[n] = c
		n++
	}
	n -= n % 4
	if n == 0 && r.Chars < 4 {
		n = r.Chars
		if n == 1 {
			return dst[:0]
		}
	}
	got, err := base64.RawStdEncoding.Decode(dst, src[:n])
	if err != nil {
		return dst[:0]
	}
	return dst[:got]
}

// SniffRun returns the picture type the run's first bytes say, decoding only those bytes
// ("" when the run is not a picture).
func SniffRun(text string, r Run) string {
	var head [24]byte
	return SniffImage(decodeRunPrefix(text, r, head[:]))
}

// DecodeRun decodes the whole run (its "\/" escapes as '/', padding optional) with the
// vectorised decoder: in place when the run has no escapes, else through a small buffer.
func DecodeRun(text string, r Run) ([]byte, error) {
	if !r.Decodable() {
		return decodeRunTo(nil, text, r)
	}
	return decodeRunTo(make([]byte, r.DecodedLen()), text, r)
}

// decodeRunTo is DecodeRun into dst, which holds r.DecodedLen() bytes.
func decodeRunTo(dst []byte, text string, r Run) ([]byte, error) {
	if !r.Decodable() {
		return nil, fmt.Errorf("base64 run at byte %d: %d characters: %w", r.Start, r.Chars, errRunLength)
	}
	out := 0
	var err error
	if !r.Escaped {
		out, err = decodeRawStd(dst, text[r.Start:r.End-r.Padding])
	} else {
		err = runChunks(text, r, func(src []byte) error {
			got, err := rawStdDecoder.Decode(dst[out:], src)
			out += got
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("base64 run at byte %d: %w", r.Start, err)
	}
	return dst[:out], nil
}

// runChunks hands the run's base64 characters (escapes removed, padding dropped) to fn in
// chunks of at most 4096; every chunk but the last is a whole number of groups of four.
func runChunks(text string, r Run, fn func(src []byte) error) error {
	var buf [4096]byte
	i, end := r.Start, r.End-r.Padding
	for i < end {
		n := 0
		if !r.Escaped {
			n = copy(buf[:], text[i:end])
			i += n
		} else {
			for ; n < len(buf) && i < end; i++ {
				if c := text[i]; c != '\\' {
					buf[n] = c
					n++
				}
			}
		}
		if err := fn(buf[:n]); err != nil {
			return err
		}
	}
	return nil
}
