package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/jsonquote"
	"github.com/strata-eval/strata-eval/internal/vecscan"
	"github.com/strata-eval/strata-eval/measure/tokenize"
)

// This file holds the request as llama.cpp's server (release v0.5.0) hands it to a chat
// template, so that the built-in templates and the Jinja renderer see what the server's
// template sees (docs/pipeline.md §13.3):
//
//   - tool-call arguments are parsed into an object (common/chat.cpp func_args_not_string),
//     so the template's tojson writes them back with ", " and ": " and its own spellings;
//   - a tool is {"type": "function", "function": {"name", "description", "parameters"}}: the
//     description is always there ("" when the request has none), other fields are dropped
//     (common_chat_tools_parse_oaicompat keeps only these three);
//   - an assistant message keeps its reasoning_content;
//   - numbers are nlohmann::json's: an integer that fits int64 is an integer, one that fits
//     uint64 only is read back as int64 (it wraps), anything else is a double, which the
//     server's tojson prints as C++'s ostream does (%g, six significant digits);
//   - strings are the ones the server decoded from the JSON wire: a byte that is not UTF-8
//     is U+FFFD (Go's encoder replaces each such byte).

// jsonKind says what a jsonNode holds.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonInt
	jsonFloat
	jsonString
	jsonArray
	jsonObject
)

// jsonNode is a JSON value as the server holds it: objects keep key order, numbers are
// int64 or float64.
type jsonNode struct {
	kind  jsonKind
	b     bool
	i     int64
	f     float64
	s     string
	keys  []string   // jsonObject
	items []jsonNode // jsonArray elements, or jsonObject values (parallel to keys)
}

// parseServerJSON reads JSON text the way nlohmann::ordered_json does (key order kept, numbers
// as described above). A duplicate key keeps its first position and its last value.
func parseServerJSON(raw []byte) (jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := serverJSONValue(dec)
	if err != nil {
		return jsonNode{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jsonNode{}, fmt.Errorf("trailing data after JSON value")
	}
	return n, nil
}

func serverJSONValue(dec *json.Decoder) (jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsonNode{}, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			n := jsonNode{kind: jsonArray}
			for dec.More() {
				it, err := serverJSONValue(dec)
				if err != nil {
					return jsonNode{}, err
				}
				n.items = append(n.items, it)
			}
			_, err := dec.Token()
			return n, err
		}
		n := jsonNode{kind: jsonObject}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return jsonNode{}, err
			}
			val, err := serverJSONValue(dec)
			if err != nil {
				return jsonNode{}, err
			}
			n.set(wireString(k.(string)), val)
		}
		_, err := dec.Token()
		return n, err
	case string:
		return jsonNode{kind: jsonString, s: wireString(v)}, nil
	case json.Number:
		return serverNumber(string(v)), nil
	case bool:
		return jsonNode{kind: jsonBool, b: v}, nil
	}
	return jsonNode{kind: jsonNull}, nil
}

// set sets key to val, keeping the key's first position.
func (n *jsonNode) set(key string, val jsonNode) {
	for i, k := range n.keys {
		if k == key {
			n.items[i] = val
			return
		}
	}
	n.keys = append(n.keys, key)
	n.items = append(n.items, val)
}

// serverNumber reads a JSON number as nlohmann's lexer does: without '.', 'e' or 'E' an
// integer (int64 when negative, uint64 otherwise, a double when it overflows); a uint64 above
// the int64 range is read by the template engine with get<int64_t>, which wraps.
func serverNumber(s string) jsonNode {
	if !strings.ContainsAny(s, ".eE") {
		if strings.HasPrefix(s, "-") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return jsonNode{kind: jsonInt, i: i}
			}
		} else if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return jsonNode{kind: jsonInt, i: int64(u)}
		}
	}
	f, _ := strconv.ParseFloat(s, 64) // the decoder has checked the syntax; overflow gives ±Inf
	return jsonNode{kind: jsonFloat, f: f}
}

// serverFloat writes a double as C++'s `ostream << double` does with the default format:
// %g with six significant digits ("1" for 1.0, "1e+20", "3.14159", "inf").
func serverFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// toJSON writes n as the server's Jinja tojson filter writes it by default (value_to_json in
// common/jinja/value.cpp): with indent < 0 on one line with ", " and ": "; with indent ≥ 0
// one item a line, "," and ": ", nested levels indented by indent spaces.
func (n jsonNode) toJSON(b *strings.Builder, indent, level int) {
	itemSep := ", "
	if indent >= 0 {
		itemSep = ","
	}
	n.write(b, indent, level, itemSep, ": ")
}

// write is toJSON with the given separators.
func (n jsonNode) write(b *strings.Builder, indent, level int, itemSep, keySep string) {
	switch n.kind {
	case jsonNull:
		b.WriteString("null")
	case jsonBool:
		if n.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case jsonInt:
		b.WriteString(strconv.FormatInt(n.i, 10))
	case jsonFloat:
		b.WriteString(serverFloat(n.f))
	case jsonString:
		jsonquote.Write(b, n.s, jsonquote.InvalidAsRune)
	case jsonArray, jsonObject:
		open, closer := byte('['), byte(']')
		if n.kind == jsonObject {
			open, closer = '{', '}'
		}
		b.WriteByte(open)
		if len(n.items) > 0 {
			if indent >= 0 {
				b.WriteByte('\n')
			}
			for i, it := range n.items {
				if indent > 0 {
					b.WriteString(strings.Repeat(" ", (level+1)*indent))
				}
				if n.kind == jsonObject {
					jsonquote.Write(b, n.keys[i], jsonquote.InvalidAsRune)
					b.WriteString(keySep)
				}
				it.write(b, indent, level+1, itemSep, keySep)
				if i < len(n.items)-1 {
					b.WriteString(itemSep)
				}
				if indent >= 0 {
					b.WriteByte('\n')
				}
			}
			if indent > 0 {
				b.WriteString(strings.Repeat(" ", level*indent))
			}
		}
		b.WriteByte(closer)
	}
}

// asciiJSON escapes the non-ASCII characters inside the strings of JSON text as \uxxxx
// (surrogate pairs above U+FFFF), as the server's tojson(ensure_ascii=true) does.
func asciiJSON(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case !inString:
			inString = c == '"'
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b.WriteString(`\ufffd`)
			} else if r > 0xFFFF {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10&0x3FF), 0xDC00+(r&0x3FF))
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			i += n
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// serverToJSON is toJSON into a new string.
func serverToJSON(n jsonNode, indent int) string {
	var b strings.Builder
	n.toJSON(&b, indent, 0)
	return b.String()
}

// wireString is s as the server decodes it from the request that Go's JSON encoder wrote:
// each byte that is not UTF-8 becomes U+FFFD. ASCII, most of a request's text, is passed 32
// bytes a step before anything is decoded.
func wireString(s string) string {
	s, _ = wireText(s)
	return s
}

// wireText is wireString that also says whether s is ASCII (so holds none of promptMarkers'
// code points).
func wireText(s string) (string, bool) {
	if vecscan.ASCIIPrefix(s) == len(s) {
		return s, true
	}
	return tokenize.InvalidBytesAsRune(s), false
}

// serverCall is a tool call as the template sees it.
type serverCall struct {
	id, name string
	// args is the parsed arguments object; when the recorded text is not JSON (the server
	// refuses such a request) argsOK is false and argsText is the text as recorded.
	args     jsonNode
	argsOK   bool
	argsText string
}

// serverMessage is a message as the template sees it.
type serverMessage struct {
	role       corpora.Role
	content    []contentItem // text and pictures, joined by joinContent
	reasoning  string
	name       string
	toolCallID string
	calls      []serverCall
	loc        corpora.Location
}

// serverTool is a declared tool as the template sees it.
type serverTool struct {
	name, description string
	params            jsonNode
}

// serverRequest is the whole request as the template sees it.
type serverRequest struct {
	msgs  []serverMessage
	tools []serverTool
}

// defaultToolParameters is what the engines send for a tool without a valid schema.
const defaultToolParameters = `{"type":"object","properties":{}}`

// newServerRequest builds the server's view of a request; wire remembers the wire texts of
// long contents (nil: none).
func newServerRequest(msgs []corpora.Message, tools []corpora.ToolDef, wire *wireMemo) serverRequest {
	var r serverRequest
	r.msgs = make([]serverMessage, 0, len(msgs))
	for _, m := range msgs {
		sm := serverMessage{role: m.Role, toolCallID: wireString(m.ToolCallID), loc: m.Loc}
		if m.Role != corpora.RoleAssistant {
			sm.name = wireString(m.Name)
		}
		sm.content = flattenContent(m) // a new slice: its texts are replaced in place
		for i := range sm.content {
			if it := &sm.content[i]; it.image == nil {
				it.text, it.ascii = memoWireText(wire, it.text)
			}
		}
		if m.Role == corpora.RoleAssistant {
			sm.reasoning = wireString(corpora.ReasoningContent(&m))
		}
		for _, c := range toolCalls(m) {
			sc := serverCall{id: wireString(c.ID), name: wireString(c.Name), argsText: c.Arguments}
			args := strings.TrimSpace(c.Arguments)
			if args == "" {
				args = "{}"
			}
			if n, err := parseServerJSON([]byte(args)); err == nil {
				sc.args, sc.argsOK = n, true
			}
			sm.calls = append(sm.calls, sc)
		}
		r.msgs = append(r.msgs, sm)
	}
	for _, t := range tools {
		params := bytes.TrimSpace(t.Parameters)
		if len(params) == 0 || !json.Valid(params) {
			params = []byte(defaultToolParameters)
		}
		p, err := parseServerJSON(params)
		if err != nil {
			p, _ = parseServerJSON([]byte(defaultToolParameters))
		}
		r.tools = append(r.tools, serverTool{name: wireString(t.Name), description: wireString(t.Description), params: p})
	}
	return r
}

// toolNode is a declared tool as the server's tools array holds it.
func (t serverTool) node() jsonNode {
	fn := jsonNode{kind: jsonObject}
	fn.set("name", jsonNode{kind: jsonString, s: t.name})
	fn.set("description", jsonNode{kind: jsonString, s: t.description})
	fn.set("parameters", t.params)
	tool := jsonNode{kind: jsonObject}
	tool.set("type", jsonNode{kind: jsonString, s: "function"})
	tool.set("function", fn)
	return tool
}

// argsJSON is a call's arguments as a template's `arguments | tojson` writes them (the text
// as recorded when it is not JSON).
func (c serverCall) argsJSON(indent int) string {
	if !c.argsOK {
		return c.argsText
	}
	return serverToJSON(c.args, indent)
}

// argsToJSON is a call's arguments as `arguments | tojson` writes them in a template that
// applies tojson to text as well (Llama 3, Mistral): the parsed object on one line, or the
// text as recorded as a JSON string.
func (c serverCall) argsToJSON() string {
	if !c.argsOK {
		return serverToJSON(jsonNode{kind: jsonString, s: c.argsText}, -1)
	}
	return serverToJSON(c.args, -1)
}

// joinContent joins content items as llama-server joins content parts: a text part after
// another text part is preceded by "\n" when the text so far is not empty; no newline
// before or after a picture.
func joinContent(items []contentItem, picture func(i int) string) string {
	if len(items) == 1 && items[0].image == nil {
		return items[0].text // no copy of a long tool text
	}
	var b strings.Builder
	lastPicture := false
	for i, it := range items {
		if it.image != nil {
			b.WriteString(picture(i))
			lastPicture = true
			continue
		}
		if !lastPicture && b.Len() > 0 {
			b.WriteByte('\n')
		}
		lastPicture = false
		b.WriteString(it.text)
	}
	return b.String()
}

// promptMarkers are code points of Unicode plane 15 (private use) that occur in no string of
// the request (nor in the template source), so they cannot collide with content: pictures are
// written into content as picOpen<index>picClose while a template renders, and content strings
// are bracketed by open…close to find them again in the output (see JinjaTemplate.Render).
type promptMarkers struct {
	picOpen, picClose, open, close string
	images                         []*corpora.Image
}

// newPromptMarkers picks four unused code points for the request and extra texts.
func newPromptMarkers(r *serverRequest, extra ...string) *promptMarkers {
	used := map[rune]bool{}
	scan := func(s string) {
		for i := strings.IndexByte(s, 0xF3); i >= 0; {
			if r, _ := utf8.DecodeRuneInString(s[i:]); r >= 0xF0000 {
				used[r] = true
			}
			j := strings.IndexByte(s[i+1:], 0xF3)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	var scanNode func(n jsonNode)
	scanNode = func(n jsonNode) {
		scan(n.s)
		for _, k := range n.keys {
			scan(k)
		}
		for _, it := range n.items {
			scanNode(it)
		}
	}
	for _, m := range r.msgs {
		for _, it := range m.content {
			if !it.ascii {
				scan(it.text)
			}
		}
		scan(m.reasoning)
		scan(m.name)
		scan(m.toolCallID)
		for _, c := range m.calls {
			scan(c.id)
			scan(c.name)
			scan(c.argsText)
			scanNode(c.args)
		}
	}
	for _, t := range r.tools {
		scan(t.name)
		scan(t.description)
		scanNode(t.params)
	}
	for _, s := range extra {
		scan(s)
	}
	var picked []string
	for c := rune(0xF0000); len(picked) < 4; c++ {
		if !used[c] {
			picked = append(picked, string(c))
		}
	}
	return &promptMarkers{picOpen: picked[0], picClose: picked[1], open: picked[2], close: picked[3]}
}

// content joins a message's content as the server does, pictures as picture placeholders.
func (pm *promptMarkers) content(items []contentItem) string {
	return joinContent(items, func(i int) string {
		pm.images = append(pm.images, items[i].image)
		return pm.picOpen + strconv.Itoa(len(pm.images)-1) + pm.picClose
	})
}

// emit writes s, which may hold picture placeholders, as content (or framing) segments and
// image segments with the family's marker text.
func (pm *promptMarkers) emit(w *segmentWriter, s string, content bool, marker string) error {
	write := func(t string) {
		if content {
			w.text(t)
		} else {
			w.special(t)
		}
	}
	for len(pm.images) > 0 { // no picture, no placeholder: s is not searched
		i := strings.Index(s, pm.picOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], pm.picClose)
		if j < 0 {
			return fmt.Errorf("broken picture placeholder in the output")
		}
		n, err := strconv.Atoi(s[i+len(pm.picOpen) : i+j])
		if err != nil || n < 0 || n >= len(pm.images) {
			return fmt.Errorf("bad picture placeholder %q in the output", s[i:i+j+len(pm.picClose)])
		}
		write(s[:i])
		w.image(pm.images[n], marker)
		s = s[i+j+len(pm.picClose):]
	}
	write(s)
	return nil
}

// mark brackets the part of s inside its leading and trailing white space with the content
// markers; s without such a part is returned as it is.
func (pm *promptMarkers) mark(s string) string {
	core := strings.TrimFunc(s, unicode.IsSpace)
	if core == "" {
		return s
	}
	lead := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
	end := lead + len(core)
	return s[:lead] + pm.open + core + pm.close + s[end:]
}

// unmark removes the content markers.
func (pm *promptMarkers) unmark(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, pm.open, ""), pm.close, "")
}

// segment writes a rendering made with marked content: text between an opening marker and
// the next marker, when that is a closing one, is content; the rest is framing.
func (pm *promptMarkers) segment(w *segmentWriter, s string, marker string) error {
	for s != "" {
		i := strings.Index(s, pm.open)
		if i < 0 {
			return pm.emit(w, pm.unmark(s), false, marker)
		}
		if err := pm.emit(w, pm.unmark(s[:i]), false, marker); err != nil {
			return err
		}
		s = s[i+len(pm.open):]
		next := strings.Index(s, pm.open)
		j := strings.Index(s, pm.close)
		if j < 0 || next >= 0 && next < j {
			continue // cut out of its string: framing
		}
		if err := pm.emit(w, s[:j], true, marker); err != nil {
			return err
		}
		s = s[j+len(pm.close):]
	}
	return nil
}
