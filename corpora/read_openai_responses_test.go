package corpora

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

// responsesBody builds a Responses request the way @ai-sdk/openai .responses() writes a tool
// round whose MCP result carried a screenshot (function_call_output with input_image).
func responsesBody(t testing.TB, toolPNG []byte) string {
	t.Helper()
	return `{"model":"gpt-5","instructions":"You are a browser agent.","input":[` +
		`{"role":"user","content":[{"type":"input_text","text":"Take a screenshot of example.com"}]},` +
		`{"type":"reasoning","id":"rs_01","encrypted_content":"gAAAAABoSIG==","summary":[]},` +
		`{"type":"function_call","call_id":"call_7","name":"screenshot","arguments":"{\"url\":\"https://example.com\"}","id":"fc_01"},` +
		`{"type":"function_call_output","call_id":"call_7","output":[{"type":"input_text","text":"Captured"},{"type":"input_image","image_url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(toolPNG) + `"}]},` +
		`{"type":"function_call","call_id":"call_8","name":"title","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_8","output":"Example Domain"},` +
		`{"role":"user","content":[{"type":"input_image","file_id":"file-abc"},{"type":"input_image","image_url":"https://example.com/x.png","detail":"low"}]}` +
		`],"tools":[{"type":"function","name":"screenshot","description":"Take one","parameters":{"type":"object","properties":{"url":{"type":"string"}}},"strict":false},{"type":"web_search_preview"}],"stream":true}`
}

func TestReadOpenAIResponses(t *testing.T) {
	pic := apiTestPNG(t, 200, 120)
	body := responsesBody(t, pic)
	c, err := apiRead(t, readOpenAIResponses, "r.json", body)
	if err != nil || len(c.Problems) != 0 || len(c.Conversations) != 1 {
		t.Fatalf("err %v, %d conversations, problems:\n%s", err, len(c.Conversations), apiShortProblems(c))
	}
	conv := c.Conversations[0]
	if conv.ID != "r.json#0" || conv.Format != FormatOpenAIResponses || conv.Model != "gpt-5" {
		t.Errorf("header %q %q %q", conv.ID, conv.Format, conv.Model)
	}
	if got := apiRoles(conv); got != "system,user,assistant,assistant,tool,assistant,tool,user" {
		t.Fatalf("roles = %s", got)
	}
	if len(conv.Tools) != 2 || conv.Tools[0].Name != "screenshot" || conv.Tools[1].Name != "web_search_preview" {
		t.Errorf("tools = %+v", conv.Tools)
	}
	if sys := conv.Messages[0]; sys.Parts[0].Text != "You are a browser agent." || sys.Loc.Pointer != "/instructions" {
		t.Errorf("system = %+v", sys)
	}
	if r := conv.Messages[2].Parts[0]; r.Kind != PartOpaque || !strings.Contains(r.Text, `"encrypted_content":"gAAAAABoSIG=="`) {
		t.Errorf("reasoning = %+v", r)
	}
	call := conv.Messages[3].Parts[0].ToolCall
	if call.ID != "call_7" || call.Name != "screenshot" || call.Arguments != `{"url":"https://example.com"}` {
		t.Errorf("call = %+v", call)
	}
	out := conv.Messages[4]
	res := out.Parts[0].ToolResult
	if out.ToolCallID != "call_7" || res.IsText || res.Name != "screenshot" || len(res.Parts) != 2 {
		t.Fatalf("output = %+v / %+v", out, res)
	}
	img := res.Parts[1]
	if img.Kind != PartImage || img.Image.Origin != OriginTool || img.Image.Encoding != "data-url" || apiSum(img.Image.Data) != apiSum(pic) {
		t.Errorf("output image = %+v", img)
	}
	if img.Loc.Pointer != "/input/3/output/1/image_url" {
		t.Errorf("image pointer = %q", img.Loc.Pointer)
	}
	if r := conv.Messages[6].Parts[0].ToolResult; !r.IsText || r.Text != "Example Domain" || r.Name != "title" {
		t.Errorf("string output = %+v", r)
	}
	last := conv.Messages[7].Parts
	if last[0].Kind != PartReference || last[0].Ref.Kind != "file" || last[1].Kind != PartReference || last[1].Ref.Target != "https://example.com/x.png" {
		t.Errorf("references = %+v", last)
	}
	if !bytes.Equal(conv.Messages[4].Raw, []byte(body[strings.Index(body, `{"type":"function_call_output","call_id":"call_7"`):strings.Index(body, `,{"type":"function_call","call_id":"call_8"`)])) {
		t.Errorf("Raw of the output item is not the recorded bytes")
	}
	if reqs := conv.Requests(); len(reqs) != 4 || len(reqs[1].Messages) != 5 {
		t.Errorf("requests = %d", len(reqs))
	}
}

func TestReadOpenAIResponsesShapes(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		roles    string
		problems []string
	}{
		{"string input", `{"model":"gpt-5","input":"hello"}`, "user", nil},
		{"instructions only, previous response", `{"instructions":"x","previous_response_id":"resp_1"}`, "system", nil},
		{"computer call and screenshot", `{"input":[{"type":"computer_call","call_id":"cc","action":{"type":"screenshot"}},{"type":"computer_call_output","call_id":"cc","output":{"type":"computer_screenshot","image_url":"https://x/y.png"}}]}`, "assistant,tool", nil},
		{"unknown item kept opaque", `{"input":[{"type":"web_search_call","id":"ws","status":"completed"},{"role":"developer","content":"d"}]}`, "assistant,system", nil},
		{"input of the wrong type", `{"input":7}`, "", []string{"r:1:10 at /input: input must be a string or an array of items, found a number"}},
		{"unknown role", `{"input":[{"role":"robot","content":"x"}]}`, "", []string{"at /input/0/role: unknown message role"}},
		{"bad base64 image", `{"input":[{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"data:image/png;base64,@@@@"}]}]}`, "tool", []string{"at /input/0/output/0/image_url: image data URL: invalid base64 at byte 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := apiRead(t, readOpenAIResponses, "r", tt.input)
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

func FuzzReadOpenAIResponses(f *testing.F) {
	f.Add([]byte(responsesBody(f, apiTestPNG(f, 4, 4))))
	f.Add([]byte(`{"input":"x"}` + "\n" + `[{"input":[{"type":"function_call_output","output":{}}]}]`))
	f.Add([]byte(`{"body":"{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\",\"image_url\":{\"url\":\"data:,x\"}}]}]}"}`))
	apiAddFileSeeds(f, "testdata/api/*.responses.*")
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Collector
		rd := newRequestLogReader("fuzz", responsesAPI(), &c)
		rd.maxRecord = 1 << 20
		_ = rd.read(context.Background(), bytes.NewReader(data))
		apiCheckInvariants(t, &c)
	})
}
