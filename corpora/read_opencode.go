package corpora

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// sniffOpencode: an OpenCode session export (`opencode export <sessionID>`) is one JSON object
// of the session's info (its id ses_…, projectID) and its messages, each with its parts.
func sniffOpencode(f fileHead) bool {
	return f.startsWith("{") && f.has(`"info"`) && f.has(`"projectID"`) && f.has(`"ses_`)
}

// opencodeMissing is the note every OpenCode request carries: what the export does not record.
const opencodeMissing = "OpenCode does not record the system prompt and tool schemas it sends with each request: " +
	"they are not counted; OpenCode 1.18.33 sent 12 KB of system prompt and 21 KB of tool schemas (11 tools) with every request, " +
	"about 2,500 and 4,700 tokens (o200k_base)"

// opencodeMediaPrompt is the text of the user message OpenCode sends after tool results to carry
// their pictures, which a Chat Completions tool message cannot hold.
const opencodeMediaPrompt = "Attached media from tool result:"

// opencodeTokens is the usage OpenCode records for an answer; its input leaves out the cached
// tokens (read and written), counted apart.
type opencodeTokens struct {
	Input  int `json:"input"`
	Output int `json:"output"`
	Cache  struct {
		Read  int `json:"read"`
		Write int `json:"write"`
	} `json:"cache"`
}

// opencodePart is what the reader takes from one part of a message.
type opencodePart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Ignored bool   `json:"ignored"`
	Mime    string `json:"mime"`
	URL     string `json:"url"`
	Tool    string `json:"tool"`
	CallID  string `json:"callID"`
	State   struct {
		Status      string          `json:"status"`
		Input       json.RawMessage `json:"input"`
		Output      string          `json:"output"`
		Error       string          `json:"error"`
		Attachments []struct {
			Mime string `json:"mime"`
			URL  string `json:"url"`
		} `json:"attachments"`
		Time struct {
			Compacted json.RawMessage `json:"compacted"`
		} `json:"time"`
	} `json:"state"`
	Tokens *opencodeTokens `json:"tokens"`
}

// opencodeMessage is one element of an export's messages.
type opencodeMessage struct {
	Info struct {
		ID         string          `json:"id"`
		ParentID   string          `json:"parentID"`
		Summary    json.RawMessage `json:"summary"` // true on a compaction's summary; a user message's is an object
		Finish     string          `json:"finish"`
		Role       string          `json:"role"`
		ModelID    string          `json:"modelID"`
		ProviderID string          `json:"providerID"`
		Tokens     *opencodeTokens `json:"tokens"`
		Error      json.RawMessage `json:"error"`
	} `json:"info"`
	Parts []opencodePart `json:"parts"`
}

// opencodeSession rebuilds the Chat Completions requests of one export.
type opencodeSession struct {
	name, base string
	e          Emitter
	spool      spool
	messages   []spoolRef // the messages sent so far, in Chat Completions form
	requests   int
	// compaction is the id of the last user message that asks for a compaction, and at the
	// index of its first message in messages: once a summary answers it, the requests after
	// start there, as OpenCode sends them.
	compaction string
	at         int
}

// readOpencode reads an OpenCode session export: one conversation per request OpenCode sent
// (a step of an assistant message), the messages before it as OpenCode sends them to a Chat
// Completions provider, with the usage recorded for the step.
func readOpencode(ctx context.Context, name string, r io.Reader, e Emitter) error {
	s := &opencodeSession{name: name, base: filepath.Base(name), e: e}
	defer s.spool.close()
	return opencodeScan(ctx, name, r, e, s.message)
}

// message takes one message of the export; locate moves a problem found at a byte of it to
// that byte's line and column in the file.
func (s *opencodeSession) message(raw []byte, loc Location, locate func(*ReadError) *ReadError) error {
	var m opencodeMessage
	if len(raw) > 0 && raw[0] != '{' {
		s.e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("a message object was expected")})
		return nil
	}
	if rerr := agentRecord(raw, loc, &m); rerr != nil {
		s.e.Problem(locate(rerr))
		return nil
	}
	switch m.Info.Role {
	case "user":
		return s.user(m)
	case "assistant":
		if err := s.assistant(m, loc); err != nil {
			return err
		}
		if string(m.Info.Summary) == "true" && m.Info.Finish != "" && m.Info.ParentID != "" && m.Info.ParentID == s.compaction {
			s.messages, s.compaction = s.messages[s.at:], "" // the summary pivot: what came before it is no longer sent
		}
		return nil
	}
	s.e.Problem(&ReadError{Loc: loc.Child("info").Child("role"), Err: fmt.Errorf("role %q: want user or assistant", m.Info.Role)})
	return nil
}

// user adds a user message: its text parts not ignored, its pictures, the text OpenCode puts
// for a compaction or a subtask.
func (s *opencodeSession) user(m opencodeMessage) error {
	var parts []any
	for _, p := range m.Parts {
		if p.Type == "compaction" {
			s.compaction, s.at = m.Info.ID, len(s.messages)
		}
		switch {
		case p.Type == "text" && !p.Ignored && p.Text != "":
			parts = append(parts, chatText(p.Text))
		case p.Type == "file" && strings.HasPrefix(p.Mime, "image/"):
			parts = append(parts, chatImage(p.URL))
		case p.Type == "compaction":
			parts = append(parts, chatText("[Compacted summary of the prior conversation]"))
		case p.Type == "subtask":
			parts = append(parts, chatText("The following tool was executed by the user"))
		}
	}
	return s.add("user", parts)
}

// assistant emits a request per step of an assistant message (the messages so far, with the
// step's usage), then adds the step's answer: the assistant message with its tool calls, a
// tool message per call and a user message with the pictures the tools returned. A message
// that ended in an error is not sent again.
func (s *opencodeSession) assistant(m opencodeMessage, loc Location) error {
	steps := opencodeSteps(m.Parts)
	failed := len(m.Info.Error) > 0 && string(m.Info.Error) != "null"
	for _, step := range steps {
		usage := m.Info.Tokens
		for _, p := range step {
			if p.Type == "step-finish" && p.Tokens != nil {
				usage = p.Tokens
			}
		}
		if err := s.emit(m, usage, loc); err != nil {
			return err
		}
		if failed {
			continue
		}
		if err := s.answer(step); err != nil {
			return err
		}
	}
	return nil
}

// opencodeSteps splits an assistant message's parts at each step-start (one request each); a
// message without one is one step.
func opencodeSteps(parts []opencodePart) [][]opencodePart {
	var steps [][]opencodePart
	for i, p := range parts {
		if p.Type == "step-start" || i == 0 {
			steps = append(steps, nil)
		}
		steps[len(steps)-1] = append(steps[len(steps)-1], p)
	}
	if len(steps) == 0 {
		steps = append(steps, nil)
	}
	return steps
}

// answer adds what one step answered, as OpenCode sends it back.
func (s *opencodeSession) answer(step []opencodePart) error {
	var text strings.Builder
	var calls, results, media []any
	for _, p := range step {
		switch p.Type {
		case "text":
			text.WriteString(p.Text)
		case "tool":
			args := new(bytes.Buffer)
			if json.Compact(args, p.State.Input) != nil || args.Len() == 0 {
				args.Reset()
				args.WriteString("{}")
			}
			calls = append(calls, map[string]any{"id": p.CallID, "type": "function",
				"function": map[string]any{"name": p.Tool, "arguments": args.String()}})
			out, pics := opencodeToolResult(p)
			results = append(results, map[string]any{"role": "tool", "tool_call_id": p.CallID, "content": out})
			media = append(media, pics...)
		}
	}
	if text.Len() == 0 && len(calls) == 0 {
		return nil
	}
	msg := map[string]any{"role": "assistant", "content": text.String()}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	for _, m := range append([]any{msg}, results...) {
		if err := s.put(m); err != nil {
			return err
		}
	}
	if len(media) == 0 {
		return nil
	}
	return s.add("user", append([]any{chatText(opencodeMediaPrompt)}, media...))
}

// opencodeToolResult is the text a tool part sends back and the pictures it carries (sent
// apart, in a user message): an error's text, a note for a call that never ended, or the
// output (a note once OpenCode compacted it away, pictures and all).
func opencodeToolResult(p opencodePart) (string, []any) {
	switch p.State.Status {
	case "completed":
	case "error":
		return p.State.Error, nil
	default:
		return "[Tool execution was interrupted]", nil
	}
	if len(p.State.Time.Compacted) > 0 && string(p.State.Time.Compacted) != "null" {
		return "[Old tool result content cleared]", nil
	}
	var pics []any
	for _, a := range p.State.Attachments {
		if strings.HasPrefix(a.Mime, "image/") {
			pics = append(pics, chatImage(a.URL))
		}
	}
	return p.State.Output, pics
}

// chatText and chatImage are Chat Completions content parts.
func chatText(text string) any { return map[string]string{"type": "text", "text": text} }

func chatImage(url string) any {
	return map[string]any{"type": "image_url", "image_url": map[string]string{"url": url}}
}

// add adds a message of role and content parts (none: no message); one text part is sent as
// a string.
func (s *opencodeSession) add(role string, parts []any) error {
	if len(parts) == 0 {
		return nil
	}
	var content any = parts
	if t, ok := parts[0].(map[string]string); ok && len(parts) == 1 {
		content = t["text"]
	}
	return s.put(map[string]any{"role": role, "content": content})
}

// put spools one message.
func (s *opencodeSession) put(m any) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("read %s: %w", s.name, err)
	}
	ref, err := s.spool.put(raw)
	if err != nil {
		return err
	}
	s.messages = append(s.messages, ref)
	return nil
}

// emit sends the request an assistant step answered: the messages so far, with its usage.
func (s *opencodeSession) emit(m opencodeMessage, t *opencodeTokens, loc Location) error {
	if len(s.messages) == 0 {
		return nil
	}
	s.requests++
	body, err := agentRequest(&s.spool, m.Info.ModelID, "messages", nil, s.messages)
	if err != nil {
		return err
	}
	var usage *ServerUsage
	if t != nil {
		usage = &ServerUsage{Status: 200, PromptTokens: t.Input + t.Cache.Read + t.Cache.Write, CachedTokens: t.Cache.Read, CompletionTokens: t.Output}
	}
	id := fmt.Sprintf("%s#%d", s.base, s.requests-1)
	return agentEmit(s.e, s.name, chatAPI(), body, loc, id, FormatOpencode, m.Info.ProviderID, usage, opencodeMissing)
}

// opencodeScanner walks an export's bytes once, keeping only the element of its messages array
// it is in: it follows strings, nesting and lines, not the rest of JSON's grammar (each message
// is checked when decoded). It reads the export through a spillReader: a base64 payload or run
// over LargeBase64Bytes (a picture in a tool's output or attachment) is streamed past, and the
// element holds its stand-in; offsets are those of what the spillReader gives, put back in the
// file's terms by toFile.
type opencodeScanner struct {
	name       string
	e          Emitter
	fn         func(raw []byte, loc Location, locate func(*ReadError) *ReadError) error
	toFile     func(int64) int64
	line       int   // the 1-based line where the scanner stands
	off        int64 // the offset of the byte about to be read
	lineStart  int64 // the offset of its line's first byte
	depth      int   // of the byte about to be read: 1 inside the export's object
	inStr, esc bool  // in a string, after a backslash in it
	key        []byte
	keyOpen    bool   // reading a member name of the export's object
	member     string // the name of the export's member being read
	inMessages bool
	index      int // of the next message
	elem       []byte
	capturing  bool
	tooLong    bool
	scalar     bool // the element is not an object or array
	at         Location
	atOff      int64 // the offset of the element's first byte, and of its line's
	atLine     int64
	ended      bool // the export's object has closed
}

// opencodeScan calls fn with each element of an export's messages array, its location (line,
// pointer) and the function that locates a problem found at a byte of it (its Offset, counted
// from the element's first byte) at that byte's line and column in the file; what breaks the
// export's shape outside the messages is a located problem, and reading stops there.
func opencodeScan(ctx context.Context, name string, r io.Reader, e Emitter, fn func(raw []byte, loc Location, locate func(*ReadError) *ReadError) error) error {
	sr := newRunSpillReader(r, largeRunOptions(e))
	sc := &opencodeScanner{name: name, e: e, fn: fn, toFile: sr.inputOffset, line: 1}
	buf := make([]byte, 256<<10)
	seen := false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := sr.Read(buf)
		if n > 0 {
			seen = true
			problem, err := sc.chunk(buf[:n])
			if err != nil || problem != nil {
				if problem != nil {
					e.Problem(problem)
				}
				return err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return &ReadError{Loc: Location{File: name, Line: sc.line}, Err: rerr}
		}
	}
	if sc.capturing {
		return sc.finish(nil)
	}
	if seen && (sc.depth != 0 || !sc.ended) {
		e.Problem(&ReadError{Loc: Location{File: name, Line: sc.line}, Err: fmt.Errorf("the export ends before its closing }")})
	}
	return nil
}

// column is the 0-based column in the file of the byte at off, in the line that starts at
// lineStart.
func (sc *opencodeScanner) column(off, lineStart int64) int64 {
	return sc.toFile(off) - sc.toFile(lineStart)
}

// chunk scans the next bytes of the export.
func (sc *opencodeScanner) chunk(b []byte) (*ReadError, error) {
	from := 0 // where the element being captured starts in b
	for i, c := range b {
		if sc.capturing && sc.scalar && !sc.inStr && (c == ',' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			if err := sc.finish(b[from:i]); err != nil {
				return nil, err
			}
		}
		if !sc.capturing && sc.inMessages && sc.depth == 2 && !sc.inStr && strings.IndexByte(" \t\r\n,]", c) < 0 {
			sc.capturing, sc.scalar, sc.tooLong = true, c != '{' && c != '[', false
			sc.elem, from = sc.elem[:0], i
			sc.at = Location{File: sc.name, Line: sc.line, Pointer: fmt.Sprintf("/messages/%d", sc.index)}
			sc.atOff, sc.atLine = sc.off, sc.lineStart
		}
		problem := sc.step(c)
		if problem != nil {
			return problem, nil
		}
		if sc.capturing && !sc.scalar && sc.depth == 2 && (c == '}' || c == ']') && !sc.inStr {
			if err := sc.finish(b[from : i+1]); err != nil {
				return nil, err
			}
		}
		sc.off++
		if c == '\n' {
			sc.line, sc.lineStart = sc.line+1, sc.off
		}
	}
	if sc.capturing {
		sc.keep(b[from:])
	}
	return nil, nil
}

// step takes one byte: strings, member names, nesting. It returns a problem for bytes that
// cannot be part of an export.
func (sc *opencodeScanner) step(c byte) *ReadError {
	if sc.inStr {
		switch {
		case sc.esc:
			sc.esc = false
		case c == '\\':
			sc.esc = true
		case c == '"':
			sc.inStr, sc.keyOpen = false, false
			return nil
		}
		if sc.keyOpen {
			sc.key = append(sc.key, c)
		}
		return nil
	}
	bad := func(what string) *ReadError {
		return &ReadError{Loc: Location{File: sc.name, Line: sc.line, Offset: sc.column(sc.off, sc.lineStart)}, Err: fmt.Errorf("%s: not an OpenCode export", what)}
	}
	switch c {
	case '"':
		sc.inStr = true
		if sc.depth == 1 && sc.member == "" {
			sc.keyOpen, sc.key = true, sc.key[:0]
		}
	case ':':
		if sc.depth == 1 && sc.member == "" {
			sc.member = string(sc.key)
		}
	case ',':
		if sc.depth == 1 {
			sc.member = ""
		}
	case '{', '[':
		if sc.depth == 0 && (c == '[' || sc.ended) {
			return bad(fmt.Sprintf("%q outside the export's object", c))
		}
		sc.inMessages = sc.inMessages || (sc.depth == 1 && c == '[' && sc.member == "messages")
		sc.depth++
	case '}', ']':
		sc.depth--
		if sc.depth < 0 {
			return bad(fmt.Sprintf("unmatched %q", c))
		}
		if sc.depth < 2 {
			sc.inMessages = false
		}
		sc.ended = sc.ended || sc.depth == 0
	case ' ', '\t', '\r', '\n':
	default:
		if sc.depth == 0 {
			return bad(fmt.Sprintf("%q outside the export's object", c))
		}
	}
	return nil
}

// keep adds the next bytes of the element being captured; past agentMaxLine (besides its
// payloads streamed past) it is dropped and reported when it ends.
func (sc *opencodeScanner) keep(b []byte) {
	if sc.tooLong || len(sc.elem)+len(b) > agentMaxLine {
		sc.tooLong, sc.elem = true, sc.elem[:0]
		return
	}
	sc.elem = append(sc.elem, b...)
}

// finish ends the element being captured with its last bytes and hands it on (a message that
// holds too much to keep besides its payloads streamed past is reported and skipped).
func (sc *opencodeScanner) finish(last []byte) error {
	sc.keep(last)
	sc.capturing = false
	sc.index++
	if sc.tooLong {
		sc.e.Problem(&ReadError{Loc: sc.at, Err: fmt.Errorf("message holds more than %d MiB besides its base64 payloads: skipped", agentMaxLine>>20)})
		return nil
	}
	return sc.fn(sc.elem, sc.at, sc.locate)
}

// locate moves a problem found at a byte of the element being handed on (its Offset, counted
// from the element's first byte) to that byte's line and column in the file.
func (sc *opencodeScanner) locate(rerr *ReadError) *ReadError {
	off := int(rerr.Loc.Offset)
	if off <= 0 || off > len(sc.elem) {
		return rerr
	}
	before := sc.elem[:off]
	lineStart := sc.atLine
	if nl := bytes.Count(before, []byte{'\n'}); nl > 0 {
		rerr.Loc.Line = sc.at.Line + nl
		lineStart = sc.atOff + int64(bytes.LastIndexByte(before, '\n')+1)
	}
	rerr.Loc.Offset = sc.column(sc.atOff+int64(off), lineStart)
	return rerr
}
