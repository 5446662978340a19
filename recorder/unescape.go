package recorder

import (
	"bytes"
	"io"
)

// urlUnescaper writes to w what it is given with the JSON escapes that hide a URL's structure
// from corpora.RedactText undone: `\u0026` becomes `&` (Go's encoding/json writes & so) and
// `\/` becomes `/` (PHP's json_encode writes / so). Both are bytes a JSON string may hold as
// they are, so a valid JSON document stays valid and decodes to the same value; `\\` pairs are
// kept whole, so an escaped backslash followed by "u0026" is left alone. It holds back at most
// an escape cut at the end of a write.
type urlUnescaper struct {
	w       io.Writer
	pending []byte // the start of an escape cut at the end of the last write
	out     []byte
}

func (u *urlUnescaper) Write(p []byte) (int, error) {
	n := len(p)
	if len(u.pending) > 0 {
		p = append(u.pending, p...)
		u.pending = nil
	}
	out := u.out[:0]
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\\')
		if i < 0 {
			out = append(out, p...)
			break
		}
		out = append(out, p[:i]...)
		p = p[i:]
		switch {
		case len(p) < 2:
			u.pending = append(u.pending[:0], p...)
			p = nil
		case p[1] == '/':
			out = append(out, '/')
			p = p[2:]
		case p[1] == 'u' && len(p) < 6 && bytes.HasPrefix([]byte(`\u0026`), p):
			u.pending = append(u.pending[:0], p...)
			p = nil
		case bytes.HasPrefix(p, []byte(`\u0026`)):
			out = append(out, '&')
			p = p[6:]
		default: // any other escape, `\\` included, is copied whole
			out = append(out, p[:2]...)
			p = p[2:]
		}
	}
	u.out = out
	if _, err := u.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes an escape left cut at the end of the input as it is.
func (u *urlUnescaper) Flush() error {
	_, err := u.w.Write(u.pending)
	u.pending = nil
	return err
}

// unescapeURLs returns b with the escapes urlUnescaper undoes undone.
func unescapeURLs(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	var buf bytes.Buffer
	u := &urlUnescaper{w: &buf}
	u.Write(b) // a bytes.Buffer does not fail
	u.Flush()
	return buf.Bytes()
}

// scrubber is what a recorder writes recorded text through: URL escapes undone (urlUnescaper),
// then credentials in URLs redacted (redactor).
type scrubber struct {
	un  urlUnescaper
	red redactor
}

func newScrubber(w io.Writer) *scrubber {
	s := &scrubber{red: redactor{w: w}}
	s.un.w = &s.red
	return s
}

func (s *scrubber) Write(p []byte) (int, error) { return s.un.Write(p) }

// Flush writes what is held, as the end of the input.
func (s *scrubber) Flush() error {
	if err := s.un.Flush(); err != nil {
		return err
	}
	return s.red.Flush()
}

// writeScrubbed writes b, held whole in memory, scrubbed.
func writeScrubbed(w io.Writer, b []byte) error { return writeRedacted(w, unescapeURLs(b)) }
