package corpora

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
)

// sniffCline: a Cline CLI session's messages (~/.cline/data/sessions/<id>/<id>.messages.json)
// are one JSON object that names its sessionId and agent before its messages; a request body
// names neither. The session's <id>.json beside them (its session_id, model and messages_path)
// is Cline's too: it holds no request.
func sniffCline(f fileHead) bool {
	return f.startsWith("{") && (f.has(`"sessionId"`) && f.has(`"agent"`) && f.has(`"messages"`) ||
		f.has(`"session_id"`) && f.has(`"messages_path"`))
}

// clineMissing is the note every Cline request carries: what the session does not record.
const clineMissing = "Cline does not record the tool definitions it sends with each request: they are not counted; " +
	"Cline 3.0.65 sent 27 tool definitions, 17 KB, with every request, about 4,500 tokens (o200k_base)"

// clineMessage is what the reader takes from one message of a Cline session.
type clineMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ModelInfo *struct {
		ID       string `json:"id"`
		Provider string `json:"provider"`
	} `json:"modelInfo"`
	Metrics *struct {
		Input      int `json:"inputTokens"`
		Output     int `json:"outputTokens"`
		CacheRead  int `json:"cacheReadTokens"`
		CacheWrite int `json:"cacheWriteTokens"`
	} `json:"metrics"`
}

// clineRequest is one request the session records an answer to: the messages before the
// answer, and the answer's model and usage.
type clineRequest struct {
	cut             int
	model, provider string
	usage           *ServerUsage
	loc             Location
}

// clineSession rebuilds the requests of one Cline session.
type clineSession struct {
	name, base string
	e          Emitter
	spool      spool
	returned   []spoolRef // each message as Anthropic Messages, its tool results as the tools gave them
	sent       []spoolRef // each message as Cline sent it (see clineWire)
	changed    []int      // how many tool results of each message Cline changed when sending
	requests   []clineRequest
	system     string
	lines      *lineCounter
	spilled    *spillReader // what the decoder reads: lines with large payloads streamed past
}

// readCline reads a Cline CLI session's messages: one conversation per answer the session
// records, the messages before it with the session's system prompt. A tool result Cline cut
// or reshaped when sending is held as recorded, the conversation's Sent as Cline sent it. A
// base64 payload or run over LargeBase64Bytes (a picture in a tool's result) is streamed past
// as the file is read (newRunSpillReader): a message holds its stand-in.
func readCline(ctx context.Context, name string, r io.Reader, e Emitter) error {
	s := &clineSession{name: name, base: filepath.Base(name), e: e, lines: &lineCounter{r: r}}
	defer s.spool.close()
	s.spilled = newRunSpillReader(s.lines, largeRunOptions(e))
	dec := json.NewDecoder(s.spilled)
	err := s.read(ctx, dec)
	var rerr *ReadError
	switch {
	case errors.As(err, &rerr):
		e.Problem(rerr)
	case err != nil:
		return err
	}
	for i, req := range s.requests {
		if err := s.emit(i, req); err != nil {
			return err
		}
	}
	return nil
}

// read walks the session's object: its messages, one at a time, and its system prompt. A
// break in the JSON is a *ReadError at its line; the messages before it are kept.
func (s *clineSession) read(ctx context.Context, dec *json.Decoder) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return s.syntax(dec, err, "a Cline session is a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return s.syntax(dec, err, "")
		}
		switch tok {
		case "messages":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return s.syntax(dec, err, "messages must be an array")
			}
			for i := 0; dec.More(); i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return s.syntax(dec, err, "")
				}
				loc := s.locate(dec.InputOffset() - int64(len(raw))).Child("messages").Child(i)
				if err := s.message(raw, loc); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return s.syntax(dec, err, "")
			}
		case "system_prompt":
			if err := dec.Decode(&s.system); err != nil {
				return s.syntax(dec, err, "system_prompt must be a string")
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return s.syntax(dec, err, "")
			}
		}
	}
	_, err := dec.Token()
	return s.syntax(dec, err, "")
}

// syntax locates a decoding error (nil for none): a syntax error at its offset, else where the
// decoder stands, saying what was wanted.
func (s *clineSession) syntax(dec *json.Decoder, err error, want string) error {
	if s.lines.err != nil {
		return &ReadError{Loc: s.locate(dec.InputOffset()), Err: fmt.Errorf("read: %w", s.lines.err)}
	}
	if err == nil && want == "" {
		return nil
	}
	off := dec.InputOffset()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Offset == off: // a token's error, at the byte where the decoder stands
	case errors.As(err, &se): // a value's error: its Offset does not count what Token read
		off += valueErrorAt(dec.Buffered())
	case errors.As(err, &te):
		off = te.Offset
	case err == io.EOF:
		err = io.ErrUnexpectedEOF
	}
	if err == nil || want != "" && (err == io.ErrUnexpectedEOF || te != nil) {
		err = errors.New(want)
	}
	return &ReadError{Loc: s.locate(off), Err: fmt.Errorf("%w (the requests before it are read)", err)}
}

// valueErrorAt is the offset in r of the byte that breaks the JSON value r starts with.
func valueErrorAt(r io.Reader) int64 {
	b, _ := io.ReadAll(r)
	var se *json.SyntaxError
	if errors.As(json.Unmarshal(b, new(json.RawMessage)), &se) {
		return max(se.Offset-1, 0)
	}
	return 0
}

// locate is the location of byte off of what the decoder read, in the file: its line and column.
func (s *clineSession) locate(off int64) Location {
	line, col := s.lines.position(s.spilled.inputOffset(off))
	return Location{File: s.name, Line: line, Offset: col}
}

// message takes one message of the session: an assistant message with its model ends a
// request; every message joins the conversation.
func (s *clineSession) message(raw json.RawMessage, loc Location) error {
	var m clineMessage
	if rerr := agentRecord(raw, loc, &m); rerr != nil {
		s.e.Problem(rerr)
		return nil
	}
	if m.Role != "user" && m.Role != "assistant" {
		s.e.Problem(&ReadError{Loc: loc.Child("role"), Err: fmt.Errorf("role %q: want user or assistant; message skipped", m.Role)})
		return nil
	}
	returned, sent, changed, rerr := clineWire(m, loc)
	if rerr != nil {
		s.e.Problem(rerr)
		return nil
	}
	if m.Role == "assistant" {
		req := clineRequest{cut: len(s.returned), loc: loc}
		if m.ModelInfo != nil {
			req.model, req.provider = m.ModelInfo.ID, m.ModelInfo.Provider
		}
		if u := m.Metrics; u != nil {
			req.usage = &ServerUsage{Status: 200, PromptTokens: u.Input + u.CacheRead + u.CacheWrite, CachedTokens: u.CacheRead, CompletionTokens: u.Output}
		}
		s.requests = append(s.requests, req)
	}
	for _, p := range []struct {
		refs *[]spoolRef
		b    []byte
	}{{&s.returned, returned}, {&s.sent, sent}} {
		ref, err := s.spool.put(p.b)
		if err != nil {
			return err
		}
		*p.refs = append(*p.refs, ref)
	}
	s.changed = append(s.changed, changed)
	return nil
}

// emit sends request i: the messages before its answer with the system prompt, as recorded,
// and as sent where Cline changed a tool result.
func (s *clineSession) emit(i int, req clineRequest) error {
	id := fmt.Sprintf("%s#%d", s.base, i)
	notes := []string{clineMissing}
	if s.system == "" {
		notes = append(notes, "the session records no system prompt: none is counted")
	}
	changed := 0
	for _, n := range s.changed[:req.cut] {
		changed += n
	}
	if changed == 0 {
		return s.emitBody(req, id, s.returned[:req.cut], nil, notes)
	}
	asSent := &Collector{}
	body, err := s.body(req.model, s.sent[:req.cut])
	if err != nil {
		return err
	}
	if err := agentEmit(asSent, s.name, anthropicAPI(), body, req.loc, id, FormatCline, req.provider, req.usage, ""); err != nil || len(asSent.Conversations) != 1 {
		return s.emitBody(req, id, s.returned[:req.cut], nil, notes)
	}
	notes = append(notes, fmt.Sprintf("%d tool result(s) differ from what Cline sent, cut to %d characters (the middle left out): "+
		"the conversation holds them as recorded, the recorded arm as sent", changed, clineMaxToolResultChars))
	return s.emitBody(req, id, s.returned[:req.cut], asSent.Conversations[0].Messages, notes)
}

// emitBody emits the request of the messages at refs, with sent as what Cline sent where it
// differs.
func (s *clineSession) emitBody(req clineRequest, id string, refs []spoolRef, sent []Message, notes []string) error {
	body, err := s.body(req.model, refs)
	if err != nil {
		return err
	}
	c := &Collector{}
	if err := agentEmit(c, s.name, anthropicAPI(), body, req.loc, id, FormatCline, req.provider, req.usage, notes[0]); err != nil {
		return err
	}
	for _, p := range c.Problems {
		s.e.Problem(p)
	}
	if len(c.Conversations) != 1 {
		return nil
	}
	conv := c.Conversations[0]
	conv.Notes = append(conv.Notes, notes[1:]...)
	if sent != nil && sameRoles(sent, conv.Messages) {
		conv.Sent = sent
	}
	if err := s.e.Conversation(conv); err != nil {
		return fmt.Errorf("read %s: %w", s.name, err)
	}
	return nil
}

// body is an Anthropic Messages request of the model, the session's system prompt and the
// messages at refs.
func (s *clineSession) body(model string, refs []spoolRef) ([]byte, error) {
	req, err := agentRequest(&s.spool, model, "messages", nil, refs)
	if err != nil || s.system == "" {
		return req, err
	}
	var b bytes.Buffer
	b.WriteString(`{"system":`)
	b.Write(jsString(s.system))
	b.WriteByte(',')
	b.Write(req[1:])
	return b.Bytes(), nil
}

// lineCounter reads through r and keeps where its lines end, to tell the line of an offset.
type lineCounter struct {
	r   io.Reader
	off int64
	nl  []int64 // the offsets of the newlines read so far
	err error   // the read error other than EOF, if any
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		c.nl = append(c.nl, c.off+int64(i+j))
		i += j + 1
	}
	c.off += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// position is the 1-based line of byte off and its 0-based column.
func (c *lineCounter) position(off int64) (int, int64) {
	i := sort.Search(len(c.nl), func(i int) bool { return c.nl[i] >= off })
	if i == 0 {
		return 1, off
	}
	return i + 1, off - c.nl[i-1] - 1
}
