package corpora

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// LargeBase64Bytes is the decoded size past which the MCP line readers stream the base64 of an
// image or audio block's data, or of a resource blob, instead of holding it (50 MiB, the source
// agent's cap on blobs and downloads): what is kept is its length, its first bytes and its
// digest (docs/decisions.md). Such a payload is over the server's 32 MiB picture cap, which
// counts it from its header and length, and over the agent's cap, which does not decode it.
const LargeBase64Bytes = 50 << 20

// largeBase64Chars is the shortest base64 run whose decoded size is over LargeBase64Bytes.
const largeBase64Chars = (LargeBase64Bytes/3)*4 + 8

// LargeHeadBytes is how much of a large payload is decoded and kept: enough for any header.
const LargeHeadBytes = 64 << 10

// LargeTailChars is how many of a large payload's last characters are kept: more than an agent
// keeps of the end of a tool's text it cuts (Cline keeps 4,000).
const LargeTailChars = 8 << 10

// LargeBase64 is what is kept of a base64 payload streamed past (see LargeBase64Bytes).
type LargeBase64 struct {
	// Chars is the number of base64 characters recorded; Bytes the decoded size.
	Chars int64 `json:"chars"`
	Bytes int64 `json:"bytes"`
	// Head is the first LargeHeadBytes decoded bytes (all of them when fewer).
	Head []byte `json:"-"`
	// Tail is the last LargeTailChars characters recorded (all of them when fewer).
	Tail []byte `json:"-"`
	// SHA256 is the hex digest of the decoded bytes.
	SHA256 string `json:"sha256"`
	// Err says why the base64 cannot be decoded ("" when it can).
	Err string `json:"error,omitempty"`
	// Count is the count of the tokens of a base64 run in a tool's text streamed past (see
	// RunCounter); nil for an image's data, or when the reader was given no counter.
	Count *RunCount `json:"count,omitempty"`
}

// largeNonce makes the text that stands for a streamed payload in a line unforgeable by a
// recording: it is drawn once per process.
var largeNonce = func() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// largeMarkerPrefix starts the text a line reader writes in place of a streamed payload: a
// whole JSON string for an image's data, or a stretch inside a tool's text for a base64 run
// in it; the text holds the LargeBase64 fields and ends with a NUL (see largeMarker).
func largeMarkerPrefix() string { return largeMarkerText }

// largeMarkerText is what largeMarkerPrefix returns, made once.
var largeMarkerText = "\x00strata-eval:large-base64:" + largeNonce + ":"

// standInsWritten is set when the process writes its first stand-in (largeMarker): until
// then no text can hold one, since a stand-in carries the process's nonce, and the checks of
// every text a replay counts or sends (HasLargeRun, LargeRuns…) answer without reading it.
var standInsWritten atomic.Bool

// standInsMayExist says whether any text of the process may hold a stand-in.
func standInsMayExist() bool { return standInsWritten.Load() }

// largeMarkerFields is the number of ':'-separated fields after the prefix of a marker.
const largeMarkerFields = 11

// largeMarker is the JSON string text (escaped) that replaces a streamed payload in a line.
// Every field of bytes or text is hex, whose characters never decode as base64 to the
// signature of a picture, so a scanner that met a marker would find no picture in it.
func largeMarker(l *LargeBase64) string {
	standInsWritten.Store(true)
	fields := []string{strconv.FormatInt(l.Chars, 10), strconv.FormatInt(l.Bytes, 10), l.SHA256,
		hex.EncodeToString(l.Head), hex.EncodeToString([]byte(l.Err)), "", "", "", "", "", hex.EncodeToString(l.Tail)}
	if c := l.Count; c != nil {
		fields[5], fields[6], fields[7] = hex.EncodeToString([]byte(c.Tokenizer)), hex.EncodeToString([]byte(c.Head)), hex.EncodeToString([]byte(c.Tail))
		fields[8], fields[9] = strconv.FormatInt(c.Middle, 10), hex.EncodeToString([]byte(c.Err))
	}
	return `\u0000` + largeMarkerPrefix()[1:] + strings.Join(fields, ":") + `\u0000`
}

// parseLargeMarker reads back a decoded JSON string written by largeMarker (ok false for any
// other string).
func parseLargeMarker(s string) (*LargeBase64, bool) {
	l, n, ok := parseLargeMarkerAt(s)
	return l, ok && n == len(s)
}

// parseLargeMarkerAt reads the marker that starts s and returns it and its length.
func parseLargeMarkerAt(s string) (*LargeBase64, int, bool) {
	rest, ok := strings.CutPrefix(s, largeMarkerPrefix())
	if !ok {
		return nil, 0, false
	}
	end := strings.IndexByte(rest, 0)
	if end < 0 {
		return nil, 0, false
	}
	f := strings.Split(rest[:end], ":")
	if len(f) != largeMarkerFields {
		return nil, 0, false
	}
	var errs []error
	num := func(f string) int64 {
		n, err := strconv.ParseInt(f, 10, 64)
		errs = append(errs, err)
		return n
	}
	unhex := func(f string) []byte {
		b, err := hex.DecodeString(f)
		errs = append(errs, err)
		return b
	}
	unhex(f[2]) // the digest is hex too
	l := &LargeBase64{Chars: num(f[0]), Bytes: num(f[1]), SHA256: f[2], Head: unhex(f[3]), Err: string(unhex(f[4])), Tail: unhex(f[10])}
	if f[8] != "" {
		l.Count = &RunCount{Tokenizer: string(unhex(f[5])), Head: string(unhex(f[6])), Tail: string(unhex(f[7])),
			Middle: num(f[8]), Err: string(unhex(f[9]))}
	} else if f[5]+f[6]+f[7]+f[9] != "" {
		errs = append(errs, errors.New("count fields without a count"))
	}
	if errors.Join(errs...) != nil {
		return nil, 0, false
	}
	return l, len(largeMarkerPrefix()) + end + 1, true
}

// largeDecoder decodes a base64 run as it streams by, keeping its length, head and digest.
// It accepts the base64 alphabet with '=' padding at the end and skips line breaks, as
// Python's non-validating b64decode does; anything else is an error.
type largeDecoder struct {
	out   LargeBase64
	h     hash.Hash
	quad  []byte // pending characters
	buf   []byte // decoded bytes of one batch
	pads  int
	ended bool // a '=' was met: Python stops decoding there
	// unpadded accepts a run whose last group lacks its '=' (a run of a tool's text, which the
	// lift decodes so).
	unpadded bool
}

func newLargeDecoder() *largeDecoder {
	return &largeDecoder{h: sha256.New(), quad: make([]byte, 0, 64<<10+4), buf: make([]byte, 48<<10+3)}
}

// write takes characters of the run (already unescaped: `\/` given as '/').
func (d *largeDecoder) write(p []byte) {
	d.keepTail(p)
	for len(p) > 0 {
		if !d.ended {
			// the common case: a stretch of the alphabet, copied whole
			lim := min(len(p), cap(d.quad)-4-len(d.quad))
			n := 0
			for n < lim && b64Alphabet[p[n]] {
				n++
			}
			if n > 0 {
				d.quad = append(d.quad, p[:n]...)
				d.out.Chars += int64(n)
				d.pads = 0
				p = p[n:]
				if len(d.quad) == cap(d.quad)-4 {
					d.flush(false)
				}
				continue
			}
		}
		c := p[0]
		p = p[1:]
		d.out.Chars++
		switch {
		case c == '\n' || c == '\r' || d.ended:
			// skipped, as Python skips line breaks and ignores what follows the padding
		case c == '=':
			d.pads++
			if len(d.quad)%4 >= 2 && len(d.quad)%4+d.pads >= 4 {
				d.ended = true
			}
		default: // not in the alphabet
			d.fail(fmt.Sprintf("character %q at position %d of the base64 payload", c, d.out.Chars-1))
		}
	}
}

// keepTail keeps the last LargeTailChars characters written, p the latest.
func (d *largeDecoder) keepTail(p []byte) {
	if len(p) >= LargeTailChars {
		d.out.Tail = append(d.out.Tail[:0], p[len(p)-LargeTailChars:]...)
		return
	}
	if over := len(d.out.Tail) + len(p) - LargeTailChars; over > 0 {
		d.out.Tail = d.out.Tail[:copy(d.out.Tail, d.out.Tail[over:])]
	}
	d.out.Tail = append(d.out.Tail, p...)
}

// b64Alphabet marks the characters of the standard base64 alphabet.
var b64Alphabet = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return t
}()

func isB64Char(c byte) bool { return b64Alphabet[c] }

// flush decodes the whole groups of four pending (all of them at the end).
func (d *largeDecoder) flush(final bool) {
	n := len(d.quad) / 4 * 4
	enc := base64.StdEncoding
	if final && len(d.quad) != n {
		n = len(d.quad)
		enc = base64.RawStdEncoding
		if n%4 == 1 || !d.ended && !d.unpadded {
			d.fail("incorrect padding")
		}
	}
	k, err := enc.Decode(d.buf, d.quad[:n])
	if err != nil {
		d.fail(err.Error())
	}
	d.emit(d.buf[:k])
	d.quad = append(d.quad[:0], d.quad[n:]...)
}

func (d *largeDecoder) fail(msg string) {
	if d.out.Err == "" {
		d.out.Err = msg
	}
}

func (d *largeDecoder) emit(b []byte) {
	if room := LargeHeadBytes - len(d.out.Head); room > 0 {
		d.out.Head = append(d.out.Head, b[:min(room, len(b))]...)
	}
	d.out.Bytes += int64(len(b))
	d.h.Write(b)
}

// finish ends the run and returns what is kept of it.
func (d *largeDecoder) finish() *LargeBase64 {
	d.flush(true)
	d.out.SHA256 = hex.EncodeToString(d.h.Sum(nil))
	return &d.out
}

// spillActivate is the length past which a line is scanned for payloads to stream: a line
// shorter than a large payload holds none, and is read as it is.
const spillActivate = 8 << 20

// lineSpiller follows the JSON of one long line as it is read and streams the base64 of a
// "data" or "blob" string member, or of the payload of a base64 data URL in a "url" or
// "image_url" member (OpenAI image parts), past largeBase64Chars characters through a
// largeDecoder, writing in its place the marker parseLargeMarker reads back (after the data
// URL's header). Only whole strings of base64 characters (with `\/` escapes and `\n` / `\r`
// line breaks) are streamed.
type lineSpiller struct {
	// limit is the run length from which a payload is streamed (0: largeBase64Chars).
	limit int

	inString, escape bool
	strStart         int  // where the current string's content starts in the line
	payload          int  // where the current string's payload may start (-1: it holds none)
	urlHead          bool // the current string is a URL whose header is being read
	pure             bool // the current string's payload is base64 so far
	valueKey         string
	lastString       string // the last short string, a key when a ':' follows
	expectColon      bool
	afterColon       bool
	pendingKey       string

	spill       *largeDecoder
	spillEscape bool

	// textRuns streams past, besides the payloads above, any base64 run over the limit inside
	// any string (a picture in a tool's text): the run is what the lift reads as one, its
	// characters with `\/` escapes, then up to two '='. Its marker stands in its place inside
	// the string, and its characters also go to a RunCounter from newCounter (when not nil).
	textRuns   bool
	newCounter func() RunCounter
	runStart   int  // where the current string's base64 run starts in the line (-1: none)
	spillText  bool // spill is a run of a string's text
	spillPads  int  // the '=' met at the end of the run being streamed
	counter    RunCounter

	// fed is the number of input bytes fed before the current chunk and dropped the number of
	// output bytes cut from the front of the line (spillReader); shifts lists where each
	// streamed payload's marker ends, in output and in input bytes.
	fed, dropped int64
	shifts       []spillShift
}

// spillShift pairs the end of a payload's stand-in in the output of a lineSpiller with the
// end of the payload in its input (both at the closing quote).
type spillShift struct{ out, in int64 }

// feed appends chunk to line, streaming past what it must, and returns the line.
func (s *lineSpiller) feed(line, chunk []byte) []byte {
	for i := 0; i < len(chunk); i++ {
		c := chunk[i]
		if s.spill != nil && s.spillText {
			end, ended := s.feedRun(chunk, i)
			if !ended {
				break
			}
			line = s.endRun(line, end)
			i, c = end, chunk[end]
		} else if s.spill != nil {
			if s.spillEscape {
				s.spillEscape = false
				switch c {
				case '/':
					s.spill.write([]byte{'/'})
				case 'n', 'r':
				default:
					s.spill.fail(fmt.Sprintf("escape \\%c in the base64 payload", c))
				}
				continue
			}
			j := i
			for j < len(chunk) && chunk[j] != '"' && chunk[j] != '\\' {
				j++
			}
			s.spill.write(chunk[i:j])
			i = j
			if i == len(chunk) {
				break
			}
			if chunk[i] == '\\' {
				s.spillEscape = true
				continue
			}
			line = append(line, largeMarker(s.spill.finish())...)
			s.shifts = append(s.shifts, spillShift{out: s.dropped + int64(len(line)), in: s.fed + int64(i)})
			line = append(line, '"')
			s.spill = nil
			continue
		}
		if s.inString && !s.escape && !s.holds(len(line)) {
			// inside a string that is neither a payload nor a key: copied up to its end (or,
			// following its base64 runs, up to where one reaches the limit)
			j := i
			if s.textRuns {
				j = s.followRuns(len(line), chunk, i)
			} else {
				for j < len(chunk) && chunk[j] != '"' && chunk[j] != '\\' {
					j++
				}
			}
			line = append(line, chunk[i:j]...)
			if i = j; i == len(chunk) {
				break
			}
			c = chunk[i]
		}
		line = s.step(append(line, c), c)
	}
	s.fed += int64(len(chunk))
	return line
}

// followRuns is the copy of a string's text in feed when runs are streamed: it returns the end
// of the bytes of chunk from i that can be copied as they are (up to a quote, a backslash or
// the byte at which a base64 run reaches the limit, left to step), keeping runStart, where
// line holds n bytes before chunk[i].
func (s *lineSpiller) followRuns(n int, chunk []byte, i int) int {
	limit := s.runLimit()
	j := i
	for ; j < len(chunk); j++ {
		c := chunk[j]
		if c == '"' || c == '\\' {
			break
		}
		if !b64Alphabet[c] {
			s.runStart = -1
			continue
		}
		at := n + j - i // where c goes in the line
		if s.runStart < 0 {
			s.runStart = at
		}
		if at+1-s.runStart >= limit {
			break
		}
	}
	return j
}

// feedRun streams the characters of a run of a string's text from chunk[i] on. It returns
// where the run ended (the byte that ends it is not taken; spillEscape says that a backslash
// before it was) and true, or len(chunk) and false when the chunk ended first.
func (s *lineSpiller) feedRun(chunk []byte, i int) (int, bool) {
	for i < len(chunk) {
		c := chunk[i]
		if s.spillEscape {
			if c != '/' || s.spillPads > 0 {
				return i, true
			}
			s.spillEscape = false
			s.writeRun([]byte{'/'})
			i++
			continue
		}
		j := i
		if s.spillPads == 0 {
			for j < len(chunk) && b64Alphabet[chunk[j]] {
				j++
			}
		}
		if j > i {
			s.writeRun(chunk[i:j])
			i = j
			continue
		}
		switch {
		case c == '\\':
			s.spillEscape = true
		case c == '=' && s.spillPads < 2:
			s.spillPads++
			s.writeRun(chunk[i : i+1])
		default:
			return i, true
		}
		i++
	}
	return i, false
}

// writeRun hands characters of a run of a string's text to its decoder and counter.
func (s *lineSpiller) writeRun(p []byte) {
	s.spill.write(p)
	if s.counter != nil {
		s.counter.Write(p)
	}
}

// endRun writes the marker of the run of a string's text that ended before chunk byte i (a
// backslash before it given back to the string when spillEscape says so) and returns line.
func (s *lineSpiller) endRun(line []byte, i int) []byte {
	l := s.spill.finish()
	if s.counter != nil {
		c := s.counter.Finish()
		l.Count = &c
	}
	line = append(line, largeMarker(l)...)
	in := s.fed + int64(i)
	if s.spillEscape {
		in--
	}
	s.shifts = append(s.shifts, spillShift{out: s.dropped + int64(len(line)), in: in})
	s.spill, s.counter, s.spillText, s.spillPads = nil, nil, false, 0
	if s.spillEscape {
		s.spillEscape = false
		line = s.step(append(line, '\\'), '\\')
	}
	return line
}

// inputOffset maps an offset in the spiller's output to the offset of the same byte in its
// input (a byte after a streamed payload's stand-in sits further on in the input).
func (s *lineSpiller) inputOffset(out int64) int64 {
	for i := len(s.shifts) - 1; i >= 0; i-- {
		if sh := s.shifts[i]; sh.out <= out {
			return out - sh.out + sh.in
		}
	}
	return out
}

// spillReader reads JSON text from r with every large base64 payload (see lineSpiller)
// replaced by its stand-in, holding no more than the JSON string being read: the reader of a
// document that may carry a payload of any size in one line (a Chatbox backup) reads through
// it, and finds such a payload as LargeBase64 where the MCP line readers do. With a spiller
// that follows runs (textRunSpiller), the base64 runs of any string are streamed past too.
type spillReader struct {
	r   io.Reader
	s   lineSpiller
	in  []byte
	out []byte // spilled output; out[pos:] not yet read
	pos int
	err error
}

func newSpillReader(r io.Reader) *spillReader {
	return &spillReader{r: r, in: make([]byte, 64<<10)}
}

// newRunSpillReader is a spillReader that streams past the base64 runs of any string as well,
// counted by the RunCounter of runs (when not nil): the reader of an agent's session document.
func newRunSpillReader(r io.Reader, runs LargeRunOptions) *spillReader {
	return &spillReader{r: r, in: make([]byte, 64<<10), s: *textRunSpiller(runs)}
}

// Read gives the spilled text, up to the start of a string that may still be streamed past.
func (sr *spillReader) Read(p []byte) (int, error) {
	for {
		// Everything before an open string is final; the open string stays while the spiller
		// may yet cut it where a payload starts or read it as a key (at the end of the input it
		// goes as it is).
		ready := len(sr.out)
		switch {
		case sr.err != nil:
		case sr.s.holds(len(sr.out)):
			ready = sr.s.strStart
		case sr.s.textRuns && sr.s.inString && sr.s.runStart >= 0: // a run that may yet be streamed past
			ready = sr.s.runStart
		case sr.s.textRuns && sr.s.inString && sr.s.escape: // a backslash that may start a run (`\/`)
			ready = len(sr.out) - 1
		}
		if ready > sr.pos {
			n := copy(p, sr.out[sr.pos:ready])
			sr.pos += n
			return n, nil
		}
		if sr.err != nil {
			return 0, sr.err
		}
		if sr.pos > 0 && sr.pos >= len(sr.out)-sr.pos { // drop what was read, at most as much as is kept moves
			sr.out = sr.out[:copy(sr.out, sr.out[sr.pos:])]
			sr.s.drop(sr.pos)
			sr.pos = 0
		}
		n, err := sr.r.Read(sr.in)
		sr.out = sr.s.feed(sr.out, sr.in[:n])
		sr.err = err
		if sr.s.spill != nil && cap(sr.out) > 1<<20 && cap(sr.out) > 4*len(sr.out) {
			// the buffer that held the payload's start is not kept while the rest streams by
			sr.out = append(make([]byte, 0, len(sr.out)+64<<10), sr.out...)
		}
	}
}

// inputOffset maps an offset in what Read gave to the offset in r (a nil spillReader gives r
// as it is).
func (sr *spillReader) inputOffset(out int64) int64 {
	if sr == nil {
		return out
	}
	return sr.s.inputOffset(out)
}

// drop says that the first n bytes of the line were cut off (spillReader).
func (s *lineSpiller) drop(n int) {
	s.dropped += int64(n)
	s.strStart -= n
	if s.payload >= 0 {
		s.payload -= n
	}
	if s.textRuns && s.runStart >= 0 {
		s.runStart -= n
	}
}

// holds says whether the string open in a line of length n must stay in the line: it may
// yet be streamed past, or be a key (a short string is read back when it ends).
func (s *lineSpiller) holds(n int) bool {
	return s.inString && (n-s.strStart <= 16 || s.urlHead || s.payload >= 0 && s.pure)
}

// isBase64DataURLHead says whether h is the header of a base64 data URL ("data:…;base64").
func isBase64DataURLHead(h []byte) bool {
	return len(h) >= 12 && bytes.EqualFold(h[:5], []byte("data:")) && bytes.EqualFold(h[len(h)-7:], []byte(";base64"))
}

func (s *lineSpiller) runLimit() int {
	if s.limit > 0 {
		return s.limit
	}
	return largeBase64Chars
}

// step follows the JSON state after c was appended to line, and returns the line (cut where
// a payload starts being streamed).
func (s *lineSpiller) step(line []byte, c byte) []byte {
	if s.inString {
		if s.textRuns {
			s.followRun(len(line), c)
		}
		switch {
		case s.escape:
			s.escape = false
			if c != '/' {
				s.pure, s.urlHead = false, false
			}
		case c == '\\':
			s.escape = true
		case c == '"':
			s.inString, s.urlHead = false, false
			s.lastString = ""
			if content := line[max(s.strStart, 0) : len(line)-1]; s.strStart >= 0 && len(content) <= 16 {
				s.lastString = string(content)
			}
			s.expectColon = true
		case s.urlHead:
			if c == ',' && isBase64DataURLHead(line[s.strStart:len(line)-1]) {
				s.payload, s.pure = len(line), true
			}
			if c == ',' || len(line)-s.strStart > 256 {
				s.urlHead = false
			}
		case !isB64Char(c) && c != '=':
			s.pure = false
		}
		if s.pure && s.payload >= 0 && !s.escape && c != '"' && len(line)-s.payload >= s.runLimit() {
			s.spill = newLargeDecoder()
			unescapeSlashes(line[s.payload:], s.spill.write)
			line = line[:s.payload]
			s.inString = false // the marker and the closing quote end it
			s.lastString, s.expectColon = "", true
			return line
		}
		if s.textRuns && s.runStart >= 0 && !s.escape && c != '"' && len(line)-s.runStart >= s.runLimit() {
			line = s.startRun(line)
		}
		return line
	}
	switch c {
	case '"':
		s.inString, s.strStart, s.pure = true, len(line), true
		s.valueKey, s.payload, s.runStart = "", -1, -1
		if s.afterColon {
			s.valueKey = s.pendingKey
		}
		switch s.valueKey {
		case "data", "blob":
			s.payload = s.strStart
		case "url", "image_url":
			s.urlHead = true
		}
		s.afterColon, s.expectColon = false, false
	case ':':
		if s.expectColon {
			s.afterColon, s.pendingKey = true, s.lastString
		}
		s.expectColon = false
	case ' ', '\t', '\r', '\n':
	default:
		s.expectColon, s.afterColon = false, false
	}
	return line
}

// followRun keeps runStart as c, the byte at n-1 in the line, is read inside a string.
func (s *lineSpiller) followRun(n int, c byte) {
	switch {
	case s.escape: // c is the escaped byte: `\/` is a '/' of the run
		if c != '/' {
			s.runStart = -1
		} else if s.runStart < 0 {
			s.runStart = n - 2
		}
	case c == '\\': // decided by the byte it escapes
	case b64Alphabet[c]:
		if s.runStart < 0 {
			s.runStart = n - 1
		}
	default:
		s.runStart = -1
	}
}

// startRun starts streaming the base64 run of a string's text that begins at runStart past,
// and returns the line without it.
func (s *lineSpiller) startRun(line []byte) []byte {
	s.spill = newLargeDecoder()
	s.spill.unpadded = true
	s.spillText = true
	if s.newCounter != nil {
		s.counter = s.newCounter()
	}
	unescapeSlashes(line[s.runStart:], s.writeRun)
	line = line[:s.runStart]
	s.runStart = -1
	return line
}

// unescapeSlashes hands run to write without the backslash of each `\/` (the only escape a
// run holds).
func unescapeSlashes(run []byte, write func([]byte)) {
	for len(run) > 0 {
		i := bytes.IndexByte(run, '\\')
		if i < 0 {
			write(run)
			return
		}
		write(run[:i])
		run = run[i+1:]
	}
}

// recordedLen is the length a JSON value had in its file: len(raw), with the base64 characters
// of each payload streamed past (LargeBase64.Chars) in place of its stand-in.
func recordedLen(raw []byte) int64 {
	n := int64(len(raw))
	eachStandIn(raw, func(start, end int, l *LargeBase64) { n += l.Chars - int64(end-start) })
	return n
}

// DescribeStandIns returns JSON text with the stand-in of each payload or run streamed past
// (as a JSON string body holds it) replaced by a note saying what it stood for, for output
// that a person reads (`corpus inspect --json`).
func DescribeStandIns(raw []byte) []byte {
	var out []byte
	last := 0
	eachStandIn(raw, func(start, end int, l *LargeBase64) {
		out = append(out, raw[last:start]...)
		note := fmt.Sprintf("[%d base64 characters streamed past while reading, not kept: %d bytes decoded, sha256 %s]", l.Chars, l.Bytes, l.SHA256)
		if l.Err != "" {
			note = fmt.Sprintf("[%d base64 characters streamed past while reading, not kept: not base64 (%s)]", l.Chars, l.Err)
		}
		q, _ := json.Marshal(note)
		out = append(out, q[1:len(q)-1]...)
		last = end
	})
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// eachStandIn calls fn with the place of each stand-in of a payload or run streamed past in
// JSON text raw, and what it stands for.
func eachStandIn(raw []byte, fn func(start, end int, l *LargeBase64)) {
	if !standInsMayExist() {
		return
	}
	start := []byte(`\u0000` + largeMarkerPrefix()[1:])
	for at := 0; ; {
		i := bytes.Index(raw[at:], start)
		if i < 0 {
			return
		}
		i += at
		end := bytes.Index(raw[i+len(start):], []byte(`\u0000`))
		if end < 0 {
			return
		}
		size := len(start) + end + len(`\u0000`)
		if l, ok := parseLargeMarker("\x00" + string(raw[i+6:i+len(start)+end]) + "\x00"); ok {
			fn(i, i+size, l)
		}
		at = i + size
	}
}
