package corpora

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
)

// sniffCodex: a Codex CLI rollout ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl) is JSON
// Lines of {timestamp, type, payload} records that opens with its session_meta.
func sniffCodex(f fileHead) bool {
	return f.startsWith("{") && f.has(`"type":"session_meta"`) && f.has(`"payload"`)
}

// codexRecord is what the reader takes from one line of a rollout.
type codexRecord struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// codexMissing is the note every Codex request carries: what the rollout does not record.
const codexMissing = "Codex CLI does not record the tool schemas it sends with each request (its own tools, " +
	"such as exec_command, apply_patch and view_image, and the MCP tools tool_search loaded): they are not counted; " +
	"Codex CLI 0.171.0 sent 11 KB of them with every request, about 2,500 tokens (o200k_base)"

// codexOutputs are the Responses items the model produces: a run of them is one response, and
// the request it answered is everything before it.
var codexOutputs = map[string]bool{"message:assistant": true, "function_call": true, "custom_tool_call": true,
	"tool_search_call": true, "reasoning": true, "local_shell_call": true, "web_search_call": true, "image_generation_call": true}

// codexSession rebuilds the requests of one rollout.
type codexSession struct {
	name, base   string
	e            Emitter
	spool        spool
	instructions []byte // the developer message of base_instructions, spooled as the first item
	items        []spoolRef
	model        string
	provider     string
	cut          int // where the current response's items begin (-1: none pending)
	requests     int
}

// readCodex reads a Codex CLI rollout: one conversation per request the agent sent, each the
// Responses items recorded before the model's answer to it (its base instructions first), with
// the usage of the token_count event that followed.
func readCodex(ctx context.Context, name string, r io.Reader, e Emitter) error {
	s := &codexSession{name: name, base: filepath.Base(name), e: e, cut: -1}
	defer s.spool.close()
	if err := agentRecords(ctx, name, r, e, s.record); err != nil {
		return err
	}
	return s.emit(nil, Location{File: name})
}

// record takes one record of the rollout.
func (s *codexSession) record(rec codexRecord, loc Location) error {
	switch rec.Type {
	case "session_meta":
		var m struct {
			Provider     string `json:"model_provider"`
			Instructions struct {
				Text string `json:"text"`
			} `json:"base_instructions"`
		}
		if rerr := agentRecord(rec.Payload, loc.Child("payload"), &m); rerr != nil {
			s.e.Problem(rerr)
			return nil
		}
		s.provider = m.Provider
		if m.Instructions.Text != "" {
			s.instructions, _ = json.Marshal(map[string]any{"type": "message", "role": "developer",
				"content": []any{map[string]string{"type": "input_text", "text": m.Instructions.Text}}})
		}
	case "compacted":
		return s.compacted(rec, loc)
	case "turn_context":
		var m struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(rec.Payload, &m) == nil && m.Model != "" {
			s.model = m.Model
		}
	case "response_item":
		var item struct {
			Type string `json:"type"`
			Role string `json:"role"`
		}
		if err := json.Unmarshal(rec.Payload, &item); err != nil || item.Type == "" {
			s.e.Problem(&ReadError{Loc: loc.Child("payload"), Err: fmt.Errorf("a response item with a type was expected")})
			return nil
		}
		key := item.Type
		if item.Type == "message" {
			key += ":" + item.Role
		}
		if codexOutputs[key] && s.cut < 0 {
			s.cut = len(s.items)
		}
		ref, err := s.spool.put(rec.Payload)
		if err != nil {
			return err
		}
		s.items = append(s.items, ref)
	case "event_msg":
		var ev struct {
			Type string `json:"type"`
			Info *struct {
				Last struct {
					Input  int `json:"input_tokens"`
					Cached int `json:"cached_input_tokens"`
					Output int `json:"output_tokens"`
				} `json:"last_token_usage"`
			} `json:"info"`
		}
		if json.Unmarshal(rec.Payload, &ev) != nil || ev.Type != "token_count" || ev.Info == nil {
			return nil
		}
		u := ev.Info.Last
		return s.emit(&ServerUsage{Status: 200, PromptTokens: u.Input, CachedTokens: u.Cached, CompletionTokens: u.Output}, loc)
	}
	return nil
}

// compacted takes a compaction of the context: the requests after it start from its
// replacement_history (Codex's summary of the conversation with what it keeps of it), so the
// items before it are no longer sent. A compaction that records no replacement_history
// leaves the items as they were.
func (s *codexSession) compacted(rec codexRecord, loc Location) error {
	var c struct {
		History []json.RawMessage `json:"replacement_history"`
	}
	if rerr := agentRecord(rec.Payload, loc.Child("payload"), &c); rerr != nil {
		s.e.Problem(rerr)
		return nil
	}
	if c.History == nil {
		return nil
	}
	if err := s.emit(nil, loc); err != nil { // a response left without its token_count
		return err
	}
	s.items = s.items[:0]
	for _, item := range c.History {
		ref, err := s.spool.put(item)
		if err != nil {
			return err
		}
		s.items = append(s.items, ref)
	}
	return nil
}

// emit sends the request whose answer began at cut, if any, with the usage reported for it.
func (s *codexSession) emit(usage *ServerUsage, loc Location) error {
	if s.cut < 0 {
		return nil
	}
	cut := s.cut
	s.cut = -1
	s.requests++
	body, err := agentRequest(&s.spool, s.model, "input", s.instructions, s.items[:cut])
	if err != nil {
		return err
	}
	return agentEmit(s.e, s.name, responsesAPI(), body, loc, fmt.Sprintf("%s#%d", s.base, s.requests-1), FormatCodex, s.provider, usage, codexMissing)
}
