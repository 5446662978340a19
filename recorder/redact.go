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

// Write redacts p as part of the stream. What is held never holds a byte that ends a URL, so
// only p is searched for one.
func (r *redactor) Write(p []byte) (int, error) {
	n := len(p)
	if r.inLongURL {
		end := firstURLEnd(p)
		if end < 0 {
			return n, nil
		}
		r.inLongURL, p = false, p[end:]
	}
	if k := lastURLEnd(p); k >= 0 {
		region := p[:k+1]
		if len(r.held) > 0 {
			r.held = append(r.held, region...)
			region = r.held
		}
		if err := writeRedacted(r.w, region); err != nil {
			return 0, err
		}
		r.held, p = r.held[:0], p[k+1:]
	}
	r.held = append(r.held, p...)
	if len(r.held) > redactHold {
		return n, r.spill()
	}
	return n, nil
}

// spill writes on a held run longer than redactHold: all of it but the last bytes (which may
// begin a URL) when no URL starts in it, else the URL cut where it is.
func (r *redactor) spill() error {
	h := r.held
	if !bytes.Contains(h, []byte("://")) {
		if _, err := r.w.Write(h[:len(h)-3]); err != nil {
			return err
		}
		r.held = append(r.held[:0], h[len(h)-3:]...)
		return nil
	}
	if err := writeRedacted(r.w, h); err != nil {
		return err
	}
	r.held, r.inLongURL = r.held[:0], true
	r.cut++
	return nil
}

// Flush writes what is held, as the end of the input.
func (r *redactor) Flush() error {
	err := writeRedacted(r.w, r.held)
	r.held = r.held[:0]
	return err
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

// urlEnds marks the bytes that end a URL for corpora.RedactText: a space or control byte, a
// quote, an angle bracket, a backslash or a closing bracket.
var urlEnds = func() (t [256]bool) {
	for c := 0; c <= ' '; c++ {
		t[c] = true
	}
	for _, c := range []byte("\"'<>\\`{}|^])") {
		t[c] = true
	}
	return t
}()

func endsURL(c byte) bool { return urlEnds[c] }
