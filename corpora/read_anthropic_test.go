package corpora

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

// anthropicSignature is a thinking signature shaped like the API's (base64 of opaque bytes).
const anthropicSignature = "EtwCCkYICxgCKkCEz+rKTIOYZe9QecQgik+7E+vvKt4yO1gnBuWc27qeE01iRBUIVDCuDDcS9/A//OwuDQdo6Ev6D/cdzdWwzk5jEgyJ=="

// anthropicBody builds a Messages request the way @ai-sdk/anthropic writes a tool round whose
// MCP result carried two screenshots, after an assistant turn with interleaved thinking.
func anthropicBody(t testing.TB, a, b []byte) string {
	t.Helper()
	return `{"model":"claude-sonnet-4-5","max_tokens":4096,"system":[{"type":"text","text":"You are a browser agent.","cache_control":{"type":"ephemeral"}}],"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"Compare the two pages."}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Two screenshots needed.","signature":"` + anthropicSignature + `"},{"type":"tool_use","id":"toolu_01","name":"screenshot","input":{"urls": ["https://a.example", "https://b.example"]}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"Captured 2 pages"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(a) + `"}},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"` + base64.StdEncoding.EncodeToString(b) + `"}}]},` +
		`{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":"timeout"},` +
		`{"type":"text","text":"Which is darker?"},{"type":"image","source":{"type":"url","url":"https://example.com/ref.png"}}]},` +
		`{"role":"assistant","content":[{"type":"redacted_thinking","data":"RWQxMjM0NTY3OA=="},{"type":"text","text":"The first."}]}` +
		`],"tools":[{"name":"screenshot","description":"Take screenshots","input_schema":{"type":"object","properties":{"urls":{"type":"array"}}}},{"type":"web_search_20250305","name":"web_search"}],"thinking":{"type":"enabled","budget_tokens":2048}}`
}

func TestReadAnthropic(t *testing.T) {
	a, b := apiTestPNG(t, 100, 80), apiTestPNG(t, 90, 70)
	body := anthropicBody(t, a, b)
	c, err := apiRead(t, readAnthropic, "a.json", body)
	if err != nil || len(c.Problems) != 0 || len(c.Conversations) != 1 {
		t.Fatalf("err %v, %d conversations, problems:\n%s", err, len(c.Conversations), apiShortProblems(c))
	}
	conv := c.Conversations[0]
	if conv.Format != FormatAnthropic || conv.Model != "claude-sonnet-4-5" || len(conv.Tools) != 2 || conv.Tools[1].Name != "web_search" {
		t.Errorf("header %q %q tools %+v", conv.Format, conv.Model, conv.Tools)
	}
	// tool_result blocks split out in block order: tool, tool, then the user's own parts.
	if got := apiRoles(conv); got != "system,user,assistant,tool,tool,user,assistant" {
		t.Fatalf("roles = %s", got)
	}
	think := conv.Messages[2].Parts[0]
	if think.Kind != PartOpaque || !strings.Contains(think.Text, `"signature":"`+anthropicSignature+`"`) || think.Loc.Pointer != "/messages/1/content/0" {
		t.Errorf("thinking = %+v", think)
	}
	use := conv.Messages[2].Parts[1].ToolCall
	if use.ID != "toolu_01" || use.Name != "screenshot" || use.Arguments != `{"urls":["https://a.example","https://b.example"]}` {
		t.Errorf("tool_use = %+v", use)
	}
	if !bytes.Contains(conv.Messages[2].Raw, []byte(`"input":{"urls": ["https://a.example", "https://b.example"]}`)) {
		t.Errorf("assistant Raw lost the input as recorded")
	}
	tool := conv.Messages[3]
	res := tool.Parts[0].ToolResult
	if tool.ToolCallID != "toolu_01" || tool.Name != "screenshot" || res.IsText || len(res.Parts) != 3 || tool.Loc.Pointer != "/messages/2/content/0" {
		t.Fatalf("tool message = %+v / %+v", tool, res)
	}
	for i, want := range [][]byte{a, b} {
		p := res.Parts[i+1]
		if p.Kind != PartImage || p.Image.Origin != OriginTool || p.Image.Encoding != "base64" || apiSum(p.Image.Data) != apiSum(want) {
			t.Errorf("image %d = %+v", i, p)
		}
	}
	if res.Parts[2].Image.DeclaredType != "image/jpeg" || res.Parts[1].Loc.Pointer != "/messages/2/content/0/content/1/source/data" {
		t.Errorf("image label %q pointer %q", res.Parts[2].Image.DeclaredType, res.Parts[1].Loc.Pointer)
	}
	if e := conv.Messages[4].Parts[0].ToolResult; !e.IsError || !e.IsText || e.Text != "timeout" {
		t.Errorf("error result = %+v", e)
	}
	user := conv.Messages[5]
	if user.Raw != nil || len(user.Parts) != 2 || user.Parts[0].Text != "Which is darker?" || user.Parts[1].Kind != PartReference {
		t.Errorf("user remainder = %+v", user)
	}
	if r := conv.Messages[6].Parts[0]; r.Kind != PartOpaque || r.Text != `{"type":"redacted_thinking","data":"RWQxMjM0NTY3OA=="}` {
		t.Errorf("redacted thinking = %+v", r)
	}
	if reqs := conv.Requests(); len(reqs) != 3 || len(reqs[1].Messages) != 5 || len(reqs[2].Messages) != 6 {
		t.Errorf("requests = %d", len(reqs))
	}
}

func TestReadAnthropicShapes(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		roles    string
		problems []string
	}{
		{"string content and system", `{"model":"claude","max_tokens":10,"system":"s","messages":[{"role":"user","content":"hi"}]}`, "system,user", nil},
		{"document and unknown blocks", `{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},{"type":"document","source":{"type":"file","file_id":"file_1"}},{"type":"search_result","x":1}]}]}`, "user", nil},
		{"tool_result without content", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}]}`, "tool", nil},
		{"messages not an array", `{"messages":"hi"}`, "", []string{"a:1:13 at /messages: messages must be an array, found a string"}},
		{"tool_result content of the wrong type", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":5}]}]}`, "", []string{"at /messages/0/content/0/content: tool_result content must be"}},
		{"bad base64 image", `{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO!!"}}]}]}`, "user", []string{"at /messages/0/content/0/source/data: image data: invalid base64 at byte 4"}},
		{"is_error not a boolean", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":"yes"}]}]}`, "", []string{"at /messages/0/content/0/is_error: expected a boolean"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := apiRead(t, readAnthropic, "a", tt.input)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Problems) != len(tt.problems) {
				t.Fatalf("problems:\n%s", apiShortProblems(c))
			}
			for i, want := range tt.problems {
				if !strings.Contains(c.Problems[i].Error(), want) {
					t.Errorf("problem %q, want %q", c.Problems[i], want)
				}
			}
			got := ""
			if len(c.Conversations) == 1 {
				got = apiRoles(c.Conversations[0])
			}
			if got != tt.roles {
				t.Errorf("roles = %q, want %q", got, tt.roles)
			}
		})
	}
}

func FuzzReadAnthropic(f *testing.F) {
	f.Add([]byte(anthropicBody(f, apiTestPNG(f, 4, 4), apiTestPNG(f, 3, 3))))
	f.Add([]byte(`{"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"tool_result","content":[{"type":"image","source":{}}]}]}]}`))
	apiAddFileSeeds(f, "testdata/api/*.anthropic.*")
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Collector
		rd := newRequestLogReader("fuzz", anthropicAPI(), &c)
		rd.maxRecord = 1 << 20
		_ = rd.read(context.Background(), bytes.NewReader(data))
		apiCheckInvariants(t, &c)
	})
}
