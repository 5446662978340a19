package corpora

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// mcpMaxLine bounds one line of a transcript or log; a longer line is reported and skipped.
// Lines of hundreds of MB (a screenshot in one frame) are read whole.
const mcpMaxLine = 1 << 30

// mcpLineReader reads lines of any length with bufio.Reader.ReadSlice, holding only the
// current line in memory.
type mcpLineReader struct {
	r      *bufio.Reader
	buf    []byte
	line   int
	offset int64 // file offset of the next line
}

func newMCPLineReader(r io.Reader) *mcpLineReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &mcpLineReader{r: br}
}

// next returns the next line without its line ending (valid until the next call), its
// 1-based number and its byte offset in the file. tooLong says the line passed mcpMaxLine
// and was skipped (line then holds nothing). err is io.EOF at the end.
func (lr *mcpLineReader) next() (line []byte, num int, offset int64, tooLong bool, err error) {
	if cap(lr.buf) > spillActivate {
		lr.buf = nil // do not keep a long line's buffer for the lines after it
	}
	lr.buf = lr.buf[:0]
	start := lr.offset
	total := 0
	var spiller *lineSpiller // set once the line is long enough to hold a large payload
	for {
		chunk, rerr := lr.r.ReadSlice('\n')
		total += len(chunk)
		if !tooLong {
			switch {
			case total > mcpMaxLine:
				tooLong = true
				lr.buf, spiller = nil, nil
			case rerr == nil && len(lr.buf) == 0:
				// The whole line sits in the reader's buffer: no copy needed.
				line = chunk
			case spiller != nil:
				lr.buf = spiller.feed(lr.buf, chunk)
			default:
				lr.buf = append(lr.buf, chunk...)
				if len(lr.buf) > spillActivate {
					// From here on the line is followed as JSON, and large payloads streamed past.
					spiller = &lineSpiller{}
					read := lr.buf
					lr.buf = spiller.feed(make([]byte, 0, 2*len(read)), read)
				}
			}
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		if rerr != nil && rerr != io.EOF {
			return nil, 0, start, false, rerr
		}
		if total == 0 && rerr == io.EOF {
			return nil, 0, start, false, io.EOF
		}
		break
	}
	lr.offset += int64(total)
	lr.line++
	if line == nil {
		line = lr.buf
	}
	if tooLong {
		line = nil
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, lr.line, start, tooLong, nil
}

// each calls fn with every line of the file name (without its line ending, valid until fn
// returns) and its location. A line longer than mcpMaxLine is reported to e and skipped. It
// stops at the end of the file, on a read error or when ctx is done.
func (lr *mcpLineReader) each(ctx context.Context, name string, e Emitter, fn func(line []byte, loc Location, offset int64)) error {
	for {
		if err := ctx.Err(); err != nil {
			return &ReadError{Loc: Location{File: name, Line: lr.line}, Err: err}
		}
		line, num, off, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &ReadError{Loc: Location{File: name, Line: lr.line + 1}, Err: fmt.Errorf("read: %w", err)}
		}
		if tooLong {
			e.Problem(&ReadError{Loc: Location{File: name, Offset: off}, Err: fmt.Errorf("line %d is longer than %d bytes; skipped", num, mcpMaxLine)})
			continue
		}
		fn(line, Location{File: name, Line: num}, off)
	}
}

// mcpEnvelopeKeys are the members under which recorders wrap a frame, in the order tried.
var mcpEnvelopeKeys = []string{"message", "msg", "data", "payload", "frame"}

// mcpDirFromWord reads a recorder's direction word.
func mcpDirFromWord(w string) mcpDir {
	switch strings.ToLower(strings.TrimSpace(w)) {
	case "c2s", "client", "client->server", "client_to_server", "client-to-server", "to_server",
		"to-server", "toserver", "stdin", "send", "sent", "outgoing", "out":
		return mcpDirFromClient
	case "s2c", "server", "server->client", "server_to_client", "server-to-client", "to_client",
		"to-client", "toclient", "stdout", "recv", "received", "incoming", "in":
		return mcpDirFromServer
	}
	return mcpDirUnknown
}

// sniffMCPJSONL: an MCP stdio transcript starts with a STDIN:/STDOUT:/STDERR: prefix or holds
// JSON-RPC frames (after the Inspector's sniff, whose exports hold JSON-RPC too).
func sniffMCPJSONL(f fileHead) bool {
	return f.startsWith("STDIN: ") || f.startsWith("STDOUT: ") || f.startsWith("STDERR: ") || f.has(`"jsonrpc"`)
}

// readMCPJSONL reads an MCP stdio transcript: one JSON-RPC frame (or 2025-03-26 batch array)
// per line, optionally prefixed `STDIN: `/`STDOUT: `/`STDERR: ` (goose replays) or wrapped
// in one envelope object ({ts, dir|direction|origin, msg|message|data|payload|frame}). It
// emits one conversation per file, or none when the file holds no answered tools/call.
func readMCPJSONL(ctx context.Context, name string, r io.Reader, e Emitter) error {
	sess := newMCPSession(name, name, FormatMCPJSONL)
	lr := newMCPLineReader(r)
	err := lr.each(ctx, name, e, func(line []byte, loc Location, _ int64) {
		mcpJSONLLine(sess, line, loc, e)
	})
	if err != nil {
		return err
	}
	sess.bytes = lr.offset
	if conv := sess.conversation(); conv != nil {
		if err := e.Conversation(conv); err != nil {
			return err
		}
	}
	return nil
}

// mcpJSONLLine handles one line of a JSON Lines transcript.
func mcpJSONLLine(sess *mcpSession, line []byte, loc Location, e Emitter) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	dir := mcpDirUnknown
	body := line
	prefixLen := 0
	for _, p := range []struct {
		word string
		dir  mcpDir
	}{{"STDIN:", mcpDirFromClient}, {"STDOUT:", mcpDirFromServer}, {"STDERR:", mcpDirUnknown}} {
		if bytes.HasPrefix(line, []byte(p.word)) {
			if p.word == "STDERR:" {
				sess.skip("stderr lines")
				return
			}
			dir = p.dir
			body = line[len(p.word):]
			prefixLen = len(p.word)
			break
		}
	}
	trimmed := bytes.TrimLeft(body, " \t\ufeff")
	prefixLen += len(body) - len(trimmed)
	body = bytes.TrimRight(trimmed, " \t")
	if prefixLen > 0 {
		loc.Offset = int64(prefixLen)
	}
	if len(body) == 0 || (body[0] != '{' && body[0] != '[') {
		if dir != mcpDirUnknown {
			sess.skip("non-JSON stdio lines")
			return
		}
		e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("not a JSON-RPC frame: %.60q", body)})
		return
	}
	if !utf8.Valid(body) {
		loc.Offset = int64(prefixLen + jwFirstInvalidUTF8(body))
		e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("invalid UTF-8 at byte %d of the line; the frame is skipped", loc.Offset)})
		return
	}
	var raw json.RawMessage
	if jwValid(body) {
		if len(line) > spillActivate {
			raw = body // a long line's buffer is never reused (mcpLineReader.next): no copy
		} else {
			raw = append(json.RawMessage(nil), body...) // a copy: frames outlive the line buffer
		}
	}
	if raw == nil {
		err := json.Unmarshal(body, &raw)
		if err == nil {
			err = errJWMalformed
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			loc.Offset = int64(prefixLen) + se.Offset
			e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("invalid JSON at byte %d of the line: %w", loc.Offset, err)})
		} else {
			e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("invalid JSON: %w", err)})
		}
		return
	}
	mcpAddValue(sess, raw, loc, dir, true, true, e)
}

// childAt is the location of the member or element child (a sub-slice of parent) of the value
// at loc: with its offset in the line when exact, else with none.
func childAt(loc Location, parent, child []byte, token any, exact bool) Location {
	c := loc.Child(token)
	c.Offset = 0
	if exact {
		c.Offset = loc.Offset + int64(jwSubsliceStart(parent, child))
	}
	return c
}

// mcpAddValue adds a frame, a batch array of frames, or (when envelopes is set) an
// envelope object holding one of them. exact says loc.Offset is the offset of raw's first byte
// in its line (see mcpFrame.exact).
func mcpAddValue(sess *mcpSession, raw []byte, loc Location, dir mcpDir, envelopes, exact bool, e Emitter) {
	if len(raw) == 0 {
		return
	}
	if raw[0] == '[' {
		elems, err := jsArrayElements(raw)
		if err != nil {
			e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("JSON-RPC batch: %w", err)})
			return
		}
		for i, el := range elems {
			mcpAddValue(sess, el, childAt(loc, raw, el, i, exact), dir, false, exact, e)
		}
		return
	}
	members, err := jsObjectMembers(raw)
	if err != nil {
		e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("JSON-RPC frame: %w", err)})
		return
	}
	isFrame := false
	for _, m := range members {
		switch m.Key {
		case "jsonrpc", "method", "result", "error":
			isFrame = true
		}
	}
	if isFrame || !envelopes {
		sess.add(mcpFrame{raw: raw, loc: loc, dir: dir, exact: exact}, e)
		return
	}
	// One level of envelope.
	envDir := dir
	for _, m := range members {
		switch m.Key {
		case "dir", "direction", "origin", "from", "source":
			var w string
			if json.Unmarshal(m.Value, &w) == nil {
				if d := mcpDirFromWord(w); d != mcpDirUnknown {
					envDir = d
				}
			}
		}
	}
	var malformed *ReadError // a frame recorded as a string that is not JSON
	for _, key := range mcpEnvelopeKeys {
		for _, m := range members {
			if m.Key != key || len(m.Value) == 0 {
				continue
			}
			inner, innerExact := m.Value, exact
			if inner[0] == '"' { // a frame recorded as a JSON string
				innerExact = false
				var s string
				if json.Unmarshal(inner, &s) != nil {
					continue
				}
				inner = []byte(strings.TrimSpace(s))
				if !json.Valid(inner) {
					if malformed == nil && (strings.Contains(s, `"jsonrpc"`) || strings.Contains(s, `"method"`)) {
						malformed = &ReadError{Loc: childAt(loc, raw, m.Value, key, false),
							Err: fmt.Errorf("malformed frame (recorded as a string, not JSON): %.60q", s)}
					}
					continue
				}
			}
			if inner[0] == '{' || inner[0] == '[' {
				if bytes.Contains(inner, []byte(`"jsonrpc"`)) || bytes.Contains(inner, []byte(`"method"`)) {
					mcpAddValue(sess, inner, childAt(loc, raw, m.Value, key, innerExact), envDir, false, innerExact, e)
					return
				}
			}
		}
	}
	if malformed != nil {
		e.Problem(malformed)
		return
	}
	e.Problem(&ReadError{Loc: loc, Err: errors.New("JSON object is neither a JSON-RPC frame nor an envelope holding one")})
}
