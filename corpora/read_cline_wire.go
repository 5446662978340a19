package corpora

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// clineMaxToolResultChars is how long a tool result's text Cline sends is, at most (in UTF-16
// units, as JavaScript counts): a longer one loses its middle.
const clineMaxToolResultChars = 8000

// clineWire is a message of a Cline session as Anthropic Messages: returned holds its tool
// results as the tools gave them, sent as Cline sent them (each text cut to
// clineMaxToolResultChars); changed counts the tool results that differ. As Cline builds a
// request, a user text loses its <user_input> and <user_command> wrappers, a tool result that is
// not a string or a list of text and image blocks goes as its JSON with the pictures it holds
// taken out and sent after it as image blocks.
func clineWire(m clineMessage, loc Location) (returned, sent []byte, changed int, rerr *ReadError) {
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		if m.Role == "user" {
			text = clineUserText(text)
		}
		b := clineJSON(map[string]any{"role": m.Role, "content": text})
		return b, b, 0, nil
	}
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return nil, nil, 0, &ReadError{Loc: loc.Child("content"), Err: fmt.Errorf("content must be a string or an array of blocks; message skipped")}
	}
	var ret, snt []any
	for i, b := range blocks {
		var typ string
		_ = json.Unmarshal(b["type"], &typ)
		switch typ {
		case "text":
			var t string
			if json.Unmarshal(b["text"], &t) != nil {
				return nil, nil, 0, &ReadError{Loc: loc.Child("content").Child(i).Child("text"), Err: fmt.Errorf("a text block's text must be a string")}
			}
			if m.Role == "user" {
				t = clineUserText(t)
			}
			block := map[string]any{"type": "text", "text": t}
			ret, snt = append(ret, block), append(snt, block)
		case "tool_result":
			r, s, err := clineToolResult(b)
			if err != nil {
				return nil, nil, 0, &ReadError{Loc: loc.Child("content").Child(i).Child("content"), Err: err}
			}
			if !bytes.Equal(clineJSON(r), clineJSON(s)) {
				changed++
			}
			ret, snt = append(ret, r), append(snt, s)
		case "image":
			block := clineImage(b)
			ret, snt = append(ret, block), append(snt, block)
		default: // tool_use, thinking: as recorded
			ret, snt = append(ret, b), append(snt, b)
		}
	}
	return clineJSON(map[string]any{"role": m.Role, "content": ret}), clineJSON(map[string]any{"role": m.Role, "content": snt}), changed, nil
}

// clineUserWrappers are the tags Cline wraps a user's text in, in the session, not when sending.
var clineUserWrappers = []struct{ pair, open *regexp.Regexp }{
	{regexp.MustCompile(`<user_input\b[^>]*>([\s\S]*?)</user_input>`), regexp.MustCompile(`<user_input[^>]*>`)},
	{regexp.MustCompile(`<user_command\b[^>]*>([\s\S]*?)</user_command>`), regexp.MustCompile(`<user_command[^>]*>`)},
}

// clineUserText is a user's text as Cline sends it: its wrappers taken off, trimmed.
func clineUserText(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	for _, w := range clineUserWrappers {
		if g := w.pair.ReplaceAllString(s, "$1"); g != s {
			s = g
		} else {
			s = w.open.ReplaceAllString(s, "")
		}
		s = strings.TrimSpace(s)
	}
	return s
}

// clineImage is a picture block of Cline ({type, data, mediaType}) as an Anthropic image block.
func clineImage(b map[string]json.RawMessage) map[string]any {
	var data, media string
	_ = json.Unmarshal(b["data"], &data)
	_ = json.Unmarshal(b["mediaType"], &media)
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": media, "data": data}}
}

// clineToolResult is a tool_result block as the tool gave it and as Cline sent it.
func clineToolResult(b map[string]json.RawMessage) (returned, sent map[string]any, err error) {
	var v jsValue
	if raw := b["content"]; len(raw) > 0 {
		if v, err = parseJSValue(raw); err != nil {
			return nil, nil, err
		}
	}
	var isError bool
	_ = json.Unmarshal(b["is_error"], &isError)
	out := func(cut bool) map[string]any {
		r := map[string]any{"type": "tool_result", "tool_use_id": json.RawMessage(b["tool_use_id"]), "content": clineResultContent(v, cut, isError)}
		if isError {
			r["is_error"] = true
		}
		return r
	}
	return out(false), out(true), nil
}

// clineResultContent is a tool result's content as Cline sends it; cut cuts its texts.
func clineResultContent(v jsValue, cut, isError bool) any {
	if v.kind == 's' {
		if cut {
			return clineCut(v.s)
		}
		return v.s
	}
	if v.kind != 'a' {
		return json.RawMessage(v.stringify())
	}
	if cut {
		v = v.cutTexts()
	}
	if !isError && v.onlyBlocks() {
		var out []any
		for _, e := range v.vals {
			if e.isImage() {
				out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": e.get("mediaType").s, "data": e.get("data").s}})
			} else {
				out = append(out, map[string]any{"type": "text", "text": e.get("text").s})
			}
		}
		return out
	}
	var pictures []jsValue
	if isError {
		return v.stringify()
	}
	hoisted := v.hoist(&pictures)
	if len(pictures) == 0 {
		return v.stringify()
	}
	out := []any{map[string]any{"type": "text", "text": hoisted.stringify()}}
	for _, p := range pictures {
		out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": p.get("mediaType").s, "data": p.get("data").s}})
	}
	return out
}

// clineCut is s cut as Cline cuts a tool result's text longer than clineMaxToolResultChars:
// its head and tail around a marker that says how much was left out. A base64 run of s
// streamed past counts as the characters it stands for: Cline cut the text it recorded.
func clineCut(s string) string {
	segs := clineSegments(s)
	n := 0
	for _, g := range segs {
		n += g.units()
	}
	if n <= clineMaxToolResultChars {
		return s
	}
	marker := func(k int) string { return fmt.Sprintf("\n\n...[truncated %d chars]...\n\n", k) }
	keep := max(0, (clineMaxToolResultChars-len(marker(n-clineMaxToolResultChars)))/2)
	m := marker(max(0, n-2*keep))
	keep = max(0, (clineMaxToolResultChars-len(m))/2)
	head, tail, k := "", "", keep
	for i := 0; i < len(segs) && k > 0; i++ {
		part, took := segs[i].first(k)
		head, k = head+part, k-took
	}
	for i, k := len(segs)-1, keep; i >= 0 && k > 0; i-- {
		part, took := segs[i].last(k)
		tail, k = part+tail, k-took
	}
	return head + m + tail
}

// clineSegment is a stretch of a text: a run streamed past (run set; text its stand-in), else
// text.
type clineSegment struct {
	text string
	run  *LargeBase64
}

// clineSegments cuts s into its text and its runs streamed past.
func clineSegments(s string) []clineSegment {
	var segs []clineSegment
	at := 0
	for _, r := range LargeRuns(s) {
		segs = append(segs, clineSegment{text: s[at:r.Start]}, clineSegment{text: s[r.Start:r.End], run: r.LargeBase64})
		at = r.End
	}
	return append(segs, clineSegment{text: s[at:]})
}

// units is the segment's length in UTF-16 units, as JavaScript counts it.
func (g clineSegment) units() int {
	switch {
	case g.run != nil:
		return int(g.run.Chars)
	case isASCII(g.text):
		return len(g.text)
	}
	return len(utf16.Encode([]rune(g.text)))
}

// first returns the segment's first k units (all of it when shorter) and how many it gave. Of
// a run, they are the base64 of its kept head; a run whose head does not hold them (one that
// does not decode) gives its stand-in, which says that it cannot be sent.
func (g clineSegment) first(k int) (string, int) {
	if n := g.units(); n <= k {
		return g.text, n
	}
	if g.run != nil {
		head := base64.StdEncoding.EncodeToString(g.run.Head[:len(g.run.Head)/3*3])
		if g.run.Err != "" || len(head) < k {
			return largeMarkerText, k
		}
		return head[:k], k
	}
	if isASCII(g.text) {
		return g.text[:k], k
	}
	return string(utf16.Decode(utf16.Encode([]rune(g.text))[:k])), k
}

// last returns the segment's last k units (all of it when shorter) and how many it gave: of a
// run, its kept tail.
func (g clineSegment) last(k int) (string, int) {
	n := g.units()
	if n <= k {
		return g.text, n
	}
	if g.run != nil {
		if len(g.run.Tail) < k {
			return largeMarkerText, k
		}
		return string(g.run.Tail[len(g.run.Tail)-k:]), k
	}
	if isASCII(g.text) {
		return g.text[n-k:], k
	}
	return string(utf16.Decode(utf16.Encode([]rune(g.text))[n-k:])), k
}

// isASCII says whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// clineJSON is v in JSON (v is built from maps, strings and raw JSON: it always encodes).
func clineJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsValue is a JSON value that keeps the order of an object's keys, to be written again as
// JavaScript's JSON.stringify writes it.
type jsValue struct {
	kind byte // 's' string, 'a' array, 'o' object, 'r' number, true, false or null
	s    string
	raw  string
	keys []string  // an object's keys
	vals []jsValue // an array's elements or an object's values
}

// parseJSValue parses raw.
func parseJSValue(raw []byte) (jsValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseJSToken(dec)
	if err != nil {
		return jsValue{}, fmt.Errorf("tool result: %w", err)
	}
	return v, nil
}

// parseJSToken parses the value dec stands at.
func parseJSToken(dec *json.Decoder) (jsValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsValue{}, err
	}
	switch t := tok.(type) {
	case string:
		return jsValue{kind: 's', s: t}, nil
	case json.Number:
		return jsValue{kind: 'r', raw: t.String()}, nil
	case bool:
		return jsValue{kind: 'r', raw: fmt.Sprint(t)}, nil
	case nil:
		return jsValue{kind: 'r', raw: "null"}, nil
	}
	v := jsValue{kind: 'a'}
	if tok == json.Delim('{') {
		v.kind = 'o'
	}
	for dec.More() {
		if v.kind == 'o' {
			k, err := dec.Token()
			if err != nil {
				return v, err
			}
			v.keys = append(v.keys, k.(string))
		}
		e, err := parseJSToken(dec)
		if err != nil {
			return v, err
		}
		v.vals = append(v.vals, e)
	}
	_, err = dec.Token()
	return v, err
}

// get is an object's value of key (a zero value when it has none).
func (v jsValue) get(key string) jsValue {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return jsValue{}
}

// typed says whether v is an object whose type is typ.
func (v jsValue) typed(typ string) bool {
	t := v.get("type")
	return v.kind == 'o' && t.kind == 's' && t.s == typ
}

// isImage says whether v is a picture of Cline's ({type: image, data, mediaType}).
func (v jsValue) isImage() bool {
	return v.typed("image") && v.get("data").kind == 's' && v.get("mediaType").kind == 's'
}

// onlyBlocks says whether v is a non-empty list of text blocks and pictures only.
func (v jsValue) onlyBlocks() bool {
	for _, e := range v.vals {
		if !e.isImage() && !(e.typed("text") && e.get("text").kind == 's') {
			return false
		}
	}
	return len(v.vals) > 0
}

// cutTexts cuts the texts of a tool result's list as Cline does before sending: a text block's
// text, a file's content, every string of another object but its pictures.
func (v jsValue) cutTexts() jsValue {
	out := v
	out.vals = make([]jsValue, len(v.vals))
	for i, e := range v.vals {
		switch {
		case e.typed("text") || e.typed("file"):
			e = e.with(map[bool]string{true: "text", false: "content"}[e.typed("text")], clineCut)
		case (e.kind == 'o' || e.kind == 'a') && !e.typed("image"):
			e = e.cutNested()
		}
		out.vals[i] = e
	}
	return out
}

// with is v with the string at key passed through fn.
func (v jsValue) with(key string, fn func(string) string) jsValue {
	out := v
	out.vals = append([]jsValue(nil), v.vals...)
	for i, k := range v.keys {
		if k == key && v.vals[i].kind == 's' {
			out.vals[i].s = fn(v.vals[i].s)
		}
	}
	return out
}

// cutNested cuts every string of v but those of its pictures.
func (v jsValue) cutNested() jsValue {
	switch {
	case v.kind == 's':
		v.s = clineCut(v.s)
		return v
	case v.kind == 'r' || v.isImage():
		return v
	}
	out := v
	out.vals = make([]jsValue, len(v.vals))
	for i, e := range v.vals {
		out.vals[i] = e.cutNested()
	}
	return out
}

// hoist takes the pictures out of v into pictures, as Cline does before sending a tool result:
// a picture in a list leaves it, one elsewhere leaves "[image attached]"; a text block in a
// list becomes its text.
func (v jsValue) hoist(pictures *[]jsValue) jsValue {
	switch {
	case v.isImage():
		*pictures = append(*pictures, v)
		return jsValue{kind: 's', s: "[image attached]"}
	case v.kind == 'o':
		out := v
		out.vals = make([]jsValue, len(v.vals))
		for i, e := range v.vals {
			out.vals[i] = e.hoist(pictures)
		}
		return out
	case v.kind != 'a':
		return v
	}
	out := jsValue{kind: 'a'}
	for _, e := range v.vals {
		switch {
		case e.isImage():
			*pictures = append(*pictures, e)
		case e.typed("text") && e.get("text").kind == 's':
			out.vals = append(out.vals, e.get("text"))
		default:
			out.vals = append(out.vals, e.hoist(pictures))
		}
	}
	return out
}

// stringify writes v as JSON.stringify does.
func (v jsValue) stringify() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v jsValue) write(b *strings.Builder) {
	switch v.kind {
	case 's':
		b.Write(jsString(v.s))
	case 'r':
		b.WriteString(v.raw)
	case 0:
		b.WriteString("null")
	default:
		open, end := byte('['), byte(']')
		if v.kind == 'o' {
			open, end = '{', '}'
		}
		b.WriteByte(open)
		for i, e := range v.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			if v.kind == 'o' {
				b.Write(jsString(v.keys[i]))
				b.WriteByte(':')
			}
			e.write(b)
		}
		b.WriteByte(end)
	}
}

// jsString is s quoted as JSON.stringify quotes it: only the quote, the backslash and the
// control characters escaped.
func jsString(s string) []byte {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = fmt.Appendf(b, "\\u%04x", c)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
