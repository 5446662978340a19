package corpora

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file holds the JSON helpers shared by the request-log readers: a walker over
// already-validated JSON that hands out sub-slices of the record (no copies, exact bytes for
// Message.Raw) together with their Location (JSON Pointer and byte offset), and decoders for
// base64 payloads and data URLs.

// jwNode is one JSON value inside a record: its bytes exactly as recorded (no surrounding
// whitespace) and where it sits.
type jwNode struct {
	raw []byte
	loc Location // Pointer of the value; Offset of its first byte
	// embedded is set for values parsed out of a JSON string (a stringified request body):
	// their byte positions do not map to the file, so children keep the string's offset.
	embedded bool
	// gap is set on a value of a line read with re-sent messages left out (resent.go) whose
	// bytes run across the place they were cut from.
	gap *jwGap
}

// jwGap is where the messages a line re-sends were cut from the bytes a value is read from:
// a value after the cut is shift bytes further into the line than its place in the bytes
// says, and the message array's elements after it are index places further on.
type jwGap struct {
	capAt int // the capacity of the bytes from the cut on: a value at or after it has no more
	shift int64
	index int
}

// errJWMalformed reports JSON the walker cannot follow; validated input never yields it.
var errJWMalformed = errors.New("malformed JSON")

// jwSyntaxOnly is an Unmarshaler that accepts any value; unmarshalling into it only checks syntax.
type jwSyntaxOnly struct{}

// UnmarshalJSON accepts the value without keeping it.
func (*jwSyntaxOnly) UnmarshalJSON([]byte) error { return nil }

// jwCheck validates a record: JSON syntax and UTF-8. It returns a located error naming the
// byte offset (and, for bad UTF-8, the JSON Pointer of the string holding it).
func jwCheck(root jwNode) *ReadError {
	if !jwValid(root.raw) { // the verdict of json.Valid, faster (jsonvalid.go)
		err := json.Unmarshal(root.raw, new(jwSyntaxOnly))
		loc := root.loc
		var se *json.SyntaxError
		if errors.As(err, &se) && !root.embedded {
			loc.Offset += max(se.Offset-1, 0) // the byte that broke the syntax
		}
		if err == nil {
			err = errJWMalformed
		}
		return &ReadError{Loc: loc, Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	if !utf8.Valid(root.raw) {
		bad := jwFirstInvalidUTF8(root.raw)
		at := jwNodeAt(root, bad)
		loc := at.loc
		if !root.embedded {
			loc.Offset = root.loc.Offset + int64(bad)
		}
		return &ReadError{Loc: loc, Err: fmt.Errorf("invalid UTF-8 in a string (byte %d of the value)", bad)}
	}
	return nil
}

// jwFirstInvalidUTF8 returns the index of the first byte of b that is not valid UTF-8, or -1.
func jwFirstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// kind returns the first byte of the value: '{', '[', '"', 't', 'f', 'n', or a digit or '-'.
func (n jwNode) kind() byte {
	if len(n.raw) == 0 {
		return 0
	}
	return n.raw[0]
}

// isNull reports whether the value is JSON null (or absent).
func (n jwNode) isNull() bool { return len(n.raw) == 0 || n.raw[0] == 'n' }

// kindName names the JSON type of the value for error messages.
func (n jwNode) kindName() string {
	switch n.kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case 0:
		return "nothing"
	}
	return "a number"
}

// errorf returns a located error at the value.
func (n jwNode) errorf(format string, args ...any) *ReadError {
	return &ReadError{Loc: n.loc, Err: fmt.Errorf(format, args...)}
}

// child returns the node for raw[start:end] named token.
func (n jwNode) child(token any, start, end int) jwNode {
	c := jwNode{raw: n.raw[start:end], loc: n.loc.Child(token), embedded: n.embedded}
	if !n.embedded {
		c.loc.Offset += int64(start)
	}
	if g := n.gap; g != nil {
		switch {
		case cap(c.raw) <= g.capAt: // after the cut
			c.loc.Offset += g.shift
		case cap(c.raw)-len(c.raw) < g.capAt: // across it
			c.gap = g
		}
	}
	return c
}

// jwSkipSpace returns the index of the first non-whitespace byte of b at or after i.
func jwSkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jwValueEnd returns the index just after the JSON value starting at b[i].
func jwValueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJWMalformed
	}
	switch b[i] {
	case '"':
		return jwStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			case '"':
				end, err := jwStringEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			}
		}
		return 0, errJWMalformed
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' &&
			b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return 0, errJWMalformed
		}
		return j, nil
	}
}

// jwStringEnd returns the index just after the JSON string starting at b[i] (a quote). It jumps
// from quote to quote with bytes.IndexByte, so multi-megabyte base64 strings are passed quickly.
func jwStringEnd(b []byte, i int) (int, error) {
	j := i + 1
	for j <= len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		escapes := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
	return 0, errJWMalformed
}

// members calls fn for each member of an object, in recorded order.
func (n jwNode) members(fn func(key string, v jwNode) error) error {
	if n.kind() != '{' {
		return n.errorf("expected an object, found %s", n.kindName())
	}
	b := n.raw
	i := jwSkipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return n.errorf("%w", errJWMalformed)
		}
		kend, err := jwStringEnd(b, i)
		if err != nil {
			return n.errorf("%w", err)
		}
		key, err := jwUnquote(b[i:kend])
		if err != nil {
			return n.errorf("object key: %w", err)
		}
		i = jwSkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return n.errorf("%w", errJWMalformed)
		}
		i = jwSkipSpace(b, i+1)
		vend, err := jwValueEnd(b, i)
		if err != nil {
			return n.errorf("%w", err)
		}
		if err := fn(key, n.child(key, i, vend)); err != nil {
			return err
		}
		i = jwSkipSpace(b, vend)
		if i < len(b) && b[i] == '}' {
			return nil
		}
		if i >= len(b) || b[i] != ',' {
			return n.errorf("%w", errJWMalformed)
		}
		i = jwSkipSpace(b, i+1)
	}
	return n.errorf("%w", errJWMalformed)
}

// jwFields is an object's members by key.
type jwFields struct {
	members map[string]jwNode
	parent  jwNode
}

// fields returns the members of an object by key; of duplicate keys the last wins, as with
// encoding/json.
func (n jwNode) fields() (jwFields, error) {
	f := jwFields{members: map[string]jwNode{}, parent: n}
	err := n.members(func(k string, v jwNode) error {
		f.members[k] = v
		return nil
	})
	return f, err
}

// has returns the member key and whether it is present.
func (f jwFields) has(key string) (jwNode, bool) {
	v, ok := f.members[key]
	return v, ok
}

// get returns the member key; an absent member is an empty node that is still located (at
// the pointer it would have), so that errors about it name the place.
func (f jwFields) get(key string) jwNode {
	if v, ok := f.members[key]; ok {
		return v
	}
	return jwNode{loc: f.parent.loc.Child(key), embedded: f.parent.embedded}
}

// str returns the string member key, "" when it is absent or null, and an error when it is
// another type.
func (f jwFields) str(key string) (string, *ReadError) {
	v := f.get(key)
	if v.isNull() {
		return "", nil
	}
	return v.text()
}

// elements calls fn for each element of an array, in order.
func (n jwNode) elements(fn func(i int, v jwNode) error) error {
	if n.kind() != '[' {
		return n.errorf("expected an array, found %s", n.kindName())
	}
	b := n.raw
	i := jwSkipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	first := 0
	if n.gap != nil { // an array cut: its elements are the ones after the cut
		first = n.gap.index
	}
	for idx := first; i < len(b); idx++ {
		end, err := jwValueEnd(b, i)
		if err != nil {
			return n.errorf("%w", err)
		}
		if err := fn(idx, n.child(idx, i, end)); err != nil {
			return err
		}
		i = jwSkipSpace(b, end)
		if i < len(b) && b[i] == ']' {
			return nil
		}
		if i >= len(b) || b[i] != ',' {
			return n.errorf("%w", errJWMalformed)
		}
		i = jwSkipSpace(b, i+1)
	}
	return n.errorf("%w", errJWMalformed)
}

// text returns the value of a JSON string.
//
// A string of jwShareBytes or more without escapes shares the record's bytes (no copy): a
// record's bytes are its own (each line or document is read into a buffer of its own, never
// reused or written after, and kept by Message.Raw anyway), so a tool text of hundreds of MB
// is held once, in the line, not twice.
func (n jwNode) text() (string, *ReadError) {
	if n.kind() != '"' {
		return "", n.errorf("expected a string, found %s", n.kindName())
	}
	if len(n.raw) >= jwShareBytes+2 && n.raw[len(n.raw)-1] == '"' {
		if inner := n.raw[1 : len(n.raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
			return unsafe.String(&inner[0], len(inner)), nil
		}
	}
	s, err := jwUnquote(n.raw)
	if err != nil {
		return "", n.errorf("%w", err)
	}
	return s, nil
}

// jwShareBytes is the length from which text shares a string's bytes with its record.
const jwShareBytes = 1 << 20

// textBytes returns the value of a JSON string as bytes; without escapes it shares the
// record's bytes (no copy), which matters for multi-megabyte base64 payloads.
func (n jwNode) textBytes() ([]byte, *ReadError) {
	if n.kind() != '"' || len(n.raw) < 2 {
		return nil, n.errorf("expected a string, found %s", n.kindName())
	}
	inner := n.raw[1 : len(n.raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, nil
	}
	s, err := jwUnquote(n.raw)
	if err != nil {
		return nil, n.errorf("%w", err)
	}
	return []byte(s), nil
}

// boolean returns the value of a JSON boolean; null and absence are false.
func (n jwNode) boolean() (bool, *ReadError) {
	switch n.kind() {
	case 't':
		return true, nil
	case 'f', 'n', 0:
		return false, nil
	}
	return false, n.errorf("expected a boolean, found %s", n.kindName())
}

// jwUnquote decodes a quoted JSON string.
func jwUnquote(q []byte) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", errJWMalformed
	}
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), nil
	}
	if s, ok := jwUnescape(inner); ok {
		return s, nil
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", err
	}
	return s, nil
}

// jwUnescape decodes the escapes of a JSON string's inner bytes in one pass, with one
// allocation, the way encoding/json does (a lone or broken UTF-16 surrogate becomes U+FFFD).
// It declines (ok false) what encoding/json would reject or repair: a control byte, a quote, a
// bad escape, invalid UTF-8; the caller then asks encoding/json for the error or the repair.
// A stringified multi-megabyte tool result is all escapes of quotes: this is what reads it.
// The plain ASCII between escapes is found and copied in one step (jwPlain); a stretch
// of bytes past ASCII is checked as UTF-8 where it stands (UTF-8 never puts an ASCII byte
// inside a rune, so the stretches are valid exactly when the whole is).
func jwUnescape(inner []byte) (string, bool) {
	var out strings.Builder // String() hands over the buffer: the text is copied once
	out.Grow(len(inner))
	for len(inner) > 0 {
		k := jwPlain(inner, 0, jwStopASCII, jwHighs)
		out.Write(inner[:k])
		inner = inner[k:]
		if len(inner) == 0 {
			break
		}
		if inner[0] >= utf8.RuneSelf {
			k = 1
			for k < len(inner) && inner[k] >= utf8.RuneSelf {
				k++
			}
			if !utf8.Valid(inner[:k]) {
				return "", false
			}
			out.Write(inner[:k])
			inner = inner[k:]
			continue
		}
		if inner[0] != '\\' {
			return "", false // a control byte or a quote
		}
		if len(inner) < 2 {
			return "", false
		}
		switch c := inner[1]; c {
		case '"', '\\', '/':
			out.WriteByte(c)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := jwHex4(inner[2:])
			if !ok {
				return "", false
			}
			inner = inner[6:]
			if utf16.IsSurrogate(r) {
				if len(inner) >= 6 && inner[0] == '\\' && inner[1] == 'u' {
					if r2, ok := jwHex4(inner[2:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
							out.WriteRune(dec)
							inner = inner[6:]
							continue
						}
					}
				}
				r = unicode.ReplacementChar
			}
			out.WriteRune(r)
			continue
		default:
			return "", false
		}
		inner = inner[2:]
	}
	return out.String(), true
}

// jwHex4 reads the four hex digits of a \u escape.
func jwHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// jwNodeAt returns the innermost value of root whose bytes contain index off of root.raw.
func jwNodeAt(root jwNode, off int) jwNode {
	cur := root
	for {
		found := false
		visit := func(v jwNode) error {
			start := jwSubsliceStart(root.raw, v.raw)
			if off >= start && off < start+len(v.raw) {
				cur, found = v, true
				return errJWStop
			}
			return nil
		}
		switch cur.kind() {
		case '{':
			_ = cur.members(func(_ string, v jwNode) error { return visit(v) })
		case '[':
			_ = cur.elements(func(_ int, v jwNode) error { return visit(v) })
		}
		if !found {
			return cur
		}
	}
}

// errJWStop ends a walk early.
var errJWStop = errors.New("stop")

// jwSubsliceStart returns the index in parent at which the sub-slice child starts.
func jwSubsliceStart(parent, child []byte) int {
	if len(child) == 0 || len(parent) == 0 {
		return 0
	}
	// child is a sub-slice of parent: compare the addresses through their capacities.
	return cap(parent) - cap(child)
}

// jwCompact returns the JSON value without insignificant whitespace (key order, escapes and
// numbers kept as recorded). Already-compact input is returned as is.
func jwCompact(raw []byte) []byte {
	if !bytes.ContainsAny(raw, " \t\r\n") {
		return raw
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// jwDataURL is a parsed RFC 2397 data URL.
type jwDataURL struct {
	MediaType string // the label before the parameters, lower-cased ("" when absent)
	Base64    bool   // the payload is base64 (";base64")
	Payload   []byte // the payload as written after the comma
}

// jwParseDataURL splits a data URL; ok is false when s is not one.
func jwParseDataURL(s []byte) (d jwDataURL, ok bool) {
	if len(s) < 5 || !strings.EqualFold(string(s[:5]), "data:") {
		return d, false
	}
	header, payload, found := bytes.Cut(s[5:], []byte(","))
	if !found {
		return d, false
	}
	params := strings.Split(string(header), ";")
	d.MediaType = strings.ToLower(strings.TrimSpace(params[0]))
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			d.Base64 = true
		}
	}
	d.Payload = payload
	return d, true
}

// decode returns the payload's bytes: base64-decoded, or percent-decoded.
func (d jwDataURL) decode() ([]byte, error) {
	if d.Base64 {
		return jwDecodeBase64(d.Payload)
	}
	s, err := url.PathUnescape(string(d.Payload))
	if err != nil {
		return nil, fmt.Errorf("data URL payload: %w", err)
	}
	return []byte(s), nil
}

// jwDecodeBase64 decodes standard base64 (RFC 4648), padded or not, ignoring CR and LF
// (MIME-style line breaks). A bad character is reported with its byte offset.
func jwDecodeBase64(b []byte) ([]byte, error) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b))+3)
	n, err := base64.StdEncoding.Decode(out, b)
	if err == nil {
		return out[:n], nil
	}
	// Unpadded input: retry without padding after dropping line breaks.
	clean := b
	if bytes.ContainsAny(b, "\r\n") {
		clean = bytes.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, b)
	}
	if len(clean)%4 != 0 && !bytes.HasSuffix(clean, []byte("=")) {
		if n2, err2 := base64.RawStdEncoding.Decode(out, clean); err2 == nil {
			return out[:n2], nil
		}
	}
	var ce base64.CorruptInputError
	if errors.As(err, &ce) {
		return nil, fmt.Errorf("invalid base64 at byte %d of %d", int64(ce), len(b))
	}
	return nil, fmt.Errorf("invalid base64: %w", err)
}
