package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-eval/strata-eval/internal/jsonquote"
)

// The generator writes JSON by hand so that it controls what the real producers control: key
// order, spacing (compact as JSON.stringify, 2-space pretty as JSON.stringify(v, null, 2)),
// and which characters are escaped. It also records where every picture lands, as a JSON
// Pointer, while it writes.

// obj is a JSON object whose keys keep their order.
type obj []kv

// kv is one member of an obj.
type kv struct {
	k string
	v any
}

// arr is a JSON array.
type arr []any

// raw is JSON text written as it is.
type raw string

// blob is a string value that carries pictures or other base64 payloads worth recording.
type blob struct {
	text  string
	notes []payload
}

// nested is a string value whose text is the JSON encoding of doc (JSON inside a JSON
// string, as JSON.stringify'd tool output is): payloads inside doc are recorded with an inner
// pointer.
type nested struct {
	doc   any
	style style
}

// style is how JSON is spaced.
type style struct {
	indent string // "" for compact
}

var (
	compact = style{}
	pretty  = style{indent: "  "}
)

// found is a payload with the place where it was written.
type found struct {
	payload
	pointer string
	// inner are pointers inside the string at pointer, which is JSON text; when that JSON
	// holds a string that is JSON again, the next pointer goes inside that one, and so on.
	inner []string
}

// writer encodes values and records payload locations.
type writer struct {
	buf   bytes.Buffer
	style style
	path  []string
	found []found
	err   error
}

// encodeJSON returns the encoding of v and the payloads met, with their pointers.
func encodeJSON(v any, st style) ([]byte, []found, error) {
	w := &writer{style: st}
	w.value(v, 0)
	if w.err != nil {
		return nil, nil, w.err
	}
	return w.buf.Bytes(), w.found, nil
}

func (w *writer) pointer() string {
	var b strings.Builder
	for _, p := range w.path {
		b.WriteByte('/')
		p = strings.ReplaceAll(p, "~", "~0")
		b.WriteString(strings.ReplaceAll(p, "/", "~1"))
	}
	return b.String()
}

func (w *writer) newline(depth int) {
	if w.style.indent == "" {
		return
	}
	w.buf.WriteByte('\n')
	for i := 0; i < depth; i++ {
		w.buf.WriteString(w.style.indent)
	}
}

func (w *writer) value(v any, depth int) {
	switch x := v.(type) {
	case nil:
		w.buf.WriteString("null")
	case bool:
		w.buf.WriteString(strconv.FormatBool(x))
	case int:
		w.buf.WriteString(strconv.Itoa(x))
	case int64:
		w.buf.WriteString(strconv.FormatInt(x, 10))
	case float64:
		w.buf.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case string:
		writeString(&w.buf, x)
	case raw:
		w.buf.WriteString(string(x))
	case blob:
		for _, n := range x.notes {
			w.found = append(w.found, found{payload: n, pointer: w.pointer()})
		}
		writeString(&w.buf, x.text)
	case nested:
		text, inner, err := encodeJSON(x.doc, x.style)
		if err != nil && w.err == nil {
			w.err = err
		}
		for _, f := range inner {
			w.found = append(w.found, found{payload: f.payload, pointer: w.pointer(), inner: append([]string{f.pointer}, f.inner...)})
		}
		writeString(&w.buf, string(text))
	case obj:
		if len(x) == 0 {
			w.buf.WriteString("{}")
			return
		}
		w.buf.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.newline(depth + 1)
			writeString(&w.buf, m.k)
			w.buf.WriteByte(':')
			if w.style.indent != "" {
				w.buf.WriteByte(' ')
			}
			w.path = append(w.path, m.k)
			w.value(m.v, depth+1)
			w.path = w.path[:len(w.path)-1]
		}
		w.newline(depth)
		w.buf.WriteByte('}')
	case arr:
		if len(x) == 0 {
			w.buf.WriteString("[]")
			return
		}
		w.buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.newline(depth + 1)
			w.path = append(w.path, strconv.Itoa(i))
			w.value(e, depth+1)
			w.path = w.path[:len(w.path)-1]
		}
		w.newline(depth)
		w.buf.WriteByte(']')
	default:
		if w.err == nil {
			w.err = fmt.Errorf("encode json at %q: cannot encode %T", w.pointer(), v)
		}
		w.buf.WriteString("null")
	}
}

// writeString writes s as JSON.stringify does: only '"', '\\' and control characters are
// escaped, with the short escapes where they exist; '/' and non-ASCII are written as they are.
func writeString(b *bytes.Buffer, s string) {
	jsonquote.Write(b, s, jsonquote.InvalidAsRune)
}
