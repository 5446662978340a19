package corpora

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// mcpDir is the direction of an MCP frame.
type mcpDir int8

const (
	mcpDirUnknown    mcpDir = iota
	mcpDirFromClient        // client to server (stdin of a stdio server)
	mcpDirFromServer        // server to client (stdout of a stdio server)
)

func (d mcpDir) opposite() mcpDir {
	switch d {
	case mcpDirFromClient:
		return mcpDirFromServer
	case mcpDirFromServer:
		return mcpDirFromClient
	}
	return mcpDirUnknown
}

// mcpFrame is one JSON-RPC message met in a transcript, with where it was and who sent it.
type mcpFrame struct {
	raw []byte   // the frame (a JSON object); kept by results, so it must not be reused
	loc Location // location of the frame itself
	dir mcpDir
	// exact says loc.Offset is the offset of raw's first byte in its line (raw holds the
	// line's bytes as recorded), so values inside get line:column locations.
	exact bool
}

// mcpKey names a request: the direction it travelled and its id.
type mcpKey struct {
	dir mcpDir
	id  string
}

type mcpPending struct {
	method string
	call   *mcpCall
	seq    int
	dir    mcpDir
}

// mcpCall is one tools/call request and, once answered, its result.
type mcpCall struct {
	id      string
	name    string
	args    string
	reqLoc  Location
	answer  *ToolResult
	respLoc Location
}

// mcpSession pairs the frames of one conversation (a file, or one server of a Claude log)
// and assembles the conversation: each answered tools/call becomes an assistant message with
// the call and a tool message with its result.
type mcpSession struct {
	file   string
	id     string
	format Format
	title  string
	bytes  int64

	seq       int
	calls     []*mcpCall
	pending   map[mcpKey]*mcpPending
	tools     []ToolDef
	skipped   map[string]int // what was skipped, by kind, for Notes
	notes     []string
	noteLimit int
}

func newMCPSession(file, id string, format Format) *mcpSession {
	return &mcpSession{file: file, id: id, format: format, pending: map[mcpKey]*mcpPending{},
		skipped: map[string]int{}, noteLimit: 50}
}

// note records a reader remark for the conversation (the first noteLimit of them, then a count).
func (s *mcpSession) note(format string, args ...any) {
	if len(s.notes) < s.noteLimit {
		s.notes = append(s.notes, fmt.Sprintf(format, args...))
		return
	}
	s.skipped["further notes"]++
}

// skip counts a skipped thing of a kind (reported in Notes as a count).
func (s *mcpSession) skip(kind string) { s.skipped[kind]++ }

// serverToClientMethods are the requests a server sends to its client.
var serverToClientMethods = map[string]bool{
	"sampling/createMessage": true, "elicitation/create": true, "roots/list": true,
}

// mcpIDKey renders a JSON-RPC id so that equal ids compare equal (1 and 1.0 alike).
func mcpIDKey(raw []byte) (key, display string, err error) {
	if len(raw) == 0 {
		return "", "", errors.New("no id")
	}
	switch raw[0] {
	case '"':
		s, err := jsDecodeString(raw)
		if err != nil {
			return "", "", err
		}
		return "s:" + s, s, nil
	case 'n':
		return "null", "null", nil
	default:
		if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
			n := string(jsAppendNumber(nil, raw))
			return "n:" + n, n, nil
		}
	}
	return "", "", fmt.Errorf("id %.40s is neither a string nor a number", raw)
}

// add takes one frame; problems are sent to e.
func (s *mcpSession) add(f mcpFrame, e Emitter) {
	members, err := jsObjectMembers(f.raw)
	if err != nil {
		e.Problem(&ReadError{Loc: f.loc, Err: fmt.Errorf("JSON-RPC frame: %w", err)})
		return
	}
	var method string
	var id, result, rpcErr, params []byte
	hasMethod := false
	for _, m := range members {
		switch m.Key {
		case "method":
			if err := json.Unmarshal(m.Value, &method); err != nil {
				e.Problem(&ReadError{Loc: f.loc.Child("method"), Err: errors.New("method is not a string")})
				return
			}
			hasMethod = true
		case "id":
			id = m.Value
		case "result":
			result = m.Value
		case "error":
			rpcErr = m.Value
		case "params":
			params = m.Value
		}
	}
	s.seq++
	switch {
	case hasMethod && id != nil:
		s.addRequest(f, method, id, params, e)
	case hasMethod:
		s.skip(method + " notification")
	case id != nil && (result != nil || rpcErr != nil):
		s.addResponse(f, id, result, rpcErr, e)
	default:
		e.Problem(&ReadError{Loc: f.loc, Err: errors.New("not a JSON-RPC request, notification or response")})
	}
}

func (s *mcpSession) addRequest(f mcpFrame, method string, id, params []byte, e Emitter) {
	key, display, err := mcpIDKey(id)
	if err != nil {
		e.Problem(&ReadError{Loc: f.loc.Child("id"), Err: err})
		return
	}
	dir := f.dir
	if dir == mcpDirUnknown {
		dir = mcpDirFromClient
		if serverToClientMethods[method] {
			dir = mcpDirFromServer
		}
	}
	p := &mcpPending{method: method, seq: s.seq, dir: dir}
	if method == "tools/call" {
		call := &mcpCall{id: display, reqLoc: f.loc, args: "{}"}
		if params == nil {
			e.Problem(&ReadError{Loc: f.loc, Err: errors.New("tools/call without params")})
			return
		}
		pm, err := jsObjectMembers(params)
		if err != nil {
			e.Problem(&ReadError{Loc: f.loc.Child("params"), Err: fmt.Errorf("tools/call params: %w", err)})
			return
		}
		for _, m := range pm {
			switch m.Key {
			case "name":
				if err := json.Unmarshal(m.Value, &call.name); err != nil {
					e.Problem(&ReadError{Loc: f.loc.Child("params").Child("name"), Err: errors.New("tool name is not a string")})
					return
				}
			case "arguments":
				if string(m.Value) == "null" {
					continue
				}
				out, err := jsAppendStringified(nil, m.Value)
				if err != nil {
					e.Problem(&ReadError{Loc: f.loc.Child("params").Child("arguments"), Err: err})
					return
				}
				call.args = string(out)
			}
		}
		p.call = call
		s.calls = append(s.calls, call)
	}
	k := mcpKey{dir: dir, id: key}
	if old, ok := s.pending[k]; ok && old.call != nil {
		s.note("%s: request id %s reused before call %s (%s) was answered", f.loc, display, old.call.id, old.call.name)
	}
	s.pending[k] = p
}

func (s *mcpSession) addResponse(f mcpFrame, id, result, rpcErr []byte, e Emitter) {
	key, display, err := mcpIDKey(id)
	if err != nil {
		e.Problem(&ReadError{Loc: f.loc.Child("id"), Err: err})
		return
	}
	var p *mcpPending
	var pk mcpKey
	if f.dir != mcpDirUnknown {
		pk = mcpKey{dir: f.dir.opposite(), id: key}
		p = s.pending[pk]
	} else {
		// Direction unknown: the request with this id still waiting; when both sides have
		// one waiting, the later (nested) one is answered first.
		for _, d := range []mcpDir{mcpDirFromClient, mcpDirFromServer} {
			k := mcpKey{dir: d, id: key}
			if q, ok := s.pending[k]; ok && (p == nil || q.seq > p.seq) {
				p, pk = q, k
			}
		}
	}
	if p == nil {
		s.skip("response without a matching request")
		s.note("%s: response to id %s matches no pending request; skipped", f.loc, display)
		return
	}
	delete(s.pending, pk)
	switch p.method {
	case "tools/call":
		p.call.answer = s.toolResult(f, p.call, result, rpcErr, e)
		p.call.respLoc = f.loc
	case "tools/list":
		if result != nil {
			s.readToolList(f, result, e)
		}
	case "initialize", "server/discover":
		if result != nil && s.title == "" {
			s.title = mcpServerTitle(result)
		}
	}
}

// toolResult turns the answer of a tools/call into a ToolResult.
func (s *mcpSession) toolResult(f mcpFrame, call *mcpCall, result, rpcErr []byte, e Emitter) *ToolResult {
	tr := &ToolResult{CallID: call.id, Name: call.name}
	if rpcErr != nil && string(rpcErr) != "null" {
		var re RPCError
		if err := json.Unmarshal(rpcErr, &re); err != nil {
			e.Problem(&ReadError{Loc: f.loc.Child("error"), Err: fmt.Errorf("JSON-RPC error object: %w", err)})
			re.Message = string(rpcErr)
		}
		tr.RPCError = &re
		tr.Text = re.Message
		tr.IsText = true
		tr.IsError = true
		return tr
	}
	loc := f.loc.Child("result")
	if f.exact {
		loc.Offset += int64(jwSubsliceStart(f.raw, result))
	}
	res, err := parseCallToolResult(result, loc, f.exact)
	if err == nil {
		tr.MCP = res
		tr.IsError = res.IsError
		tr.Text = StringifyAISDK(res, AISDKEraContent)
		return tr
	}
	var re *ReadError
	if errors.Is(err, errNoContentArray) {
		s.note("%s: result of call %s (%s) has no content array; kept as JSON text", loc, call.id, call.name)
	} else if errors.As(err, &re) {
		e.Problem(re)
	} else {
		e.Problem(&ReadError{Loc: loc, Err: err})
	}
	out, jerr := jsAppendStringified(nil, result)
	if jerr != nil {
		out = result
	}
	tr.Text = string(out)
	return tr
}

// readToolList takes the tools of a tools/list result (the latest list wins).
func (s *mcpSession) readToolList(f mcpFrame, result []byte, e Emitter) {
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			Title       string          `json:"title"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		e.Problem(&ReadError{Loc: f.loc.Child("result"), Err: fmt.Errorf("tools/list result: %w", err)})
		return
	}
	tools := make([]ToolDef, 0, len(list.Tools))
	for _, t := range list.Tools {
		tools = append(tools, ToolDef{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	s.tools = tools
}

// mcpServerTitle names the server from an initialize or server/discover result.
func mcpServerTitle(result []byte) string {
	var r struct {
		ServerInfo struct {
			Name    string `json:"name"`
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	name := r.ServerInfo.Title
	if name == "" {
		name = r.ServerInfo.Name
	}
	if name != "" && r.ServerInfo.Version != "" {
		name += " " + r.ServerInfo.Version
	}
	return name
}

// conversation assembles what was read; nil when the transcript holds no answered tool call.
func (s *mcpSession) conversation() *Conversation {
	var msgs []Message
	unanswered := 0
	for _, c := range s.calls {
		if c.answer == nil {
			unanswered++
			s.note("%s: tools/call %s (%s) has no response; left out", c.reqLoc, c.id, c.name)
			continue
		}
		call := Message{Role: RoleAssistant, Loc: c.reqLoc, Parts: []Part{{
			Kind:     PartToolCall,
			ToolCall: &ToolCall{ID: c.id, Name: c.name, Arguments: c.args},
			Loc:      c.reqLoc.Child("params"),
		}}}
		partLoc := c.respLoc.Child("result")
		if c.answer.RPCError != nil {
			partLoc = c.respLoc.Child("error")
		}
		res := Message{Role: RoleTool, Name: c.name, ToolCallID: c.id, Loc: c.respLoc, Parts: []Part{{
			Kind: PartToolResult, ToolResult: c.answer, Loc: partLoc,
		}}}
		msgs = append(msgs, call, res)
	}
	if len(msgs) == 0 {
		return nil
	}
	conv := &Conversation{ID: s.id, Format: s.format, Source: Location{File: s.file}, Title: s.title,
		Messages: msgs, Tools: s.tools, Bytes: s.bytes}
	conv.Notes = append(conv.Notes, s.notes...)
	if len(s.skipped) > 0 {
		kinds := make([]string, 0, len(s.skipped))
		for k := range s.skipped {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var parts []string
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%d %s", s.skipped[k], k))
		}
		conv.Notes = append(conv.Notes, "skipped: "+strings.Join(parts, ", "))
	}
	return conv
}
