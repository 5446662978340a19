package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// responsesRequest is what the script reads of an OpenAI Responses request.
type responsesRequest struct {
	Model string `json:"model"`
	Input []struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"input"`
	Tools []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	} `json:"tools"`
}

// codexTools are Codex CLI's names of the tools the script calls: its MCP tools sit in a
// namespace of the request's tools (mcp__<server>), called by their own name in it.
var codexTools = toolNames{search: "tool_search", shot: "mcp__shots__" + shotTool, read: "view_image"}

// responsesStep is the script's next step for a Responses request and the tool it calls.
func responsesStep(req responsesRequest) (step, string) {
	var offered []string
	for _, t := range req.Tools {
		if t.Type == codexTools.search { // a hosted-style tool that the client runs: named by its type
			offered = append(offered, t.Type)
			continue
		}
		if t.Type == "namespace" {
			for _, in := range t.Tools {
				offered = append(offered, t.Name+"__"+in.Name)
			}
			continue
		}
		offered = append(offered, t.Name)
	}
	called := map[string]bool{}
	for _, it := range req.Input {
		if it.Type == codexTools.search+"_call" {
			called[codexTools.search] = true
		}
		if it.Type == "function_call" {
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + "__" + name
			}
			called[name] = true
		}
	}
	return nextStep(codexTools, offered, called)
}

// responses answers a Responses request as a stream of server-sent events: the one output
// item of the script's next step, then response.completed with usage.
func (s *modelServer) responses(w http.ResponseWriter, body []byte, n int) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "agentsim: "+err.Error(), http.StatusBadRequest)
		return
	}
	st, tool := responsesStep(req)
	var item map[string]any
	switch st {
	case stepSearch:
		item = map[string]any{"type": tool + "_call", "id": "ts_search", "call_id": "call_search", "execution": "client",
			"arguments": map[string]any{"query": shotTool}, "status": "completed"}
	case stepShot:
		ns, name, _ := strings.Cut(strings.TrimPrefix(tool, "mcp__"), "__")
		item = map[string]any{"type": "function_call", "id": "fc_shot", "call_id": "call_shot", "namespace": "mcp__" + ns, "name": name, "arguments": "{}", "status": "completed"}
	case stepRead:
		args, _ := json.Marshal(map[string]string{"path": s.picture})
		item = map[string]any{"type": "function_call", "id": "fc_view", "call_id": "call_view", "name": tool, "arguments": string(args), "status": "completed"}
	default:
		item = map[string]any{"type": "message", "id": "msg_answer", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": answerText, "annotations": []any{}}}}
	}
	resp := map[string]any{"id": fmt.Sprintf("resp_agentsim_%03d", n), "object": "response", "model": req.Model, "status": "in_progress", "output": []any{}}
	ev := newSSE(w)
	ev.send("response.created", map[string]any{"type": "response.created", "response": resp})
	ev.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if st == stepAnswer {
		ev.send("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_answer", "delta": answerText})
	}
	ev.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := map[string]any{}
	for k, v := range resp {
		done[k] = v
	}
	done["status"], done["output"] = "completed", []any{item}
	done["usage"] = map[string]any{"input_tokens": len(body) / 4, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 12, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": len(body)/4 + 12}
	ev.send("response.completed", map[string]any{"type": "response.completed", "response": done})
}
