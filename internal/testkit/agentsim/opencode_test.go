package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chatPost posts a Chat Completions body and returns the answer's raw text.
func chatPost(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, b)
	}
	return string(b)
}

// chatChunks parses a streamed answer's chunks, which must end in [DONE].
func chatChunks(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	done := false
	for _, line := range strings.Split(stream, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		out = append(out, m)
	}
	if !done || len(out) != 2 {
		t.Fatalf("stream %q: want two chunks then [DONE]", stream)
	}
	return out
}

func TestChatScriptCallsTheMCPToolThenReadsTheFile(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(&modelServer{dir: dir, picture: "/p/screen.png", log: io.Discard})
	defer srv.Close()
	tools := `"tools":[{"type":"function","function":{"name":"read","parameters":{"required":["filePath"]}}},` +
		`{"type":"function","function":{"name":"shots_screenshot","parameters":{}}}]`
	call := func(stream string) map[string]any {
		chunks := chatChunks(t, stream)
		choice := chunks[0]["choices"].([]any)[0].(map[string]any)
		calls, _ := choice["delta"].(map[string]any)["tool_calls"].([]any)
		if len(calls) != 1 {
			t.Fatalf("want one tool call, got %v", choice)
		}
		if chunks[1]["usage"] == nil || chunks[1]["choices"].([]any)[0].(map[string]any)["finish_reason"] != "tool_calls" {
			t.Errorf("last chunk %v: want tool_calls and the usage", chunks[1])
		}
		return calls[0].(map[string]any)["function"].(map[string]any)
	}
	first := `{"model":"m","stream":true,` + tools + `,"messages":[{"role":"user","content":"go"}]}`
	if fn := call(chatPost(t, srv.URL, first)); fn["name"] != "shots_screenshot" || fn["arguments"] != "{}" {
		t.Errorf("first step: %v, want the MCP tool", fn)
	}
	second := `{"model":"m","stream":true,` + tools + `,"messages":[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"shots_screenshot","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"a","content":"x"}]}`
	if fn := call(chatPost(t, srv.URL, second)); fn["name"] != "read" || fn["arguments"] != `{"filePath":"/p/screen.png"}` {
		t.Errorf("second step: %v, want the file read", fn)
	}
	// A side query without tools (OpenCode's title) is answered in text, here not streamed.
	var whole struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	title := chatPost(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"title?"}]}`)
	if err := json.Unmarshal([]byte(title), &whole); err != nil || len(whole.Choices) != 1 || whole.Choices[0].Message.Content != answerText {
		t.Errorf("side query: %s (%v)", title, err)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "001-v1-chat-completions.json"))
	if err != nil || string(kept) != first {
		t.Errorf("kept %q (%v), want the first body as sent", kept, err)
	}
}
