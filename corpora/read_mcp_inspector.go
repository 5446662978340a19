package corpora

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// sniffMCPInspector: an MCP Inspector export is a JSON array of entries with a direction or a
// request body, carrying JSON-RPC (or mcp- headers).
func sniffMCPInspector(f fileHead) bool {
	return f.startsWith("[") && (f.has(`"direction"`) || f.has(`"requestBody"`)) &&
		(f.has(`"jsonrpc"`) || f.has(`"mcp-`) || f.has(`\"jsonrpc\"`))
}

// readMCPInspector reads an MCP Inspector v2 export: the Protocol/History export (a JSON array
// of MessageEntry {id, timestamp, direction, origin?, message, response?, duration?}, responses
// folded into their request) or the Network export (a JSON array of HTTP exchanges whose
// requestBody and responseBody are strings: a frame, a batch, or a text/event-stream body with
// one frame per `data:` event). The frames go through the same pairing as readMCPJSONL; one
// conversation per file, none when it holds no answered tools/call.
//
// Locations: Line is the line of the entry, Pointer starts at the entry (/3/response/result/…);
// for frames inside a body string the pointer continues into the string's JSON
// (/2/requestBody/params), and all events of one SSE body share /2/responseBody.
func readMCPInspector(ctx context.Context, name string, r io.Reader, e Emitter) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return &ReadError{Loc: Location{File: name}, Err: fmt.Errorf("read: %w", err)}
	}
	sess := newMCPSession(name, name, FormatMCPInspector)
	sess.bytes = int64(len(data))
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return inspectorSyntaxProblem(name, data, dec, err, e)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		e.Problem(&ReadError{Loc: Location{File: name, Line: 1}, Err: errors.New("not an MCP Inspector export: the file is not a JSON array")})
		return nil
	}
	line, counted := 1, 0
	for i := 0; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			return &ReadError{Loc: Location{File: name}, Err: err}
		}
		start := int(dec.InputOffset())
		for start < len(data) && strings.IndexByte(" \t\r\n,", data[start]) >= 0 {
			start++
		}
		line += bytes.Count(data[counted:start], []byte("\n"))
		counted = start
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return inspectorSyntaxProblem(name, data, dec, err, e)
		}
		inspectorEntry(sess, raw, Location{File: name, Line: line, Pointer: fmt.Sprintf("/%d", i)}, e)
	}
	if _, err := dec.Token(); err != nil {
		return inspectorSyntaxProblem(name, data, dec, err, e)
	}
	if conv := sess.conversation(); conv != nil {
		if err := e.Conversation(conv); err != nil {
			return err
		}
	}
	return nil
}

// inspectorSyntaxProblem reports invalid JSON with its line; the file cannot be read further.
func inspectorSyntaxProblem(name string, data []byte, dec *json.Decoder, err error, e Emitter) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	off = max(0, min(off, int64(len(data))))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	e.Problem(&ReadError{Loc: Location{File: name, Line: line}, Err: fmt.Errorf("invalid JSON (byte %d): %w", off, err)})
	return nil
}

// inspectorEntry handles one element of an Inspector export.
func inspectorEntry(sess *mcpSession, raw []byte, loc Location, e Emitter) {
	members, err := jsObjectMembers(raw)
	if err != nil {
		e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("export entry: %w", err)})
		return
	}
	get := func(key string) []byte {
		for _, m := range members {
			if m.Key == key {
				return m.Value
			}
		}
		return nil
	}
	str := func(key string) string {
		var s string
		if v := get(key); v != nil {
			_ = json.Unmarshal(v, &s)
		}
		return s
	}
	if msg := get("message"); msg != nil {
		direction := str("direction")
		dir := mcpDirFromWord(str("origin"))
		if direction == "response" {
			dir = mcpDirUnknown // which side answered is inferred from the pending requests
		}
		mcpAddValue(sess, msg, loc.Child("message"), dir, false, false, e)
		if resp := get("response"); resp != nil && string(resp) != "null" {
			mcpAddValue(sess, resp, loc.Child("response"), dir.opposite(), false, false, e)
		}
		return
	}
	reqBody, respBody := get("requestBody"), get("responseBody")
	if reqBody == nil && respBody == nil {
		e.Problem(&ReadError{Loc: loc, Err: errors.New("export entry has neither message nor requestBody/responseBody")})
		return
	}
	if reqBody != nil {
		inspectorBody(sess, reqBody, loc.Child("requestBody"), mcpDirFromClient, e)
	}
	if respBody != nil {
		inspectorBody(sess, respBody, loc.Child("responseBody"), mcpDirFromServer, e)
	}
}

// inspectorBody handles an HTTP body recorded as a JSON string (or, leniently, as JSON).
func inspectorBody(sess *mcpSession, raw []byte, loc Location, dir mcpDir, e Emitter) {
	if string(raw) == "null" {
		return
	}
	body := raw
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("body: %w", err)})
			return
		}
		body = []byte(s)
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return
	}
	if body[0] == '{' || body[0] == '[' {
		if !json.Valid(body) {
			e.Problem(&ReadError{Loc: loc, Err: errors.New("body is not valid JSON")})
			return
		}
		mcpAddValue(sess, body, loc, dir, false, false, e)
		return
	}
	// text/event-stream: events separated by blank lines, data lines joined by "\n".
	var event [][]byte
	flush := func() {
		if len(event) == 0 {
			return
		}
		payload := bytes.TrimSpace(bytes.Join(event, []byte("\n")))
		event = event[:0]
		if len(payload) == 0 {
			return
		}
		if !json.Valid(payload) {
			sess.skip("SSE events that are not JSON")
			return
		}
		mcpAddValue(sess, payload, loc, dir, false, false, e)
	}
	sawData := false
	for _, l := range bytes.Split(body, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		switch {
		case len(l) == 0:
			flush()
		case bytes.HasPrefix(l, []byte("data:")):
			sawData = true
			d := l[len("data:"):]
			d = bytes.TrimPrefix(d, []byte(" "))
			event = append(event, d)
		}
	}
	flush()
	if !sawData {
		sess.skip("HTTP bodies that are neither JSON nor an event stream")
	}
}
