package corpora

import (
	"encoding/json"
	"reflect"
)

// keepReturned spools the tool result Claude Code recorded beside a user message
// (toolUseResult), by the tool_use_id of the message's tool_result, when it is one the model
// could have been sent: content blocks (an MCP result), or a picture a tool read.
func (s *claudeSession) keepReturned(rec claudeRecord) error {
	if len(rec.ToolUseResult) == 0 {
		return nil
	}
	s.noteResizedRead(rec.ToolUseResult)
	var m struct {
		Content []struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
		} `json:"content"`
	}
	if json.Unmarshal(rec.Message, &m) != nil {
		return nil
	}
	id := ""
	for _, b := range m.Content {
		if b.Type == "tool_result" {
			if id != "" {
				return nil // one recorded result for several calls: whose is it?
			}
			id = b.ToolUseID
		}
	}
	content, ok := claudeReturnedContent(rec.ToolUseResult)
	if id == "" || !ok {
		return nil
	}
	ref, err := s.spool.put(s.withOriginals(content))
	if err != nil {
		return err
	}
	s.returned[id] = ref
	return nil
}

// claudeReturnedContent turns a toolUseResult into tool_result content: an array of text and
// image blocks as it is, a picture file Read returned ({type: image, file: {base64, type}}) as
// one image block.
func claudeReturnedContent(raw json.RawMessage) (json.RawMessage, bool) {
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &blocks) == nil && len(blocks) > 0 {
		for _, b := range blocks {
			if b.Type != "text" && b.Type != "image" {
				return nil, false
			}
		}
		return raw, true
	}
	var img struct {
		Type string `json:"type"`
		File struct {
			Base64 string `json:"base64"`
			Type   string `json:"type"`
		} `json:"file"`
	}
	if json.Unmarshal(raw, &img) != nil || img.Type != "image" || img.File.Base64 == "" {
		return nil, false
	}
	out, _ := json.Marshal([]any{map[string]any{"type": "image",
		"source": map[string]string{"type": "base64", "media_type": img.File.Type, "data": img.File.Base64}}})
	return out, true
}

// returnedMessages gives, by index into msgs, each user message whose tool results differ from
// what the session recorded beside them, rewritten with the recorded results, and how many
// results differ.
func (s *claudeSession) returnedMessages(msgs []claudeMessage) (map[int][]byte, int, error) {
	out := map[int][]byte{}
	changed := 0
	for i, m := range msgs {
		if m.role != "user" || len(s.returned) == 0 {
			continue
		}
		raw, err := s.spool.get(m.ref)
		if err != nil {
			return nil, 0, err
		}
		var msg struct {
			Role    string                       `json:"role"`
			Content []map[string]json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &msg) != nil {
			continue
		}
		n := 0
		for _, b := range msg.Content {
			var typ, id string
			_ = json.Unmarshal(b["type"], &typ)
			_ = json.Unmarshal(b["tool_use_id"], &id)
			ref, ok := s.returned[id]
			if typ != "tool_result" || !ok {
				continue
			}
			content, err := s.spool.get(ref)
			if err != nil {
				return nil, 0, err
			}
			if !sameJSON(b["content"], content) {
				b["content"] = append(json.RawMessage(nil), content...)
				n++
			}
		}
		if n > 0 {
			out[i], _ = json.Marshal(msg)
			changed += n
		}
	}
	return out, changed, nil
}

// sameJSON says whether a and b hold the same value, cache_control marks aside.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(dropCacheControl(va), dropCacheControl(vb))
}

// dropCacheControl removes every cache_control member of v.
func dropCacheControl(v any) any {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "cache_control")
		for k, x := range t {
			t[k] = dropCacheControl(x)
		}
	case []any:
		for i, x := range t {
			t[i] = dropCacheControl(x)
		}
	}
	return v
}

// sameRoles says whether two message lists match one for one by role.
func sameRoles(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Role != b[i].Role {
			return false
		}
	}
	return true
}
