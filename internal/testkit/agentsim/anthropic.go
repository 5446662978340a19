package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropicRequest is what the script reads of an Anthropic Messages request.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// claudeTools are Claude Code's names of the tools the script calls.
var claudeTools = toolNames{search: "ToolSearch", shot: "mcp__shots__" + shotTool, read: "Read"}

// anthropicTools are the tools a Messages request offers and those its conversation called.
func anthropicTools(req anthropicRequest) ([]string, map[string]bool) {
	var offered []string
	for _, t := range req.Tools {
		offered = append(offered, t.Name)
	}
	called := map[string]bool{}
	for _, m := range req.Messages {
		var blocks []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if m.Role != "assistant" || json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_use" {
				called[b.Name] = true
			}
		}
	}
	return offered, called
}

// anthropic answers a Messages request: streamed as server-sent events when asked, else as one
// message.
func (s *modelServer) anthropic(w http.ResponseWriter, body []byte, n int) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "agentsim: "+err.Error(), http.StatusBadRequest)
		return
	}
	st, tool := s.claudeStep(req)
	var block map[string]any
	input := map[string]any{}
	stop := "tool_use"
	switch st {
	case stepSearch:
		input = map[string]any{"query": "select:" + claudeTools.shot}
		block = map[string]any{"type": "tool_use", "id": "toolu_search", "name": tool, "input": map[string]any{}}
	case stepShot:
		block = map[string]any{"type": "tool_use", "id": "toolu_shot", "name": tool, "input": map[string]any{}}
	case stepRead:
		input = readInput(tool, s.picture)
		block = map[string]any{"type": "tool_use", "id": "toolu_read", "name": tool, "input": map[string]any{}}
	case stepAgent:
		input = subagentInput()
		block = map[string]any{"type": "tool_use", "id": "toolu_agent", "name": tool, "input": map[string]any{}}
	default:
		block = map[string]any{"type": "text", "text": ""}
		stop = "end_turn"
	}
	usage := map[string]any{"input_tokens": len(body) / 4, "output_tokens": 12, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
	msg := map[string]any{"id": fmt.Sprintf("msg_agentsim_%03d", n), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
	if !req.Stream {
		whole := map[string]any{}
		for k, v := range block {
			whole[k] = v
		}
		if st == stepAnswer {
			whole["text"] = answerText
		} else {
			whole["input"] = input
		}
		msg["content"], msg["stop_reason"] = []any{whole}, stop
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
		return
	}
	var delta map[string]any
	if st == stepAnswer {
		delta = map[string]any{"type": "text_delta", "text": answerText}
	} else {
		in, _ := json.Marshal(input)
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
	}
	ev := newSSE(w)
	ev.send("message_start", map[string]any{"type": "message_start", "message": msg})
	ev.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
	ev.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	ev.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 12}})
	ev.send("message_stop", map[string]any{"type": "message_stop"})
}

// sse writes server-sent events, each flushed as it is written.
type sse struct {
	w http.ResponseWriter
}

// newSSE starts an event stream on w.
func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w: w}
}

// send writes one event named name whose data is v in JSON.
func (e sse) send(name string, v any) {
	data, _ := json.Marshal(v)
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, data)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}
