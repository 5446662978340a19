package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// chatRequest is what the script reads of an OpenAI Chat Completions request.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role      string `json:"role"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// chatReadTool is OpenCode's tool that reads a file.
const chatReadTool = "read"

// chatStep is the script's next step for a Chat Completions request, the tool it calls and,
// for the file read, the name of the tool's path parameter. The MCP tool is the offered one
// whose name ends in the screenshot tool's (OpenCode names it <server>_<tool>).
func chatStep(req chatRequest) (step, string, string) {
	var offered []string
	names := toolNames{read: chatReadTool}
	pathParam := "filePath"
	for _, t := range req.Tools {
		offered = append(offered, t.Function.Name)
		if strings.HasSuffix(t.Function.Name, "_"+shotTool) {
			names.shot = t.Function.Name
		}
		if t.Function.Name == chatReadTool {
			pathParam = firstPathParam(t.Function.Parameters, nil, pathParam)
		}
	}
	called := map[string]bool{}
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			if m.Role == "assistant" {
				called[c.Function.Name] = true
			}
		}
	}
	st, tool := nextStep(names, offered, called)
	return st, tool, pathParam
}

// chat answers a Chat Completions request, streamed as chunks (then [DONE]) when asked, else
// as one completion; the usage is in the last chunk.
func (s *modelServer) chat(w http.ResponseWriter, body []byte, n int) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "agentsim: "+err.Error(), http.StatusBadRequest)
		return
	}
	st, tool, pathParam := chatStep(req)
	msg := map[string]any{"role": "assistant", "content": answerText}
	finish := "stop"
	if st == stepShot || st == stepRead {
		args := "{}"
		if st == stepRead {
			b, _ := json.Marshal(map[string]string{pathParam: s.picture})
			args = string(b)
		}
		msg["content"], finish = nil, "tool_calls"
		msg["tool_calls"] = []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%03d", n), "type": "function",
			"function": map[string]any{"name": tool, "arguments": args}}}
	}
	usage := map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": 12, "total_tokens": len(body)/4 + 12}
	id := fmt.Sprintf("chatcmpl-agentsim-%03d", n)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		data, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	ev := newSSE(w)
	chunk(msg, nil, nil)
	chunk(map[string]any{}, finish, usage)
	fmt.Fprint(ev.w, "data: [DONE]\n\n")
	if f, ok := ev.w.(http.Flusher); ok {
		f.Flush()
	}
}
