package corpora

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// chatboxStorageKeyReason says why a Chatbox picture named by a storageKey has no bytes.
const chatboxStorageKeyReason = "picture bytes are in Chatbox's blob store, not in the backup"

// sniffChatbox: a Chatbox backup is named chatbox-exported-data-*, or holds its chat-sessions
// list, or session keys beside its configVersion.
func sniffChatbox(f fileHead) bool {
	return strings.HasPrefix(f.base, "chatbox-exported-data") || f.has(`"chat-sessions`) ||
		(f.has(`"session:`) && f.has(`"configVersion"`))
}

// readChatbox reads a Chatbox data backup (chatbox-exported-data-*.json): one JSON object of
// storage keys, possibly hundreds of MB on one line. It streams the top-level keys with
// json.Decoder.Token and decodes one session value at a time, so memory follows the largest
// session, not the file.
//
// Every `session:<id>` value (and every element of the legacy `chat-sessions` array) yields a
// conversation `<file>#<session id>` for its current messages, one `…/thread/<thread id>` per
// older thread, and one `…/fork/<fork message id>/<n>` per stored fork list (the history up to
// and including the fork message, then the list). Sessions and lists without messages yield
// nothing. Other keys (settings, configVersion, chat-sessions-list, …) are skipped.
//
// Locations carry the file, Offset = the byte offset just after the member's key, and a JSON
// Pointer from the document root (/session:<id>/messages/3/contentParts/1/result/content/0).
func readChatbox(ctx context.Context, name string, r io.Reader, e Emitter) error {
	rd := newChatboxReader(name, r, e)
	dec := rd.dec
	tok, err := dec.Token()
	if err != nil {
		return rd.fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		e.Problem(&ReadError{Loc: Location{File: name}, Err: errors.New("not a Chatbox backup: the file is not a JSON object")})
		return nil
	}
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return &ReadError{Loc: Location{File: name, Offset: rd.offset()}, Err: err}
		}
		tok, err := dec.Token()
		if err != nil {
			return rd.fail(err)
		}
		key, _ := tok.(string)
		loc := Location{File: name, Offset: rd.offset()}.Child(key)
		switch {
		case strings.HasPrefix(key, "session:"):
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return rd.fail(err)
			}
			if err := rd.session(raw, loc, strings.TrimPrefix(key, "session:")); err != nil {
				return err
			}
		case key == "chat-sessions":
			if err := rd.legacySessions(ctx, dec, loc); err != nil {
				if errors.Is(err, errChatboxStop) {
					return rd.stopErr
				}
				return rd.fail(err)
			}
		case key == "chat-sessions-list":
			if err := rd.sessionTitles(); err != nil {
				return rd.fail(err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return rd.fail(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return rd.fail(err)
	}
	return nil
}

// newChatboxReader reads the backup r. A backup is one line: a tool's picture too large to keep
// (LargeBase64Bytes) is streamed past, as in an MCP transcript, so the decoder never holds it.
// A file too short to hold one is read as it is.
func newChatboxReader(name string, r io.Reader, e Emitter) *chatboxReader {
	rd := &chatboxReader{name: name, e: e, titles: map[string]string{}, ids: map[string]int{}, src: &chatboxErrReader{r: r}}
	rd.dec = json.NewDecoder(rd.src)
	if sr, ok := r.(*sizedReader); !ok || sr.left >= largeBase64Chars {
		rd.spilled = newSpillReader(rd.src)
		rd.dec = json.NewDecoder(rd.spilled)
	}
	return rd
}

// offset is the file offset of what the decoder has read.
func (rd *chatboxReader) offset() int64 { return rd.spilled.inputOffset(rd.dec.InputOffset()) }

// fail returns a read error, or reports the backup's broken JSON (err) and ends the read: the
// conversations before it were read.
func (rd *chatboxReader) fail(err error) error {
	if rd.src.err != nil {
		return &ReadError{Loc: Location{File: rd.name, Offset: rd.offset()}, Err: fmt.Errorf("read: %w", rd.src.err)}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	off := rd.offset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = rd.spilled.inputOffset(se.Offset)
	}
	rd.e.Problem(&ReadError{Loc: Location{File: rd.name, Offset: off}, Err: fmt.Errorf("the Chatbox backup is not valid JSON (at byte %d; conversations before it were read): %w", off, err)})
	return nil
}

// sessionTitles reads the chat-sessions-list value, the names of the sessions by id; a list of
// another shape names none.
func (rd *chatboxReader) sessionTitles() error {
	var raw json.RawMessage
	if err := rd.dec.Decode(&raw); err != nil {
		return err
	}
	var list []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &list) == nil {
		for _, m := range list {
			rd.titles[m.ID] = m.Name
		}
	}
	return nil
}

// errChatboxStop says the emitter asked to stop (the error is in chatboxReader.stopErr).
var errChatboxStop = errors.New("stopped by the emitter")

// chatboxErrReader remembers a read error, so that I/O failures are told from bad JSON.
type chatboxErrReader struct {
	r   io.Reader
	err error
}

func (c *chatboxErrReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

type chatboxReader struct {
	name    string
	e       Emitter
	titles  map[string]string // session id → name, from chat-sessions-list
	ids     map[string]int    // conversation ids emitted, to keep them unique
	stopErr error
	// dec decodes the backup; src is the reader under it (to tell I/O errors from bad JSON)
	// and spilled, when not nil, the spill reader between them, which maps the decoder's
	// offsets to the file's.
	dec     *json.Decoder
	src     *chatboxErrReader
	spilled *spillReader
}

// legacySessions streams the legacy `chat-sessions` array, one session at a time.
func (rd *chatboxReader) legacySessions(ctx context.Context, dec *json.Decoder, loc Location) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		if d, ok := tok.(json.Delim); ok && d == '{' {
			// Skip the object's members; a scalar needs nothing more.
			depth := 1
			for depth > 0 {
				t, err := dec.Token()
				if err != nil {
					return err
				}
				if d, ok := t.(json.Delim); ok {
					if d == '{' || d == '[' {
						depth++
					} else {
						depth--
					}
				}
			}
		}
		rd.e.Problem(&ReadError{Loc: loc, Err: errors.New("chat-sessions is not an array; skipped")})
		return nil
	}
	for i := 0; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			rd.stopErr = &ReadError{Loc: loc, Err: err}
			return errChatboxStop
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := rd.session(raw, loc.Child(i), ""); err != nil {
			rd.stopErr = err
			return errChatboxStop
		}
	}
	_, err = dec.Token()
	return err
}

// chatboxSession is a Chatbox Session (any version from 1.9 on).
type chatboxSession struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Messages []json.RawMessage `json:"messages"`
	Threads  []struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Messages []json.RawMessage `json:"messages"`
	} `json:"threads"`
	MessageForksHash json.RawMessage `json:"messageForksHash"`
	Settings         *struct {
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	} `json:"settings"`
}

// chatboxList is one converted list of messages: canonical messages, and for each recorded
// message the number of canonical messages once it is converted (for fork prefixes).
type chatboxList struct {
	messages []Message
	ends     []int
	ids      []string
	notes    []string
	bytes    int64
	model    string
	provider string
}

// session converts one Session value and emits its conversations. keyID is the id from the
// `session:<id>` key ("" for the legacy array). It returns only the emitter's error.
func (rd *chatboxReader) session(raw json.RawMessage, loc Location, keyID string) error {
	sess, raw, ok := rd.decodeSession(raw, loc, keyID)
	if !ok {
		return nil
	}
	w := rd.newSessionWalk(sess, loc)
	if err := w.emit(w.baseID, w.title, w.main, w.main.messages, loc, recordedLen(raw), w.main.notes); err != nil {
		return err
	}
	if err := w.threads(); err != nil {
		return err
	}
	return w.forks()
}

// decodeSession decodes a session value (also one saved as a JSON string, the key-value
// store's own encoding) and returns it with the JSON it was decoded from. A field of the wrong
// type is reported and skipped; a value that is not a session is reported and not ok.
func (rd *chatboxReader) decodeSession(raw json.RawMessage, loc Location, keyID string) (*chatboxSession, json.RawMessage, bool) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			raw = json.RawMessage(s)
		}
	}
	var sess chatboxSession
	if err := json.Unmarshal(raw, &sess); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			rd.e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("session: %w", err)})
			return nil, raw, false
		}
		// A field of the wrong type: report it and keep what decoded.
		rd.e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("session field %q: %w (field skipped)", te.Field, err)})
	}
	if sess.ID == "" {
		sess.ID = keyID
	}
	return &sess, raw, true
}

// chatboxSessionWalk emits the conversations of one session: its main list, each thread and
// each fork. It knows which list holds each message id, so that a fork starts from the history
// before the message it forks.
type chatboxSessionWalk struct {
	rd              *chatboxReader
	sess            *chatboxSession
	loc             Location
	baseID, title   string
	model, provider string // from the session settings ("" when they name none)
	main            *chatboxList
	lists           map[string]*chatboxList // message id → the list holding it (for forks)
	listIndex       map[string]int          // message id → its index in that list
}

// newSessionWalk converts the session's main list and indexes its message ids.
func (rd *chatboxReader) newSessionWalk(sess *chatboxSession, loc Location) *chatboxSessionWalk {
	w := &chatboxSessionWalk{rd: rd, sess: sess, loc: loc, baseID: rd.name + "#" + sess.ID, title: sess.Name,
		lists: map[string]*chatboxList{}, listIndex: map[string]int{}}
	if w.title == "" {
		w.title = rd.titles[sess.ID]
	}
	w.main = rd.convertList(sess.Messages, loc.Child("messages"))
	for i, id := range w.main.ids {
		w.lists[id], w.listIndex[id] = w.main, i
	}
	w.model, w.provider = w.main.model, w.main.provider
	if sess.Settings != nil {
		if sess.Settings.ModelID != "" {
			w.model = sess.Settings.ModelID
		}
		if sess.Settings.Provider != "" {
			w.provider = sess.Settings.Provider
		}
	}
	return w
}

// emit sends one conversation of the session (none when msgs is empty), keeping its id unique
// in the backup; the model and provider are the session's, else the list's.
func (w *chatboxSessionWalk) emit(id, title string, l *chatboxList, msgs []Message, source Location, bytes int64, notes []string) error {
	if len(msgs) == 0 {
		return nil
	}
	rd := w.rd
	if n := rd.ids[id]; n > 0 {
		rd.ids[id]++
		notes = append(notes, fmt.Sprintf("conversation id %s occurs more than once in the backup; this one is %s~%d", id, id, n+1))
		id = fmt.Sprintf("%s~%d", id, n+1)
	} else {
		rd.ids[id] = 1
	}
	m, p := w.model, w.provider
	if m == "" {
		m = l.model
	}
	if p == "" {
		p = l.provider
	}
	return rd.e.Conversation(&Conversation{ID: id, Format: FormatChatbox, Source: source, Title: title,
		Model: m, Provider: p, Messages: msgs, Bytes: bytes, Notes: notes})
}

// threads emits each thread of the session as its own conversation.
func (w *chatboxSessionWalk) threads() error {
	for ti, t := range w.sess.Threads {
		tloc := w.loc.Child("threads").Child(ti)
		tl := w.rd.convertList(t.Messages, tloc.Child("messages"))
		for i, id := range tl.ids {
			if _, ok := w.lists[id]; !ok {
				w.lists[id], w.listIndex[id] = tl, i
			}
		}
		tid := t.ID
		if tid == "" {
			tid = fmt.Sprint(ti)
		}
		ttitle := w.title
		if t.Name != "" {
			ttitle = strings.TrimSpace(w.title + " / " + t.Name)
		}
		if err := w.emit(w.baseID+"/thread/"+tid, ttitle, tl, tl.messages, tloc, tl.bytes, tl.notes); err != nil {
			return err
		}
	}
	return nil
}

// forks emits each list of messageForksHash that is not the live branch as its own
// conversation: the history before the forked message, then the fork's messages.
func (w *chatboxSessionWalk) forks() error {
	hash := w.sess.MessageForksHash
	if len(hash) == 0 || string(hash) == "null" {
		return nil
	}
	forks, err := jsObjectMembers(hash)
	if err != nil {
		w.rd.e.Problem(&ReadError{Loc: w.loc.Child("messageForksHash"), Err: fmt.Errorf("messageForksHash: %w", err)})
		return nil
	}
	for _, fork := range forks {
		floc := w.loc.Child("messageForksHash").Child(fork.Key)
		var entry struct {
			Lists []struct {
				ID       string            `json:"id"`
				Messages []json.RawMessage `json:"messages"`
			} `json:"lists"`
		}
		if err := json.Unmarshal(fork.Value, &entry); err != nil {
			w.rd.e.Problem(&ReadError{Loc: floc, Err: fmt.Errorf("fork entry: %w", err)})
			continue
		}
		for n, list := range entry.Lists {
			if len(list.Messages) == 0 {
				continue // the live branch: its messages are the session's
			}
			if err := w.fork(fork.Key, n, list.Messages, floc.Child("lists").Child(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fork emits list n of the fork at message key.
func (w *chatboxSessionWalk) fork(key string, n int, raws []json.RawMessage, lloc Location) error {
	fl := w.rd.convertList(raws, lloc.Child("messages"))
	var msgs []Message
	notes := fl.notes
	if owner, ok := w.lists[key]; ok {
		prefix := owner.messages[:owner.ends[w.listIndex[key]]]
		msgs = make([]Message, 0, len(prefix)+len(fl.messages))
		msgs = append(msgs, prefix...)
		notes = append(append([]string(nil), owner.notes...), notes...)
	} else {
		notes = append(notes, fmt.Sprintf("fork message %s is not in the session's messages or threads; the fork is replayed without the history before it", key))
	}
	msgs = append(msgs, fl.messages...)
	return w.emit(fmt.Sprintf("%s/fork/%s/%d", w.baseID, key, n), w.title, fl, msgs, lloc, fl.bytes, notes)
}

// chatboxMessage is a Chatbox Message: the contentParts shape (1.11.7+) or the legacy
// content/pictures shape.
type chatboxMessage struct {
	ID           string          `json:"id"`
	Role         string          `json:"role"`
	Name         string          `json:"name"`
	ContentParts json.RawMessage `json:"contentParts"`
	Content      json.RawMessage `json:"content"`
	Pictures     []struct {
		URL        string `json:"url"`
		StorageKey string `json:"storageKey"`
	} `json:"pictures"`
	AIProvider  string          `json:"aiProvider"`
	Model       string          `json:"model"`
	WebBrowsing json.RawMessage `json:"webBrowsing"`
	ToolCalls   json.RawMessage `json:"toolCalls"`
}

// chatboxPart is one element of contentParts.
type chatboxPart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	StorageKey string          `json:"storageKey"`
	URL        string          `json:"url"`
	State      string          `json:"state"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
	Result     json.RawMessage `json:"result"`
}

// chatboxDecodePart decodes one content part without copying its args and result.
func chatboxDecodePart(raw []byte, loc Location) (chatboxPart, *ReadError) {
	var p chatboxPart
	members, err := jsObjectMembers(raw)
	if err != nil {
		return p, &ReadError{Loc: loc, Err: fmt.Errorf("content part: %w", err)}
	}
	for _, m := range members {
		var dst *string
		switch m.Key {
		case "type":
			dst = &p.Type
		case "text":
			dst = &p.Text
		case "storageKey":
			dst = &p.StorageKey
		case "url":
			dst = &p.URL
		case "state":
			dst = &p.State
		case "toolCallId":
			dst = &p.ToolCallID
		case "toolName":
			dst = &p.ToolName
		case "args":
			p.Args = json.RawMessage(m.Value)
		case "result":
			p.Result = json.RawMessage(m.Value)
		}
		if dst == nil {
			continue
		}
		if rerr := decodeStringMember(dst, m.Key, m.Value, loc, "content part"); rerr != nil {
			return p, rerr
		}
	}
	return p, nil
}

// convertList converts the recorded messages of one list.
func (rd *chatboxReader) convertList(raws []json.RawMessage, loc Location) *chatboxList {
	l := &chatboxList{}
	counts := map[string]int{}
	for i, raw := range raws {
		l.bytes += recordedLen(raw)
		mloc := loc.Child(i)
		var m chatboxMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				rd.e.Problem(&ReadError{Loc: mloc, Err: fmt.Errorf("message: %w", err)})
				l.ends = append(l.ends, len(l.messages))
				l.ids = append(l.ids, "")
				continue
			}
			rd.e.Problem(&ReadError{Loc: mloc, Err: fmt.Errorf("message field %q: %w (field skipped)", te.Field, err)})
		}
		rd.convertMessage(l, &m, raw, mloc, counts)
		l.ends = append(l.ends, len(l.messages))
		l.ids = append(l.ids, m.ID)
		if m.Role == "assistant" && m.Model != "" {
			l.model, l.provider = m.Model, m.AIProvider
		}
	}
	for _, k := range []string{"info parts", "tool calls without a result", "unknown part types",
		"legacy webBrowsing records", "legacy toolCalls records", "messages of unknown role"} {
		if n := counts[k]; n > 0 {
			l.notes = append(l.notes, fmt.Sprintf("skipped %d %s", n, k))
		}
	}
	return l
}

func chatboxRole(role string) (Role, Origin, bool) {
	switch role {
	case "system":
		return RoleSystem, OriginUser, true
	case "user":
		return RoleUser, OriginUser, true
	case "assistant":
		return RoleAssistant, OriginAssistant, true
	case "tool":
		return RoleTool, OriginTool, true
	}
	return "", "", false
}

// convertMessage appends the canonical messages of one recorded message. An assistant message
// holding tool-call parts is split at each run of calls: the assistant message with the calls,
// one tool message per result, then the assistant's following parts as another message.
func (rd *chatboxReader) convertMessage(l *chatboxList, m *chatboxMessage, raw json.RawMessage, loc Location, counts map[string]int) {
	role, origin, ok := chatboxRole(m.Role)
	if !ok {
		counts["messages of unknown role"]++
		return
	}
	// parts stays in this frame (it does not escape): its backing store need not be allocated
	var parts []json.RawMessage
	if len(m.ContentParts) > 0 && m.ContentParts[0] == '[' {
		elems, err := jsArrayElements(m.ContentParts)
		if err != nil {
			rd.e.Problem(&ReadError{Loc: loc.Child("contentParts"), Err: fmt.Errorf("contentParts: %w", err)})
		}
		for _, el := range elems {
			parts = append(parts, json.RawMessage(el))
		}
	}
	head := Message{Role: role, Name: m.Name, Loc: loc}
	if len(parts) > 0 {
		rd.partsMessages(l, head, parts, raw, origin, counts)
		return
	}
	head.Raw = raw
	rd.legacyMessage(l, m, head, origin, counts)
}

// legacyMessage appends the message of a recorded message without content parts, as Chatbox's
// migrateMessage reads it: its content string, then its pictures as image parts (msg holds the
// rest of the message).
func (rd *chatboxReader) legacyMessage(l *chatboxList, m *chatboxMessage, msg Message, origin Origin, counts map[string]int) {
	loc := msg.Loc
	var text string
	if len(m.Content) > 0 && m.Content[0] == '"' {
		_ = json.Unmarshal(m.Content, &text)
	}
	if text != "" {
		msg.Parts = append(msg.Parts, Part{Kind: PartText, Text: text, Loc: loc.Child("content")})
	}
	for i, p := range m.Pictures {
		ploc := loc.Child("pictures").Child(i)
		if part, ok := rd.picturePart(p.StorageKey, p.URL, origin, ploc); ok {
			msg.Parts = append(msg.Parts, part)
		}
	}
	if len(m.WebBrowsing) > 0 && string(m.WebBrowsing) != "null" {
		counts["legacy webBrowsing records"]++
	}
	if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
		counts["legacy toolCalls records"]++
	}
	if len(msg.Parts) > 0 {
		l.messages = append(l.messages, msg)
	}
}

// partsMessages appends the messages of a recorded message's content parts, split at each run of
// tool calls (head is the message without parts; raw is kept when it is not split).
func (rd *chatboxReader) partsMessages(l *chatboxList, head Message, parts []json.RawMessage, raw json.RawMessage, origin Origin, counts map[string]int) {
	cur := head
	var pendingResults []Message
	split := false
	flush := func() {
		if len(cur.Parts) > 0 {
			l.messages = append(l.messages, cur)
		}
		l.messages = append(l.messages, pendingResults...)
		pendingResults = nil
		cur = head
	}
	for i, praw := range parts {
		ploc := head.Loc.Child("contentParts").Child(i)
		p, err := chatboxDecodePart(praw, ploc)
		if err != nil {
			rd.e.Problem(err)
			continue
		}
		if p.Type != "tool-call" && len(pendingResults) > 0 {
			flush()
		}
		switch p.Type {
		case "text":
			cur.Parts = append(cur.Parts, Part{Kind: PartText, Text: p.Text, Loc: ploc})
		case "reasoning":
			cur.Parts = append(cur.Parts, Part{Kind: PartOpaque, Text: p.Text, Loc: ploc})
		case "info":
			counts["info parts"]++
		case "image":
			if part, ok := rd.picturePart(p.StorageKey, p.URL, origin, ploc); ok {
				cur.Parts = append(cur.Parts, part)
			}
		case "tool-call":
			call, result, ok := rd.toolCall(&p, ploc, head.Loc, counts)
			if !ok {
				continue
			}
			split = true
			cur.Parts = append(cur.Parts, call)
			pendingResults = append(pendingResults, result)
		default:
			counts["unknown part types"]++
		}
	}
	if !split {
		cur.Raw = raw
	}
	flush()
}

// toolCall converts a tool-call part into the assistant's call part and the tool message
// holding its result; ok is false for a call without a result.
func (rd *chatboxReader) toolCall(p *chatboxPart, ploc, mloc Location, counts map[string]int) (Part, Message, bool) {
	if p.State != "result" && p.State != "error" {
		counts["tool calls without a result"]++
		return Part{}, Message{}, false
	}
	args := "{}"
	if len(p.Args) > 0 && string(p.Args) != "null" {
		if out, err := jsAppendStringified(nil, p.Args); err == nil {
			args = string(out)
		}
	}
	call := Part{Kind: PartToolCall, ToolCall: &ToolCall{ID: p.ToolCallID, Name: p.ToolName, Arguments: args}, Loc: ploc}
	rloc := ploc.Child("result")
	tr := &ToolResult{CallID: p.ToolCallID, Name: p.ToolName}
	result := p.Result
	switch {
	case p.State == "error":
		tr.IsError, tr.IsText = true, true
		var er struct {
			Error json.RawMessage `json:"error"`
		}
		var msg string
		if json.Unmarshal(result, &er) == nil && len(er.Error) > 0 && er.Error[0] == '"' && json.Unmarshal(er.Error, &msg) == nil {
			tr.Text = msg
		} else {
			tr.Text = chatboxStringify(result)
		}
	case len(result) > 0 && result[0] == '"':
		var s string
		if json.Unmarshal(result, &s) == nil {
			tr.Text, tr.IsText = s, true
		}
	case len(result) > 0 && result[0] == '{':
		res, err := parseCallToolResult(result, rloc, false)
		if err == nil {
			tr.MCP, tr.IsError = res, res.IsError
			tr.Text = StringifyAISDK(res, AISDKEraContent)
			break
		}
		if !errors.Is(err, errNoContentArray) {
			var re *ReadError
			if !errors.As(err, &re) {
				re = &ReadError{Loc: rloc, Err: err}
			}
			rd.e.Problem(re)
		}
		tr.Text = chatboxStringify(result)
	default:
		tr.Text = chatboxStringify(result)
	}
	msg := Message{Role: RoleTool, Name: p.ToolName, ToolCallID: p.ToolCallID, Loc: mloc,
		Parts: []Part{{Kind: PartToolResult, ToolResult: tr, Loc: rloc}}}
	return call, msg, true
}

// chatboxStringify is JSON.stringify of a recorded value ("null" for none).
func chatboxStringify(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	out, err := jsAppendStringified(nil, raw)
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// picturePart converts a picture named by storageKey or url: a storage key or remote URL
// becomes a Reference (never opened or fetched), a data: URL an Image.
func (rd *chatboxReader) picturePart(storageKey, url string, origin Origin, loc Location) (Part, bool) {
	switch {
	case strings.HasPrefix(url, "data:"):
		img, err := chatboxDataURL(url, origin)
		if err != nil {
			rd.e.Problem(&ReadError{Loc: loc.Child("url"), Err: err})
			return Part{}, false
		}
		return Part{Kind: PartImage, Image: img, Loc: loc.Child("url")}, true
	case storageKey != "":
		return Part{Kind: PartReference, Loc: loc.Child("storageKey"), Ref: &Reference{Kind: "storage-key",
			Target: storageKey, Origin: origin, Reason: chatboxStorageKeyReason}}, true
	case strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://"):
		return Part{Kind: PartReference, Loc: loc.Child("url"), Ref: &Reference{Kind: "url", Target: url,
			Origin: origin, Reason: "remote picture named by the backup; never fetched"}}, true
	case url != "":
		return Part{Kind: PartReference, Loc: loc.Child("url"), Ref: &Reference{Kind: "url", Target: url,
			Origin: origin, Reason: "picture URL the backup names but does not carry"}}, true
	}
	return Part{}, false
}

// chatboxDataURL decodes a data:<type>;base64,<payload> picture.
func chatboxDataURL(url string, origin Origin) (*Image, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	if !ok {
		return nil, errors.New("data URL without a comma")
	}
	mime, params, _ := strings.Cut(meta, ";")
	if !strings.Contains(";"+params+";", ";base64;") && params != "base64" {
		return nil, fmt.Errorf("data URL %.40q is not base64", meta)
	}
	clean := strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, payload)
	data, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		if d2, err2 := base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "=")); err2 == nil {
			data, err = d2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("data URL base64: %w", err)
	}
	return &Image{Data: data, DeclaredType: mime, Origin: origin, Encoding: "data-url"}, nil
}
