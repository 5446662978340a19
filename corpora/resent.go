package corpora

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"reflect"
	"unsafe"
)

// A request log records every request of a conversation, and each re-sends the history: the
// next line usually starts with the same bytes as the line before, {"model":…,"messages":[m1,
// …,mk and then new messages. The JSON Lines reader of the request-body formats remembers what
// it parsed of the last line (resentMemo) and, when the next line starts with the same bytes,
// takes every message that lies wholly inside them as parsed then: the same message at the
// same offset under the same JSON pointer, with the same strings, only its line number moved
// (and what it fed the rest of the parse, the tool names of its calls, and its problems,
// given again). Only the rest of the line is copied, checked and parsed: the bytes before the
// message array and those after the last message taken, as one value whose places are moved
// to where they lie in the line (jwGap).
//
// Anything that is not proven the same is parsed in full: a line under resentDefaultFrom or
// over apiOwnLine bytes (not read into the reader's own buffer), a line that held a stand-in
// for something streamed past, a document, an envelope, an array of requests, a changed state
// of the tool names, a broken line (read in full, its problem is the one it always was).

// resentDefaultFrom is the line length from which a line is read that way: a shorter line costs
// less to parse than to remember.
const resentDefaultFrom = 64 << 10

// resentSlack is how many bytes the buffers that the messages taken keep alive may hold beyond
// twice those messages' own bytes (see resentMemo.taken).
const resentSlack = 1 << 20

// resentMemo is what the reader keeps of the last line it parsed.
type resentMemo struct {
	line     []byte // the line as read (the reader's own buffer, compared with the next)
	arrStart int    // the offset in the line of the '[' of the message array
	// names are the tool names known when the message array was reached.
	names map[string]string
	elems []resentElem
}

// resentElem is one element of the message array of a remembered line and what its parse did.
type resentElem struct {
	start, end int // its bytes in the line
	lineNo     int // the line its locations name
	msgs       []Message
	notes      []string
	problems   []*ReadError
	names      [][2]string // tool call ids named, in order
	// buf and bufLen are the buffer its strings may lie in (by address: it keeps nothing
	// alive) and its length.
	buf    uintptr
	bufLen int
}

// taken returns how many of the first k elements may be taken: the most for which the buffers
// they keep alive hold at most twice their bytes plus resentSlack (the rest of such a buffer
// is messages no longer sent: a conversation that edits its history does not keep every line).
func (m *resentMemo) taken(k int) int {
	best, pinned, live := 0, 0, 0
	for j, e := range m.elems[:k] {
		if j == 0 || e.buf != m.elems[j-1].buf {
			pinned += e.bufLen
		}
		live += e.end - e.start
		if pinned <= 2*live+resentSlack {
			best = j + 1
		}
	}
	return best
}

// resentParse is what one parse remembers (elems, for the next line) and, when it reads a
// line that re-sends messages, what it takes from the last (take).
type resentParse struct {
	file    string
	lineNo  int
	pointer string // the JSON pointer of the message array
	buf     []byte // the bytes parsed
	take    []resentElem
	// seen is set once the message array was read; failed when what was taken does not fit;
	// emitted once the request was read without error.
	seen, failed, emitted bool
	arrStart              int
	names                 map[string]string
	elems                 []resentElem
	log                   *[][2]string // where nameCall logs, while an element is parsed
}

// errResentMismatch stops a parse whose taken messages do not fit; the line is parsed in full.
var errResentMismatch = fmt.Errorf("re-sent messages do not fit")

// nameCall records the tool name of a call id.
func (p *apiParse) nameCall(id, name string) {
	p.callNames[id] = name
	if rs := p.resent; rs != nil && rs.log != nil {
		*rs.log = append(*rs.log, [2]string{id, name})
	}
}

// eachMessage calls message for each element of arr, an array of messages (or items). On the
// request's message array of a line read in two parts it first gives again what the messages
// taken from the last line gave, and it remembers what each element gives for the next line.
func (p *apiParse) eachMessage(arr jwNode, message func(jwNode) *ReadError) *ReadError {
	rs := p.resent
	if rs == nil || arr.embedded || arr.loc.Pointer != rs.pointer || rs.seen {
		return asReadError(arr, arr.elements(func(_ int, m jwNode) error {
			if rerr := message(m); rerr != nil {
				return rerr
			}
			return nil
		}))
	}
	rs.seen, rs.arrStart = true, int(arr.loc.Offset)
	if len(rs.take) > 0 || arr.gap != nil {
		if arr.gap == nil || arr.gap.index != len(rs.take) || !maps.Equal(p.callNames, rs.names) {
			rs.failed = true
			return arr.errorf("%w", errResentMismatch)
		}
	}
	rs.names = maps.Clone(p.callNames)
	for _, e := range rs.take {
		mv := lineMove{file: rs.file, from: e.lineNo, to: rs.lineNo}
		p.conv.Messages = mv.appendMessages(p.conv.Messages, e.msgs)
		p.conv.Notes = append(p.conv.Notes, e.notes...)
		for _, pr := range e.problems {
			p.problems = append(p.problems, &ReadError{Loc: mv.loc(pr.Loc), Err: pr.Err})
		}
		for _, n := range e.names {
			p.callNames[n[0]] = n[1]
		}
	}
	rs.elems = append(rs.elems, rs.take...)
	err := arr.elements(func(_ int, m jwNode) error {
		m0, n0, p0 := len(p.conv.Messages), len(p.conv.Notes), len(p.problems)
		var names [][2]string
		rs.log = &names
		rerr := message(m)
		rs.log = nil
		if rerr != nil {
			return rerr
		}
		e := resentElem{start: int(m.loc.Offset), end: int(m.loc.Offset) + len(m.raw), lineNo: rs.lineNo,
			msgs:  lineMove{}.appendMessages(nil, p.conv.Messages[m0:]),
			notes: append([]string(nil), p.conv.Notes[n0:]...), names: names,
			buf: uintptr(unsafe.Pointer(unsafe.SliceData(rs.buf))), bufLen: len(rs.buf)}
		for _, pr := range p.problems[p0:] {
			e.problems = append(e.problems, &ReadError{Loc: pr.Loc, Err: pr.Err})
		}
		rs.elems = append(rs.elems, e)
		return nil
	})
	return asReadError(arr, err)
}

// memo returns what the next line may take from this parse (nil when nothing).
func (rs *resentParse) memo(line []byte) *resentMemo {
	if !rs.seen || rs.failed || len(rs.elems) == 0 {
		return nil
	}
	return &resentMemo{line: line, arrStart: rs.arrStart, names: rs.names, elems: rs.elems}
}

// lineMove copies what a line's parse made for another line: a deep copy (pointers, slices and
// structs copied; strings and byte slices shared) in which every Location of file at line from
// is at line to (the zero lineMove moves nothing).
type lineMove struct {
	file     string
	from, to int
}

// loc returns l moved.
func (mv lineMove) loc(l Location) Location {
	if l.Line == mv.from && l.File == mv.file {
		l.Line = mv.to
	}
	return l
}

// appendMessages appends a copy of each of msgs to dst.
func (mv lineMove) appendMessages(dst, msgs []Message) []Message {
	for _, m := range msgs {
		m.Loc = mv.loc(m.Loc)
		m.Parts = mv.parts(m.Parts)
		dst = append(dst, m)
	}
	return dst
}

// parts returns a copy of ps. The model's types are copied field by field here, the rarer MCP
// result by reflection (TestLineMoveCopiesEveryField holds the two to the same result).
func (mv lineMove) parts(ps []Part) []Part {
	if ps == nil {
		return nil
	}
	out := make([]Part, len(ps))
	for i, p := range ps {
		p.Loc = mv.loc(p.Loc)
		if p.Image != nil {
			img := *p.Image
			img.Large = mv.large(img.Large)
			p.Image = &img
		}
		if p.ToolCall != nil {
			call := *p.ToolCall
			p.ToolCall = &call
		}
		if p.Ref != nil {
			ref := *p.Ref
			p.Ref = &ref
		}
		if p.ToolResult != nil {
			res := *p.ToolResult
			res.Parts = mv.parts(res.Parts)
			if res.MCP != nil {
				res.MCP = mv.reflected(reflect.ValueOf(res.MCP)).Interface().(*CallToolResult)
			}
			if res.RPCError != nil {
				e := *res.RPCError
				res.RPCError = &e
			}
			p.ToolResult = &res
		}
		out[i] = p
	}
	return out
}

// large returns a copy of l.
func (mv lineMove) large(l *LargeBase64) *LargeBase64 {
	if l == nil {
		return nil
	}
	c := *l
	if c.Count != nil {
		n := *c.Count
		c.Count = &n
	}
	return &c
}

// reflected returns a copy of v, any value of the model.
func (mv lineMove) reflected(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(mv.reflected(v.Elem()))
		return c
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 || v.Type().Elem().Kind() == reflect.String {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(mv.reflected(v.Index(i)))
		}
		return c
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[Location]() {
			return reflect.ValueOf(mv.loc(v.Interface().(Location)))
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := range v.NumField() {
			switch v.Field(i).Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Struct:
				c.Field(i).Set(mv.reflected(v.Field(i)))
			}
		}
		return c
	}
	return v
}

// compareWithLast extends rd.same over chunk, the bytes of the line being read from offset at,
// while they are those of the remembered line up to its last message.
func (rd *requestLogReader) compareWithLast(at int, chunk []byte) {
	m := rd.memo
	if m == nil || rd.same != at {
		return
	}
	last := m.line[:m.elems[len(m.elems)-1].end]
	if at >= len(last) {
		return
	}
	n := min(len(chunk), len(last)-at)
	rd.same = at + commonPrefix(last[at:at+n], chunk[:n])
}

// commonPrefix returns how many first bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	const block = 256
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// readResent reads a line (as borrowed from the reader: line, its value t at offset lead) that
// re-sends messages of the last line, taking them and parsing only the rest. It returns false,
// having emitted nothing, when the line is to be read in full.
func (rd *requestLogReader) readResent(ctx context.Context, line, t []byte, lead, lineNo int) (bool, error) {
	m := rd.memo
	if m == nil || ctx.Err() != nil {
		return false, nil
	}
	end := lead + len(t)
	k := 0
	for k < len(m.elems) && m.elems[k].end <= rd.same && m.elems[k].end <= end {
		k++
	}
	if k = m.taken(k); k == 0 {
		return false, nil
	}
	// what follows the last message taken: more messages, or the end of the array
	i := jwSkipSpace(line[:end], m.elems[k-1].end)
	if i >= end {
		return false, nil
	}
	switch line[i] {
	case ',':
		if i = jwSkipSpace(line[:end], i+1); i >= end || line[i] == ']' {
			return false, nil // a trailing comma: read in full, for its error
		}
	case ']':
	default:
		return false, nil
	}
	// the bytes before the array's elements, then the rest of the line
	h := m.arrStart - lead + 1
	buf := append(t[:h:h], line[i:end]...) // a new buffer, written once (make would zero it first)
	root := jwNode{raw: buf, loc: Location{File: rd.name, Line: lineNo, Offset: int64(lead)},
		gap: &jwGap{capAt: cap(buf[h:]), shift: int64(i - lead - h), index: k}}
	if jwCheck(root) != nil {
		return false, nil // read in full, for its error
	}
	rs := &resentParse{file: rd.name, lineNo: lineNo, pointer: "/" + rd.format.messages, buf: buf, take: m.elems[:k], names: m.names}
	id := fmt.Sprintf("%s#%d", rd.base, rd.next)
	size := func([]byte) int64 { return int64(len(t)) }
	conv, problems, rerr := apiParseRequest(rd.format, root, id, size, rs)
	if rerr != nil || !rs.seen || rs.failed {
		return false, nil // read in full: its error, or what did not fit
	}
	rd.next++
	rd.resentTaken += k
	rd.remember(rs.memo(line), line)
	for _, p := range problems {
		rd.e.Problem(p)
	}
	if err := rd.e.Conversation(conv); err != nil {
		return true, fmt.Errorf("read %s: %w", rd.name, err)
	}
	return true, nil
}

// handleBorrowed reads a line of JSON Lines that lies in the reader's own buffer (line, its
// value t at offset lead): taking what it re-sends of the last line, or in full from a copy,
// remembering it for the next.
func (rd *requestLogReader) handleBorrowed(ctx context.Context, line, t []byte, lead, lineNo int) error {
	if len(t) == 0 {
		rd.giveBack(line)
		return nil
	}
	if t[0] != '{' {
		rd.setMemo(nil)
		rd.giveBack(line)
		return rd.handleRecord(ctx, jwNode{raw: bytes.Clone(t), loc: Location{File: rd.name, Line: lineNo, Offset: int64(lead)}})
	}
	if done, err := rd.readResent(ctx, line, t, lead, lineNo); done {
		return err
	}
	own := bytes.Clone(t)
	rs := &resentParse{file: rd.name, lineNo: lineNo, pointer: "/" + rd.format.messages, buf: own}
	rd.recording = rs
	err := rd.handleRecord(ctx, jwNode{raw: own, loc: Location{File: rd.name, Line: lineNo, Offset: int64(lead)}})
	rd.recording = nil
	var next *resentMemo // nil when nothing is to be remembered (an envelope, no messages)
	if rs.emitted {
		next = rs.memo(line)
	}
	rd.remember(next, line)
	return err
}

// remember makes m, what was parsed of line (nil: nothing to remember), what the reader
// remembers of the last line; a line not remembered gives its buffer back to the reader.
func (rd *requestLogReader) remember(m *resentMemo, line []byte) {
	rd.setMemo(m)
	if m == nil {
		rd.giveBack(line)
	}
}

// setMemo replaces what the reader remembers of the last line; the line it held becomes the
// reader's buffer again.
func (rd *requestLogReader) setMemo(m *resentMemo) {
	old := rd.memo
	rd.memo = m
	if old != nil && (m == nil || unsafe.SliceData(m.line) != unsafe.SliceData(old.line)) {
		rd.giveBack(old.line)
	}
}

// giveBack makes b, a line buffer of the reader's, its buffer for the next line, or the one
// after (the larger first: lines re-sent grow).
func (rd *requestLogReader) giveBack(b []byte) {
	if cap(b) > apiOwnLine {
		return
	}
	if cap(b) > cap(rd.lineScratch) {
		b, rd.lineScratch = rd.lineScratch, b[:0]
	}
	if cap(b) > cap(rd.spareLine) {
		rd.spareLine = b[:0]
	}
}

// borrowScratch hands over the reader's line buffer (b, which holds the line read) and makes
// its spare one the next.
func (rd *requestLogReader) borrowScratch() {
	rd.lineScratch, rd.spareLine, rd.borrowed = rd.spareLine, nil, true
}
