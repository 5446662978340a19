package corpora

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// sniffClaudeCode: a Claude Code session (~/.claude/projects/<project>/<session>.jsonl) is JSON
// Lines whose records carry a sessionId and Claude Code's own keys. The metadata of a sub-agent
// beside its file (<session>/subagents/agent-*.meta.json) is Claude Code's too, and holds no
// request.
func sniffClaudeCode(f fileHead) bool {
	if strings.HasPrefix(f.base, "agent-") && strings.HasSuffix(f.base, ".meta.json") && f.has(`"agentType"`) {
		return true
	}
	return f.startsWith("{") && f.has(`"sessionId"`) &&
		(f.has(`"type":"api-request`) || f.has(`"parentUuid"`) || f.has(`"isSidechain"`))
}

// claudeRecord is what the reader takes from one line of a Claude Code session.
type claudeRecord struct {
	Type        string          `json:"type"`
	IsSidechain bool            `json:"isSidechain"`
	AgentID     string          `json:"agentId"` // the sub-agent whose record it is ("" for the main conversation)
	IsMeta      bool            `json:"isMeta"`
	Message     json.RawMessage `json:"message"`
	RequestRef  string          `json:"requestRef"`
	Provider    string          `json:"provider"`
	// ToolUseResult is a tool's result as Claude Code recorded it beside the message it sent.
	ToolUseResult json.RawMessage `json:"toolUseResult"`
	// api-request-shape: the system prompt and tools of requests, by hash
	ShapeHash string          `json:"shapeHash"`
	Shape     json.RawMessage `json:"shape"`
	// api-request-blob: a message as sent, by hash
	Hash string `json:"hash"`
	// api-request: the first keep messages of the request base, then the messages tail names
	ID     string          `json:"id"`
	Base   string          `json:"base"`
	Keep   int             `json:"keep"`
	Tail   []string        `json:"tail"`
	Params json.RawMessage `json:"params"`
}

// claudeMessage is a message of the session: where it is spooled and its role.
type claudeMessage struct {
	ref  spoolRef
	role string
	id   string // an assistant message's id (Claude Code may write one record per block)
}

// claudeSession rebuilds the requests of one Claude Code session file.
type claudeSession struct {
	name, base string
	e          Emitter
	spool      spool
	shapes     map[string]spoolRef
	blobs      map[string]claudeMessage
	built      map[string]spoolRef // the messages of each rebuilt request, spooled, by its id (putMessages)
	since      []claudeMessage     // transcript messages since the last api-request
	all        []claudeMessage     // every transcript message, until the first api-request (for a session without them)
	requests   int
	provider   string
	model      string
	held       *Conversation // the last request, until its answer's usage is read
	heldID     string
	returned   map[string]spoolRef // tool results as recorded beside the messages (toolUseResult), by tool_use_id

	// agent is the sub-agent whose conversation the file holds (the agentId of its first
	// record; "" for the main conversation): a file under <session>/subagents/ holds one.
	agent   string
	started bool
	// missing counts the pictures Claude Code resized whose original was not found, and says
	// why for the first.
	missing      int
	firstMissing string
}

// readClaudeCode reads a Claude Code session. Where the session records the requests it sent
// (api-request, api-request-shape and api-request-blob records), each request is rebuilt as an
// Anthropic Messages body and read as one conversation, with the usage of its answer; a
// session without them gives one conversation of its transcript.
func readClaudeCode(ctx context.Context, name string, r io.Reader, e Emitter) error {
	s := &claudeSession{name: name, base: filepath.Base(name), e: e, shapes: map[string]spoolRef{},
		blobs: map[string]claudeMessage{}, built: map[string]spoolRef{}, returned: map[string]spoolRef{}}
	defer s.spool.close()
	if err := agentRecords(ctx, name, r, e, s.record); err != nil {
		return err
	}
	if err := s.flush(); err != nil {
		return err
	}
	if s.requests == 0 && len(s.all) > 0 {
		return s.transcript()
	}
	return nil
}

// record takes one record of the session.
func (s *claudeSession) record(rec claudeRecord, loc Location) error {
	if !s.started {
		s.started, s.agent = true, rec.AgentID
	}
	switch rec.Type {
	case "api-request-route":
		s.provider = rec.Provider
	case "api-request-shape":
		ref, err := s.spool.put(rec.Shape)
		if err != nil {
			return err
		}
		s.shapes[rec.ShapeHash] = ref
	case "api-request-blob":
		m, rerr := s.keep(rec.Message, loc)
		if rerr != nil {
			s.e.Problem(rerr)
			return nil
		}
		if m != nil {
			s.blobs[rec.Hash] = *m
		}
	case "api-request":
		if rec.AgentID != s.agent {
			return nil // another conversation's request (a sub-agent's, in its own file)
		}
		if err := s.flush(); err != nil {
			return err
		}
		return s.request(rec, loc)
	case "user", "assistant":
		if rec.AgentID != s.agent || (s.agent == "" && rec.IsSidechain) || len(rec.Message) == 0 {
			return nil
		}
		m, rerr := s.keep(rec.Message, loc)
		if rerr != nil {
			s.e.Problem(rerr)
			return nil
		}
		if m == nil {
			return nil
		}
		if rec.IsMeta {
			_, err := s.merge(m, true) // sent as part of the user message before it, else not at all
			return err
		}
		if rec.Type == "assistant" {
			s.answered(rec, m.ref)
		}
		if err := s.keepReturned(rec); err != nil {
			return err
		}
		if merged, err := s.merge(m, false); err != nil || merged {
			return err
		}
		s.since = append(s.since, *m)
		if s.requests == 0 {
			s.all = append(s.all, *m)
		}
	}
	return nil
}

// keep spools a message ({role, content}, other members dropped) and returns it; a message
// without a role or content is reported.
func (s *claudeSession) keep(raw json.RawMessage, loc Location) (*claudeMessage, *ReadError) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		ID      string          `json:"id"`
		Model   string          `json:"model"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Role == "" || len(m.Content) == 0 {
		return nil, &ReadError{Loc: loc.Child("message"), Err: fmt.Errorf("a message with a role and content was expected")}
	}
	if m.Model != "" {
		s.model = m.Model
	}
	role, _ := json.Marshal(m.Role)
	body := make([]byte, 0, len(role)+len(m.Content)+22) // not json.Marshal: a picture's content is not copied twice more
	body = append(append(append(append(body, `{"role":`...), role...), `,"content":`...), m.Content...)
	ref, err := s.spool.put(append(body, '}'))
	if err != nil {
		return nil, &ReadError{Loc: loc, Err: err}
	}
	return &claudeMessage{ref: ref, role: m.Role, id: m.ID}, nil
}

// merge appends the blocks of a record to the previous message when Claude Code sends both as
// one, and says whether it did: the parts of one assistant message (the same id), or a meta user
// record (a note Claude Code adds after a tool's result, its string content one text block)
// after a user message.
func (s *claudeSession) merge(m *claudeMessage, meta bool) (bool, error) {
	if len(s.since) == 0 {
		return false, nil
	}
	last := &s.since[len(s.since)-1]
	switch {
	case meta && m.role == "user" && last.role == "user":
	case !meta && m.role == "assistant" && m.id != "" && last.role == "assistant" && last.id == m.id:
	default:
		return false, nil
	}
	a, err := s.blocks(last.ref, meta)
	if err != nil || a == nil {
		return false, err
	}
	b, err := s.blocks(m.ref, meta)
	if err != nil || b == nil {
		return false, err
	}
	body, _ := json.Marshal(struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}{last.role, append(a, b...)})
	ref, err := s.spool.put(body)
	if err != nil {
		return false, err
	}
	last.ref = ref
	if s.requests == 0 {
		s.all[len(s.all)-1].ref = ref
	}
	return true, nil
}

// blocks are the content blocks of a spooled message; a string content is one text block
// where asText, else nil (kept as its own message).
func (s *claudeSession) blocks(ref spoolRef, asText bool) ([]json.RawMessage, error) {
	raw, err := s.spool.get(ref)
	if err != nil {
		return nil, err
	}
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil, nil
	}
	var out []json.RawMessage
	if json.Unmarshal(m.Content, &out) == nil {
		return out, nil
	}
	var text string
	if !asText || json.Unmarshal(m.Content, &text) != nil {
		return nil, nil
	}
	block, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return []json.RawMessage{block}, nil
}

// answered takes the usage of an assistant record into the request it answers.
func (s *claudeSession) answered(rec claudeRecord, ref spoolRef) {
	if s.held == nil || rec.RequestRef != s.heldID {
		return
	}
	var m struct {
		Usage *struct {
			Input       int `json:"input_tokens"`
			Output      int `json:"output_tokens"`
			CacheRead   int `json:"cache_read_input_tokens"`
			CacheCreate int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(rec.Message, &m) != nil || m.Usage == nil {
		return
	}
	u := m.Usage
	s.held.ServerUsage = &ServerUsage{Status: 200, PromptTokens: u.Input + u.CacheRead + u.CacheCreate,
		CompletionTokens: u.Output, CachedTokens: u.CacheRead}
}

// request rebuilds the request of an api-request record and holds it until its answer.
func (s *claudeSession) request(rec claudeRecord, loc Location) error {
	since := s.since
	s.since = nil
	s.requests++
	msgs, rerr, err := s.messages(rec, since, loc)
	if err != nil || rerr != nil {
		if rerr != nil {
			s.e.Problem(rerr)
		}
		return err
	}
	ref, err := s.putMessages(msgs)
	if err != nil {
		return err
	}
	s.built[rec.ID] = ref
	shape, ok := s.shapes[rec.ShapeHash]
	if !ok {
		s.e.Problem(&ReadError{Loc: loc.Child("shapeHash"), Err: fmt.Errorf("request %s: no api-request-shape %.12s before it", rec.ID, rec.ShapeHash)})
		return nil
	}
	id := fmt.Sprintf("%s#%d", s.base, s.requests-1)
	body, err := s.body(msgs, &shape, rec.Params, nil)
	if err != nil {
		return err
	}
	conv, rerr := s.parse(body, loc, id)
	if rerr != nil {
		s.e.Problem(rerr)
		return nil
	}
	conv.Notes = append(conv.Notes, fmt.Sprintf("Claude Code request %s rebuilt from the session's api-request records: %d messages; the billing line Claude Code puts first in the system prompt when sending is not recorded", rec.ID, len(msgs)))
	if s.missing > 0 {
		conv.Notes = append(conv.Notes, fmt.Sprintf("%d picture(s) Claude Code resized before sending, the before arm holds as sent: %s", s.missing, s.firstMissing))
	}
	returned, changed, err := s.returnedMessages(msgs)
	if err != nil {
		return err
	}
	if changed > 0 {
		// The conversation holds the tool results as the session recorded them; what Claude
		// Code sent in their place (a spill to a file, a picture left out) is its Sent.
		body, err := s.body(msgs, &shape, rec.Params, returned)
		if err != nil {
			return err
		}
		if asReturned, rerr := s.parse(body, loc, id); rerr == nil && sameRoles(asReturned.Messages, conv.Messages) {
			asReturned.Sent, asReturned.Notes = conv.Messages, append(conv.Notes,
				fmt.Sprintf("%d tool result(s) differ from what Claude Code sent: the conversation holds them as recorded beside the messages (toolUseResult), the recorded arm as sent", changed))
			conv = asReturned
		}
	}
	s.held, s.heldID = conv, rec.ID
	return nil
}

// messages are the messages of an api-request's request: the first keep of its base request,
// then each of tail, an api-request-blob or the next transcript message since the last
// request. A request that cannot be rebuilt is a located problem.
func (s *claudeSession) messages(rec claudeRecord, since []claudeMessage, loc Location) ([]claudeMessage, *ReadError, error) {
	var msgs []claudeMessage
	if rec.Base != "" {
		ref, ok := s.built[rec.Base]
		if !ok {
			return nil, &ReadError{Loc: loc.Child("base"), Err: fmt.Errorf("request %s builds on request %s, which the session does not rebuild", rec.ID, rec.Base)}, nil
		}
		base, err := s.getMessages(ref)
		if err != nil {
			return nil, nil, err
		}
		if rec.Keep < 0 || rec.Keep > len(base) {
			return nil, &ReadError{Loc: loc.Child("keep"), Err: fmt.Errorf("request %s keeps %d messages of a request of %d", rec.ID, rec.Keep, len(base))}, nil
		}
		msgs = base[:rec.Keep]
	}
	j := 0
	for i, h := range rec.Tail {
		if m, ok := s.blobs[h]; ok {
			if j < len(since) && since[j].role == m.role {
				j++ // the blob is the transcript's message as it was sent
			}
			msgs = append(msgs, m)
			continue
		}
		if j >= len(since) {
			return nil, &ReadError{Loc: loc.Child("tail").Child(i), Err: fmt.Errorf("request %s: message %.12s is neither an api-request-blob nor a message of the transcript", rec.ID, h)}, nil
		}
		msgs = append(msgs, since[j])
		j++
	}
	return msgs, nil, nil
}

// putMessages spools the list of a request's messages (where each is spooled, its role and
// id), so that the lists of a long session's requests are not held: a later request names
// the one it builds on (base).
func (s *claudeSession) putMessages(msgs []claudeMessage) (spoolRef, error) {
	var b []byte
	for _, m := range msgs {
		b = binary.AppendUvarint(b, uint64(m.ref.off))
		b = binary.AppendUvarint(b, uint64(m.ref.n))
		for _, t := range []string{m.role, m.id} {
			b = binary.AppendUvarint(b, uint64(len(t)))
			b = append(b, t...)
		}
	}
	return s.spool.put(b)
}

// getMessages reads back a list putMessages spooled.
func (s *claudeSession) getMessages(ref spoolRef) ([]claudeMessage, error) {
	b, err := s.spool.get(ref)
	if err != nil {
		return nil, err
	}
	var msgs []claudeMessage
	next := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	text := func() string {
		n := min(int(next()), len(b))
		t := string(b[:n])
		b = b[n:]
		return t
	}
	for len(b) > 0 {
		m := claudeMessage{ref: spoolRef{off: int64(next()), n: int64(next())}}
		m.role, m.id = text(), text()
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// body writes an Anthropic Messages request: params (less betas), the shape's system and tools,
// and the messages (those of replace in their place, where it has them).
func (s *claudeSession) body(msgs []claudeMessage, shape *spoolRef, params json.RawMessage, replace map[int][]byte) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{`)
	var p map[string]json.RawMessage
	_ = json.Unmarshal(params, &p)
	delete(p, "betas")
	delete(p, "messages")
	if shape != nil {
		raw, err := s.spool.get(*shape)
		if err != nil {
			return nil, err
		}
		var sh map[string]json.RawMessage
		if json.Unmarshal(raw, &sh) == nil {
			for _, k := range []string{"system", "tools"} {
				if v, ok := sh[k]; ok {
					if p == nil {
						p = map[string]json.RawMessage{}
					}
					p[k] = v
				}
			}
		}
	}
	if _, ok := p["model"]; !ok && s.model != "" {
		if p == nil {
			p = map[string]json.RawMessage{}
		}
		p["model"], _ = json.Marshal(s.model)
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(p[k])
		b.WriteByte(',')
	}
	b.WriteString(`"messages":[`)
	size := 0
	for _, m := range msgs {
		size += int(m.ref.n) + 1
	}
	b.Grow(size + 2) // the messages are read back straight into the body
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		if r, ok := replace[i]; ok {
			b.Write(r)
			continue
		}
		raw, err := s.spool.appendTo(b.AvailableBuffer(), m.ref)
		if err != nil {
			return nil, err
		}
		b.Write(raw)
	}
	b.WriteString(`]}`)
	return b.Bytes(), nil
}

// parse reads a rebuilt body as an Anthropic request; locations name the record it came from.
func (s *claudeSession) parse(body []byte, loc Location, id string) (*Conversation, *ReadError) {
	conv, problems, rerr := apiParseRequest(anthropicAPI(), jwNode{raw: body, loc: loc, embedded: true}, id, nil, nil)
	for _, p := range problems {
		s.e.Problem(p)
	}
	if rerr != nil {
		return nil, rerr
	}
	conv.Format, conv.Provider = FormatClaudeCode, s.provider
	return conv, nil
}

// flush emits the held request.
func (s *claudeSession) flush() error {
	if s.held == nil {
		return nil
	}
	c := s.held
	s.held, s.heldID = nil, ""
	if err := s.e.Conversation(c); err != nil {
		return fmt.Errorf("read %s: %w", s.name, err)
	}
	return nil
}

// transcript emits a session without api-request records as one conversation of its user and
// assistant messages.
func (s *claudeSession) transcript() error {
	body, err := s.body(s.all, nil, nil, nil)
	if err != nil {
		return err
	}
	conv, rerr := s.parse(body, Location{File: s.name}, s.base)
	if rerr != nil {
		s.e.Problem(rerr)
		return nil
	}
	conv.Notes = append(conv.Notes, "no api-request records: the conversation is the session's transcript; Claude Code's system prompt and tools are not recorded in it")
	if err := s.e.Conversation(conv); err != nil {
		return fmt.Errorf("read %s: %w", s.name, err)
	}
	return nil
}
