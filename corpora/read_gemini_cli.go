package corpora

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// sniffGeminiCLI: a Gemini CLI session (~/.gemini/tmp/<project>/chats/session-*.jsonl) is JSON
// Lines that opens with the session's sessionId, projectHash and startTime.
func sniffGeminiCLI(f fileHead) bool {
	return f.startsWith("{") && f.has(`"sessionId"`) && f.has(`"projectHash"`)
}

// geminiMissing is the note every Gemini CLI request carries: what the session does not record.
const geminiMissing = "Gemini CLI does not record the system instruction and tool declarations it sends with each request: " +
	"they are not counted; Gemini CLI 0.61.0 sent 30 KB of system instruction and 15 KB of tool declarations with every request, " +
	"about 6,100 and 3,200 tokens (o200k_base)"

// geminiRecord is what the reader takes from one line of a Gemini CLI session: a message (with
// the usage of a model turn), or a $set that replaces the messages.
type geminiRecord struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
	Model   string          `json:"model"`
	Tokens  *struct {
		Input  int `json:"input"`
		Output int `json:"output"`
		Cached int `json:"cached"`
	} `json:"tokens"`
	ToolCalls []struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"toolCalls"`
	Set *struct {
		Messages []geminiRecord `json:"messages"`
	} `json:"$set"`
}

// geminiSession rebuilds the requests of one Gemini CLI session.
type geminiSession struct {
	name, base string
	e          Emitter
	spool      spool
	contents   []spoolRef // the contents sent so far, as Gemini API contents
	ids        []string   // the message id of each content ("" for none)
	lastTurn   string     // the id of the model turn last taken
	requests   int
}

// readGeminiCLI reads a Gemini CLI session: one conversation per request Gemini CLI sent, the
// contents recorded before each model turn, with the usage recorded for that turn.
func readGeminiCLI(ctx context.Context, name string, r io.Reader, e Emitter) error {
	s := &geminiSession{name: name, base: filepath.Base(name), e: e}
	defer s.spool.close()
	return agentRecords(ctx, name, r, e, s.record)
}

// record takes one record of the session.
func (s *geminiSession) record(rec geminiRecord, loc Location) error {
	if rec.Set != nil && rec.Set.Messages != nil {
		s.contents, s.ids = nil, nil
		for i, m := range rec.Set.Messages {
			if err := s.message(m, loc.Child("$set").Child("messages").Child(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return s.message(rec, loc)
}

// message takes a user message into the contents; a model turn ends a request, which is
// emitted, and joins the contents as the model's content. A turn recorded again under its
// id (with its tool calls) replaces the content it added.
func (s *geminiSession) message(rec geminiRecord, loc Location) error {
	switch rec.Type {
	case "user":
		var parts []json.RawMessage
		if json.Unmarshal(rec.Content, &parts) != nil {
			var text string
			if err := json.Unmarshal(rec.Content, &text); err != nil {
				s.e.Problem(&ReadError{Loc: loc.Child("content"), Err: fmt.Errorf("content must be an array of parts or a string")})
				return nil
			}
			raw, _ := json.Marshal([]map[string]string{{"text": text}})
			rec.Content = raw
		}
		return s.add(rec.ID, "user", geminiWireIDs(rec.Content))
	case "gemini":
		if rec.ID != "" && rec.ID == s.lastTurn && len(s.ids) > 0 && s.ids[len(s.ids)-1] == rec.ID {
			s.contents, s.ids = s.contents[:len(s.contents)-1], s.ids[:len(s.ids)-1]
		} else if err := s.emit(rec, loc); err != nil {
			return err
		}
		s.lastTurn = rec.ID
		return s.add(rec.ID, "model", s.modelParts(rec))
	}
	return nil
}

// modelParts are the parts of a model turn as Gemini CLI sends them back: its text, then a
// functionCall per tool call.
func (s *geminiSession) modelParts(rec geminiRecord) json.RawMessage {
	var parts []any
	var text string
	if json.Unmarshal(rec.Content, &text) == nil && text != "" {
		parts = append(parts, map[string]string{"text": text})
	}
	for _, c := range rec.ToolCalls {
		args := c.Args
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": geminiWireID(c.ID, c.Name), "name": c.Name, "args": args}})
	}
	raw, _ := json.Marshal(parts)
	return raw
}

// add appends a content of role and parts; a user content after another joins its parts, as
// Gemini CLI sends them.
func (s *geminiSession) add(id, role string, parts json.RawMessage) error {
	if n := len(s.contents); role == "user" && n > 0 {
		prev, err := s.spool.get(s.contents[n-1])
		if err != nil {
			return err
		}
		var c struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		}
		var more []json.RawMessage
		if json.Unmarshal(prev, &c) == nil && c.Role == "user" && json.Unmarshal(parts, &more) == nil {
			s.contents, s.ids = s.contents[:n-1], s.ids[:n-1]
			parts, _ = json.Marshal(append(c.Parts, more...))
		}
	}
	raw, _ := json.Marshal(map[string]any{"role": role, "parts": parts})
	ref, err := s.spool.put(raw)
	if err != nil {
		return err
	}
	s.contents, s.ids = append(s.contents, ref), append(s.ids, id)
	return nil
}

// emit sends the request a model turn answered: the contents so far, with the turn's usage.
func (s *geminiSession) emit(turn geminiRecord, loc Location) error {
	if len(s.contents) == 0 {
		return nil
	}
	s.requests++
	body, err := agentRequest(&s.spool, turn.Model, "contents", nil, s.contents)
	if err != nil {
		return err
	}
	var usage *ServerUsage
	if t := turn.Tokens; t != nil {
		usage = &ServerUsage{Status: 200, PromptTokens: t.Input, CachedTokens: t.Cached, CompletionTokens: t.Output}
	}
	return agentEmit(s.e, s.name, geminiAPI(), body, loc, fmt.Sprintf("%s#%d", s.base, s.requests-1), FormatGeminiCLI, "", usage, geminiMissing)
}

// geminiWireID is a call id as Gemini CLI sends it: the session keeps it as "<name>__<id>".
func geminiWireID(id, name string) string {
	return strings.TrimPrefix(id, name+"__")
}

// geminiWireIDs gives the functionResponse parts of user content their call ids as sent.
func geminiWireIDs(content json.RawMessage) json.RawMessage {
	var parts []map[string]json.RawMessage
	if json.Unmarshal(content, &parts) != nil {
		return content
	}
	changed := false
	for _, p := range parts {
		var fr map[string]json.RawMessage
		if json.Unmarshal(p["functionResponse"], &fr) != nil {
			continue
		}
		var id, name string
		if json.Unmarshal(fr["id"], &id) != nil || json.Unmarshal(fr["name"], &name) != nil || geminiWireID(id, name) == id {
			continue
		}
		fr["id"], _ = json.Marshal(geminiWireID(id, name))
		p["functionResponse"], _ = json.Marshal(fr)
		changed = true
	}
	if !changed {
		return content
	}
	out, _ := json.Marshal(parts)
	return out
}
