package recorder

import (
	"bytes"
	"io"

	"github.com/strata-eval/strata-eval/corpora"
)

// redactHold is the most bytes redactor holds back while it waits for the end of a possible
// URL: a run longer than this without a byte that ends a URL is written on (a URL in it is cut:
// see redactor).
const redactHold = 1 << 20

// redactor writes to w what it is given, with the credentials of every absolute URL replaced as
// corpora.RedactText does: its output is RedactText of the whole input, written as the input
// comes. It holds back only the bytes after the last one that can end a URL (at most about
// redactHold). A URL longer than redactHold is redacted as far as it is held, and its rest is
// dropped up to its end (cut counts them), so that no credential in it can be written.
type redactor struct {
	w    io.Writer
	held []byte
	// inLongURL: the bytes up to the next URL end belong to a URL that was cut.
	inLongURL bool
	cut       int
}

// Write redacts p as part of the stream.
func (r *redactor) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if r.inLongURL {
			end := firstURLEnd(p)
			if end < 0 {
				return n, nil
			}
			r.inLongURL, p = false, p[end:]
			continue
		}
		take := min(len(p), redactHold)
		r.held = append(r.held, p[:take]...)
		p = p[take:]
		if err := r.drain(false); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush writes what is held, as the end of the input.
func (r *redactor) Flush() error { return r.drain(true) }

func (r *redactor) drain(final bool) error {
	h := r.held
	k := lastURLEnd(h)
	if final {
		k = len(h) - 1
	}
	if k >= 0 {
		if err := writeRedacted(r.w, h[:k+1]); err != nil {
			return err
		}
		h = h[k+1:]
	}
	if len(h) > redactHold {
		if !bytes.Contains(h, []byte("://")) {
			// No URL starts here; keep the last bytes, which may begin one ("x:/").
			if _, err := r.w.Write(h[:len(h)-3]); err != nil {
				return err
			}
			h = h[len(h)-3:]
		} else {
			if err := writeRedacted(r.w, h); err != nil {
				return err
			}
			h, r.inLongURL = nil, true
			r.cut++
		}
	}
	r.held = append(r.held[:0], h...)
	return nil
}

// writeRedacted writes RedactText of b.
func writeRedacted(w io.Writer, b []byte) error {
	if !bytes.Contains(b, []byte("://")) {
		_, err := w.Write(b)
		return err
	}
	_, err := io.WriteString(w, corpora.RedactText(string(b)))
	return err
}

// firstURLEnd is the index of the first byte of b that ends a URL, or -1.
func firstURLEnd(b []byte) int {
	for i, c := range b {
		if endsURL(c) {
			return i
		}
	}
	return -1
}

// lastURLEnd is the index of the last byte of b that ends a URL for corpora.RedactText, or -1.
func lastURLEnd(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if endsURL(b[i]) {
			return i
		}
	}
	return -1
}

// endsURL mirrors corpora.RedactText: a URL runs to the first space, control byte, quote,
// angle bracket, backslash or closing bracket.
func endsURL(c byte) bool {
	return c <= ' ' || bytes.IndexByte([]byte("\"'<>\\`{}|^])"), c) >= 0
}
