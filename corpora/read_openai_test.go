package corpora

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/zeebo/blake3"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
)

// apiTestPNG draws a w×h picture with a gradient and returns it PNG-encoded.
func apiTestPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x * 255 / max(w, 1)), G: uint8(y * 255 / max(h, 1)), B: uint8((x ^ y) & 0xff), A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// apiQuote returns s as a JSON string literal.
func apiQuote(t testing.TB, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apiRead runs a reader over input and collects everything.
func apiRead(t testing.TB, read ReaderFunc, name, input string) (*Collector, error) {
	t.Helper()
	var c Collector
	err := read(context.Background(), name, strings.NewReader(input), &c)
	return &c, err
}

// apiShortProblems renders problems for failure messages.
func apiShortProblems(c *Collector) string {
	var s []string
	for _, p := range c.Problems {
		s = append(s, p.Error())
	}
	return strings.Join(s, "\n")
}

// apiSum returns the hex sha256 of b.
func apiSum(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }

// apiRoles lists the roles of the messages.
func apiRoles(c *Conversation) string {
	var s []string
	for _, m := range c.Messages {
		s = append(s, string(m.Role))
	}
	return strings.Join(s, ",")
}

// vercelChatBody builds a Chat Completions body the way @ai-sdk/openai-compatible 2.0.x writes
// it for Chatbox 1.19/1.20 after an MCP screenshot tool call (docs/pipeline.md §11.3).
func vercelChatBody(t testing.TB, userPNG, toolPNG []byte) (body, toolContent string) {
	t.Helper()
	type textEl struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type imageEl struct {
		Type      string `json:"type"`
		Data      string `json:"data"`
		MediaType string `json:"mediaType"`
	}
	tc, err := json.Marshal([]any{
		textEl{"text", "Captured screenshot of https://example.com (1280x720)"},
		imageEl{"image-data", base64.StdEncoding.EncodeToString(toolPNG), "image/png"},
	})
	if err != nil {
		t.Fatal(err)
	}
	toolContent = string(tc)
	sys := "Current model: qwen2.5-vl-7b\nCurrent date: 2026-03-01\n Additional info for this conversation: use the tools\n\nYou are helpful."
	body = `{"model":"qwen2.5-vl-7b","temperature":0.7,"messages":[` +
		`{"role":"system","content":` + apiQuote(t, sys) + `},` +
		`{"role":"user","content":[{"type":"text","text":"What is on this page? Also look at my sketch."},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(userPNG) + `"}}]},` +
		`{"role":"assistant","content":"","tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"mcp__playwright__browser_take_screenshot","arguments":"{\"url\":\"https://example.com\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_abc123","content":` + apiQuote(t, toolContent) + `}` +
		`],"tools":[{"type":"function","function":{"name":"mcp__playwright__browser_take_screenshot","description":"Take a screenshot","parameters":{"type":"object","properties":{"url":{"type":"string"}},"additionalProperties":false}}}],"tool_choice":"auto","stream":true}`
	return body, toolContent
}

func TestReadOpenAIChatVercelShape(t *testing.T) {
	userPNG, toolPNG := apiTestPNG(t, 64, 48), apiTestPNG(t, 320, 200)
	body, toolContent := vercelChatBody(t, userPNG, toolPNG)
	c, err := apiRead(t, readOpenAIChat, "logs/chatbox-proxy.json", body)
	if err != nil || len(c.Problems) != 0 {
		t.Fatalf("err %v, problems:\n%s", err, apiShortProblems(c))
	}
	if len(c.Conversations) != 1 {
		t.Fatalf("got %d conversations, want 1", len(c.Conversations))
	}
	conv := c.Conversations[0]
	if conv.ID != "logs/chatbox-proxy.json#0" || conv.Format != FormatOpenAIChat || conv.Model != "qwen2.5-vl-7b" {
		t.Errorf("conversation header = %q %q %q", conv.ID, conv.Format, conv.Model)
	}
	if conv.Bytes != int64(len(body)) || conv.Source.File != "logs/chatbox-proxy.json" || conv.Source.Line != 1 {
		t.Errorf("bytes %d (want %d), source %+v", conv.Bytes, len(body), conv.Source)
	}
	if got := apiRoles(conv); got != "system,user,assistant,tool" {
		t.Fatalf("roles = %s", got)
	}
	if len(conv.Tools) != 1 || conv.Tools[0].Name != "mcp__playwright__browser_take_screenshot" || !bytes.Contains(conv.Tools[0].Parameters, []byte(`"additionalProperties":false`)) {
		t.Errorf("tools = %+v", conv.Tools)
	}
	user := conv.Messages[1]
	if len(user.Parts) != 2 || user.Parts[0].Kind != PartText || user.Parts[1].Kind != PartImage {
		t.Fatalf("user parts = %+v", user.Parts)
	}
	img := user.Parts[1].Image
	if apiSum(img.Data) != apiSum(userPNG) || img.DeclaredType != "image/png" || img.Encoding != "data-url" || img.Origin != OriginUser {
		t.Errorf("user image: sha %s type %q enc %q origin %q", apiSum(img.Data), img.DeclaredType, img.Encoding, img.Origin)
	}
	if p := user.Parts[1].Loc.Pointer; p != "/messages/1/content/1/image_url/url" {
		t.Errorf("image pointer = %q", p)
	}
	asst := conv.Messages[2]
	if len(asst.Parts) != 1 || asst.Parts[0].Kind != PartToolCall {
		t.Fatalf("assistant parts = %+v", asst.Parts)
	}
	call := asst.Parts[0].ToolCall
	if call.ID != "call_abc123" || call.Name != "mcp__playwright__browser_take_screenshot" || call.Arguments != `{"url":"https://example.com"}` {
		t.Errorf("tool call = %+v", call)
	}
	tool := conv.Messages[3]
	if tool.ToolCallID != "call_abc123" || len(tool.Parts) != 1 || tool.Parts[0].Kind != PartToolResult {
		t.Fatalf("tool message = %+v", tool)
	}
	res := tool.Parts[0].ToolResult
	if !res.IsText || res.Text != toolContent || res.CallID != "call_abc123" || res.Name != "mcp__playwright__browser_take_screenshot" || res.Parts != nil {
		t.Errorf("tool result: is_text %v name %q text equal %v", res.IsText, res.Name, res.Text == toolContent)
	}
	if tool.Parts[0].Loc.Pointer != "/messages/3/content" {
		t.Errorf("tool result pointer = %q", tool.Parts[0].Loc.Pointer)
	}
	// Raw is the message exactly as recorded.
	wantRaw := body[strings.Index(body, `{"role":"tool"`):strings.LastIndex(body, `],"tools"`)]
	if string(tool.Raw) != wantRaw {
		t.Errorf("tool Raw differs from the recorded bytes")
	}
	if off := tool.Loc.Offset; body[off:off+14] != `{"role":"tool"` {
		t.Errorf("tool message offset %d points at %q", off, body[off:off+14])
	}
	if reqs := conv.Requests(); len(reqs) != 2 || len(reqs[1].Messages) != 4 {
		t.Errorf("requests = %d", len(reqs))
	}
}

func TestReadOpenAIChatShapes(t *testing.T) {
	pic := apiTestPNG(t, 16, 16)
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pic)
	one := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name   string
		input  string
		ids    []string
		check  func(t *testing.T, c *Collector)
		nProbs int
	}{
		{
			name:  "JSON Lines of requests",
			input: one + "\n\n" + one + "\r\n" + one,
			ids:   []string{"f.jsonl#0", "f.jsonl#1", "f.jsonl#2"},
			check: func(t *testing.T, c *Collector) {
				if l := c.Conversations[1].Messages[0].Loc; l.Line != 3 || l.Pointer != "/messages/0" {
					t.Errorf("second line location = %+v", l)
				}
			},
		},
		{
			name:  "JSON array of requests",
			input: "[" + one + ",\n " + one + "]",
			ids:   []string{"f.jsonl#0", "f.jsonl#1"},
			check: func(t *testing.T, c *Collector) {
				if p := c.Conversations[1].Messages[0].Parts[0].Loc.Pointer; p != "/1/messages/0/content" {
					t.Errorf("pointer = %q", p)
				}
			},
		},
		{
			name:  "pretty-printed document",
			input: "{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {\"role\": \"developer\", \"content\": [{\"type\": \"text\", \"text\": \"Be brief.\"}]},\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n",
			ids:   []string{"f.jsonl#0"},
			check: func(t *testing.T, c *Collector) {
				conv := c.Conversations[0]
				if apiRoles(conv) != "system,user" || conv.Messages[0].Parts[0].Text != "Be brief." {
					t.Errorf("messages = %+v", conv.Messages)
				}
				// In a multi-line document, locations are byte offsets in the file.
				if l := conv.Messages[1].Loc; l.Line != 0 || l.Offset != 122 || l.Pointer != "/messages/1" || string(conv.Messages[1].Raw) != `{"role": "user", "content": "hi"}` {
					t.Errorf("document location = %+v, raw %s", l, conv.Messages[1].Raw)
				}
			},
		},
		{
			name:  "proxy envelope with a stringified body",
			input: `{"ts":"2026-01-01T00:00:00Z","request_body":` + apiQuote(t, one) + `,"response":{"id":"x"}}`,
			ids:   []string{"f.jsonl#0"},
			check: func(t *testing.T, c *Collector) {
				m := c.Conversations[0].Messages[0]
				if m.Parts[0].Text != "hi" || m.Loc.Pointer != "/request_body/messages/0" {
					t.Errorf("message = %+v", m)
				}
			},
		},
		{
			name:  "proxy envelope with a request object",
			input: `{"request":{"method":"POST","body":` + one + `}}`,
			ids:   []string{"f.jsonl#0"},
			check: func(t *testing.T, c *Collector) {
				if p := c.Conversations[0].Source.Pointer; p != "/request/body" {
					t.Errorf("source pointer = %q", p)
				}
			},
		},
		{
			name: "tool content array with an image, remote URL, audio, file id, reasoning, unknown part",
			input: `{"model":"m","messages":[` +
				`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"high"}},{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}},{"type":"file","file":{"file_id":"file-123"}},{"type":"hologram","x":1}]},` +
				`{"role":"assistant","content":null,"reasoning_content":"think","tool_calls":[{"id":"c1","type":"function","function":{"name":"shot","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"here"},{"type":"image_url","image_url":{"url":"` + dataURL + `","detail":"low"}}]},` +
				`{"role":"function","name":"legacy","content":"old"}]}`,
			ids: []string{"f.jsonl#0"},
			check: func(t *testing.T, c *Collector) {
				conv := c.Conversations[0]
				if apiRoles(conv) != "user,assistant,tool,tool" {
					t.Fatalf("roles = %s", apiRoles(conv))
				}
				u := conv.Messages[0].Parts
				if len(u) != 4 || u[0].Kind != PartReference || u[0].Ref.Kind != "url" || u[0].Ref.Target != "https://example.com/a.png" ||
					u[1].Kind != PartOpaque || u[2].Kind != PartReference || u[2].Ref.Kind != "file" || u[2].Ref.Target != "file-123" ||
					u[3].Kind != PartOpaque || u[3].Text != `{"type":"hologram","x":1}` {
					t.Errorf("user parts = %+v", u)
				}
				a := conv.Messages[1].Parts
				if len(a) != 2 || a[0].Kind != PartOpaque || a[0].Text != `"think"` || a[1].ToolCall.Name != "shot" {
					t.Errorf("assistant parts = %+v", a)
				}
				res := conv.Messages[2].Parts[0].ToolResult
				if res.IsText || len(res.Parts) != 2 || res.Name != "shot" || res.Parts[1].Kind != PartImage {
					t.Fatalf("tool result = %+v", res)
				}
				img := res.Parts[1].Image
				if img.Origin != OriginTool || img.Detail != "low" || apiSum(img.Data) != apiSum(pic) {
					t.Errorf("tool image = %+v", img)
				}
				legacy := conv.Messages[3]
				if legacy.Name != "legacy" || legacy.Parts[0].ToolResult.Text != "old" || !legacy.Parts[0].ToolResult.IsText {
					t.Errorf("function message = %+v", legacy)
				}
				if len(conv.Notes) != 2 || !strings.Contains(conv.Notes[0], "input_audio") {
					t.Errorf("notes = %q", conv.Notes)
				}
			},
		},
		{
			name:  "empty string content and null tool content",
			input: `{"messages":[{"role":"user","content":""},{"role":"tool","tool_call_id":"x","content":null}]}`,
			ids:   []string{"f.jsonl#0"},
			check: func(t *testing.T, c *Collector) {
				conv := c.Conversations[0]
				if len(conv.Messages[0].Parts) != 0 || !conv.Messages[1].Parts[0].ToolResult.IsText {
					t.Errorf("messages = %+v", conv.Messages)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := apiRead(t, readOpenAIChat, "f.jsonl", tt.input)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Problems) != tt.nProbs {
				t.Fatalf("problems:\n%s", apiShortProblems(c))
			}
			var ids []string
			for _, conv := range c.Conversations {
				ids = append(ids, conv.ID)
			}
			if strings.Join(ids, " ") != strings.Join(tt.ids, " ") {
				t.Fatalf("ids = %v, want %v", ids, tt.ids)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestReadOpenAIChatBadInput(t *testing.T) {
	good := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name     string
		input    string
		maxLine  int
		ids      []string // conversations that must still come out
		problems []string // substrings of the problems, in order
	}{
		{
			name:     "invalid JSON line between good lines",
			input:    good + "\n{\"model\":\"m\",\"messages\":[}\n" + good + "\n",
			ids:      []string{"f#0", "f#2"},
			problems: []string{"f:2:26: invalid JSON"},
		},
		{
			name:     "truncated last line",
			input:    good + "\n" + good[:30],
			ids:      []string{"f#0"},
			problems: []string{"f:2:30: invalid JSON: unexpected end of JSON input"},
		},
		{
			name:     "truncated first line of JSON Lines",
			input:    good[:30] + "\n" + good + "\n" + good + "\n",
			ids:      []string{"f#1", "f#2"},
			problems: []string{"invalid JSON in the value starting at line 1"},
		},
		{
			name:     "messages not an array",
			input:    `{"model":"m","messages":{"role":"user"}}` + "\n" + good,
			ids:      []string{"f#1"},
			problems: []string{"f:1:25 at /messages: messages must be an array, found an object"},
		},
		{
			name:     "unknown role",
			input:    `{"messages":[{"role":"wizard","content":"x"}]}`,
			problems: []string{"f:1:22 at /messages/0/role: unknown message role \"wizard\""},
		},
		{
			name:     "content of the wrong type",
			input:    `{"messages":[{"role":"user","content":42}]}`,
			problems: []string{"at /messages/0/content: content must be a string or an array of parts, found a number"},
		},
		{
			name:     "invalid UTF-8 in a string",
			input:    "{\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}\n" + good,
			ids:      []string{"f#1"},
			problems: []string{"f:1:43 at /messages/0/content: invalid UTF-8"},
		},
		{
			name:     "bad base64 in a data URL",
			input:    `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBOR*w0KGgo"}}]}]}`,
			ids:      []string{"f#0"},
			problems: []string{"f:1:79 at /messages/0/content/0/image_url/url: image data URL: invalid base64 at byte 5"},
		},
		{
			name:     "huge line",
			input:    good + "\n" + `{"messages":[{"role":"user","content":"` + strings.Repeat("A", 500) + `"}]}` + "\n" + good,
			maxLine:  200,
			ids:      []string{"f#0", "f#2"},
			problems: []string{"f:2: line longer than 200 bytes"},
		},
		{
			name:     "top-level number and not a request",
			input:    "42\n{\"hello\":1}\n" + good,
			ids:      []string{"f#2"},
			problems: []string{"expected a request object", "not a openai-chat request"},
		},
		{
			name:     "broken pretty-printed document",
			input:    "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"},\n  ]\n}\n",
			problems: []string{"f:4:3: invalid JSON in the value starting at line 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Collector
			rd := newRequestLogReader("f", chatAPI(), &c)
			if tt.maxLine > 0 {
				rd.maxRecord = tt.maxLine
			}
			if err := rd.read(context.Background(), strings.NewReader(tt.input)); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, conv := range c.Conversations {
				ids = append(ids, conv.ID)
			}
			if strings.Join(ids, " ") != strings.Join(tt.ids, " ") {
				t.Errorf("ids = %v, want %v", ids, tt.ids)
			}
			if len(c.Problems) != len(tt.problems) {
				t.Fatalf("problems:\n%s\nwant %q", apiShortProblems(&c), tt.problems)
			}
			for i, want := range tt.problems {
				if !strings.Contains(c.Problems[i].Error(), want) {
					t.Errorf("problem %d = %q, want it to contain %q", i, c.Problems[i].Error(), want)
				}
			}
		})
	}
}

func TestReadOpenAIChatCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var c Collector
	err := readOpenAIChat(ctx, "f", strings.NewReader(`{"messages":[]}`+"\n"+`{"messages":[]}`), &c)
	if !errors.Is(err, context.Canceled) || len(c.Conversations) != 0 {
		t.Fatalf("err = %v, conversations %d", err, len(c.Conversations))
	}
	var re *ReadError
	if !errors.As(err, &re) || re.Loc.File != "f" || re.Loc.Line != 1 {
		t.Errorf("error not located: %v", err)
	}
}

// apiStopEmitter stops after the first conversation.
type apiStopEmitter struct{ Collector }

func (s *apiStopEmitter) Conversation(c *Conversation) error {
	s.Collector.Conversations = append(s.Collector.Conversations, c)
	return errors.New("enough")
}

func TestReadOpenAIChatEmitterStops(t *testing.T) {
	var s apiStopEmitter
	one := `{"messages":[{"role":"user","content":"x"}]}`
	err := readOpenAIChat(context.Background(), "f", strings.NewReader(one+"\n"+one), &s)
	if err == nil || !strings.Contains(err.Error(), "enough") || len(s.Conversations) != 1 {
		t.Fatalf("err = %v, conversations %d", err, len(s.Conversations))
	}
}

func TestReadOpenAIChatTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/api/*.chat.*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	want := map[string]int{"proxy-log.chat.jsonl": 3, "screenshot.chat.json": 1}
	for _, f := range files {
		c := apiReadFile(t, f, FormatOpenAIChat)
		if len(c.Problems) != 0 {
			t.Errorf("%s: problems:\n%s", f, apiShortProblems(c))
		}
		if n, ok := want[filepath.Base(f)]; ok && len(c.Conversations) != n {
			t.Errorf("%s: %d conversations, want %d", f, len(c.Conversations), n)
		}
	}
}

// apiReadFile reads a file through the public entry point, detection included when format is "".
func apiReadFile(t testing.TB, path string, format Format) *Collector {
	t.Helper()
	var c Collector
	if err := ReadFile(context.Background(), path, format, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &c
}

func TestDetectAPIFormats(t *testing.T) {
	pic := base64.StdEncoding.EncodeToString(apiTestPNG(t, 8, 8))
	vercel, _ := vercelChatBody(t, apiTestPNG(t, 8, 8), apiTestPNG(t, 8, 8))
	tests := []struct {
		name string
		file string
		head string
		want Format
	}{
		{"chat: Vercel AI SDK body", "req.json", vercel, FormatOpenAIChat},
		{"chat: moonshot body with reasoning", "req.json", `{"model":"kimi-k2.5","messages":[{"role":"user","content":"What is the weather in Beijing?"},{"role":"assistant","content":"","tool_calls":[],"reasoning_content":"x"}],"temperature":1,"max_completion_tokens":4096}`, FormatOpenAIChat},
		{"chat: system role, max_tokens", "req.json", `{"model":"gpt-4o","max_tokens":100,"messages":[{"role": "system","content":"s"},{"role":"user","content":"u"}]}`, FormatOpenAIChat},
		{"chat: JSON Lines", "log.jsonl", `{"model":"m","messages":[{"role":"user","content":"a"}]}` + "\n" + `{"model":"m","messages":[]}`, FormatOpenAIChat},
		{"responses: function_call_output", "req.json", `{"model":"gpt-5","input":[{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"data:image/png;base64,` + pic + `"}]}]}`, FormatOpenAIResponses},
		{"responses: string input", "req.json", `{"model":"gpt-5","instructions":"Be brief.","input":"hello"}`, FormatOpenAIResponses},
		{"anthropic: tool_result with image", "req.json", `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pic + `"}}]}]}]}`, FormatAnthropic},
		{"anthropic: system string", "req.json", `{"model":"claude-3-5-haiku","max_tokens":1024,"system":"Be brief.","messages":[{"role":"user","content":"hi"}]}`, FormatAnthropic},
		{"httprr trace", "x.httprr", "httprr trace v1\n587 1356\nPOST https://api.moonshot.ai/v1/chat/completions HTTP/1.1\r\n", FormatHTTPRR},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(tt.file, []byte(tt.head))
			if err != nil || got != tt.want {
				t.Errorf("Detect = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// A minimal Anthropic body (no system, no tools, no image) is told by its model name.
	minimal := `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Hello"}]}`
	if got, err := Detect("req.json", []byte(minimal)); got != FormatAnthropic {
		t.Errorf("minimal Anthropic body: Detect = %q, %v; want anthropic", got, err)
	}
}

func TestReadAPIRealSamplesDetected(t *testing.T) {
	for _, name := range []string{"langchaingo-anthropic-tool-result.httprr", "langchaingo-moonshot-openai-compat-tool-result.httprr"} {
		path := filepath.Join(apiRealSamples, name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("real samples not present: %v", err)
		}
		c := apiReadFile(t, path, "")
		if len(c.Conversations) != 2 || len(c.Problems) != 0 {
			t.Errorf("%s: %d conversations, problems:\n%s", name, len(c.Conversations), apiShortProblems(c))
		}
	}
}

func BenchmarkReadOpenAIChatLargeScreenshot(b *testing.B) {
	pic := apiTestPNG(b, 1200, 900) // a few MB of base64 in the tool text
	body, _ := vercelChatBody(b, apiTestPNG(b, 32, 32), pic)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var c Collector
		if err := readOpenAIChat(context.Background(), "f", strings.NewReader(body), &c); err != nil || len(c.Conversations) != 1 {
			b.Fatal(err, len(c.Problems))
		}
	}
}

// BenchmarkReadGeneratedCorpus reads the request logs of a generated 64 MiB corpus (the shape
// of `make bench-scale`'s: requests re-sending their history of 2 MiB tool results and
// screenshots) as a replay does: each file hashed (BLAKE3, github.com/zeebo/blake3) as it is read
// (ReadFileDigest), its conversations dropped.
func BenchmarkReadGeneratedCorpus(b *testing.B) {
	dir := b.TempDir()
	stats, err := gencorpus.Generate(context.Background(), dir, gencorpus.Config{Seed: 1, TotalBytes: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	b.ReportAllocs()
	b.SetBytes(stats.Bytes)
	for b.Loop() {
		var d chatboxDiscard
		for _, f := range files {
			if _, whole, err := ReadFileDigest(context.Background(), f, "", &d, blake3.New()); err != nil || !whole {
				b.Fatal(f, err, whole)
			}
		}
		if d.convs != stats.Requests || d.problems != 0 {
			b.Fatalf("%d conversations, %d problems; %d requests written", d.convs, d.problems, stats.Requests)
		}
	}
}

func FuzzReadOpenAIChat(f *testing.F) {
	body, _ := vercelChatBody(f, apiTestPNG(f, 4, 4), apiTestPNG(f, 4, 4))
	f.Add([]byte(body))
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}` + "\n" + `[{"messages":[]}]`))
	f.Add([]byte("{\n \"messages\": [\n {\"role\":\"tool\",\"content\":[{\"type\":\"image_url\",\"image_url\":\"data:image/png;base64,AAAA\"}]}\n ]\n}"))
	f.Add([]byte(`{"body":"{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"1\",\"function\":{\"name\":\"n\",\"arguments\":{}}}]}]}"}`))
	apiAddFileSeeds(f, "testdata/api/*.chat.*")
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Collector
		rd := newRequestLogReader("fuzz", chatAPI(), &c)
		rd.maxRecord = 1 << 20
		_ = rd.read(context.Background(), bytes.NewReader(data))
		apiCheckInvariants(t, &c)
	})
}

// apiAddFileSeeds adds the files matching pattern as fuzz seeds.
func apiAddFileSeeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(pattern)
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// apiCheckInvariants checks what every reader output must satisfy.
func apiCheckInvariants(t *testing.T, c *Collector) {
	t.Helper()
	for _, p := range c.Problems {
		if p.Loc.File == "" || p.Err == nil {
			t.Fatalf("unlocated problem %v", p)
		}
	}
	for _, conv := range c.Conversations {
		for _, m := range conv.Messages {
			for _, part := range m.Parts {
				ok := false
				switch part.Kind {
				case PartText, PartOpaque:
					ok = true
				case PartImage:
					ok = part.Image != nil
				case PartToolCall:
					ok = part.ToolCall != nil
				case PartToolResult:
					ok = part.ToolResult != nil
				case PartReference:
					ok = part.Ref != nil
				}
				if !ok {
					t.Fatalf("part of kind %q without its payload", part.Kind)
				}
			}
		}
	}
}

// apiRealSamples holds copies of the real httprr recordings of the shared real-samples folder
// (byte for byte; .gitattributes keeps git from touching their mixed line endings).
const apiRealSamples = "testdata/real"

func TestReadOpenAIChatHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 96 MB line")
	}
	// A tool message of 96 MB of text (far past bufio.Scanner's 64 KiB default) between two
	// ordinary lines: it must be read whole, with the lines around it (a text of words: a base64
	// run that long would be streamed past, TestRequestLogLargeRunStreamed).
	big := strings.Repeat("A ", 48<<20)
	one := `{"messages":[{"role":"user","content":"x"}]}`
	input := one + "\n" + `{"messages":[{"role":"tool","tool_call_id":"c","content":"` + big + `"}]}` + "\n" + one + "\n"
	c, err := apiRead(t, readOpenAIChat, "big.jsonl", input)
	if err != nil || len(c.Problems) != 0 || len(c.Conversations) != 3 {
		t.Fatalf("err %v, %d conversations, problems:\n%s", err, len(c.Conversations), apiShortProblems(c))
	}
	if got := len(c.Conversations[1].Messages[0].Parts[0].ToolResult.Text); got != len(big) {
		t.Errorf("tool text of %d bytes, want %d", got, len(big))
	}
	if c.Conversations[2].Messages[0].Loc.Line != 3 {
		t.Errorf("line numbers lost after the huge line")
	}
}

// TestReadOpenAIChatHugeLineHeldOnce: a line of 80 MB read from a file is read into one buffer
// sized from what is left of the file (not a doubled one, not copied once more), and its tool
// text shares that buffer: the line is held once (peak RSS: BenchmarkHugeLine in cmd/cli).
func TestReadOpenAIChatHugeLineHeldOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an 80 MB line")
	}
	big := "the screen: " + strings.Repeat("iVBORw0KGgo ", 80<<20/12)
	one := `{"messages":[{"role":"user","content":"x"}]}`
	path := filepath.Join(t.TempDir(), "big.jsonl")
	input := one + "\n" + `{"messages":[{"role":"tool","tool_call_id":"c","content":"` + big + `"}]}` + "\n" + one + "\n"
	if err := os.WriteFile(path, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	var c Collector
	if err := ReadFile(context.Background(), path, "", &c); err != nil || len(c.Problems) != 0 || len(c.Conversations) != 3 {
		t.Fatalf("err %v, %d conversations, problems:\n%s", err, len(c.Conversations), apiShortProblems(&c))
	}
	msg := c.Conversations[1].Messages[0]
	text := msg.Parts[0].ToolResult.Text
	if text != big {
		t.Fatalf("tool text of %d bytes, want %d", len(text), len(big))
	}
	raw := msg.Raw
	start := uintptr(unsafe.Pointer(unsafe.StringData(text))) - uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	if start >= uintptr(len(raw)) {
		t.Error("the tool text is a copy, not the line's bytes")
	}
	if spare := cap(raw) - len(raw); spare > 1<<20 {
		t.Errorf("the line's buffer has %d bytes to spare: grown, not sized from the file", spare)
	}
}

// TestReadOpenAIChatDocumentFromFile: a multi-line document read from a file is read into a
// buffer sized from the file, and read as from any reader.
func TestReadOpenAIChatDocumentFromFile(t *testing.T) {
	doc := "{\n  \"model\": \"m\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"" + strings.Repeat("x", 200<<10) + "\"}\n  ]\n}\n"
	path := filepath.Join(t.TempDir(), "doc.json")
	if err := os.WriteFile(path, []byte(doc+doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var c Collector
	if err := ReadFile(context.Background(), path, "", &c); err != nil || len(c.Problems) != 0 || len(c.Conversations) != 2 {
		t.Fatalf("err %v, %d conversations, problems:\n%s", err, len(c.Conversations), apiShortProblems(&c))
	}
	if got := c.Conversations[1].Messages[0].Parts[0].Text; len(got) != 200<<10 {
		t.Errorf("text of %d bytes", len(got))
	}
	if l := c.Conversations[1].Messages[0].Loc; l.Line != 0 || l.Offset == 0 {
		t.Errorf("second document's message at %+v", l)
	}
}

// TestReadOpenAIChatFileGrewWhileRead: when a file holds more than its size said (it grew since
// it was opened), a huge line is still read whole.
func TestReadOpenAIChatFileGrewWhileRead(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 70 MB line")
	}
	big := strings.Repeat("A ", 35<<20)
	input := `{"messages":[{"role":"tool","tool_call_id":"c","content":"` + big + `"}]}` + "\n"
	var c Collector
	err := newRequestLogReader("grew.jsonl", chatAPI(), &c).read(context.Background(), &sizedReader{r: strings.NewReader(input), left: 1 << 20})
	if err != nil || len(c.Problems) != 0 || len(c.Conversations) != 1 {
		t.Fatalf("err %v, %d conversations, problems:\n%s", err, len(c.Conversations), apiShortProblems(&c))
	}
	if got := c.Conversations[0].Messages[0].Parts[0].ToolResult.Text; got != big {
		t.Errorf("tool text of %d bytes, want %d", len(got), len(big))
	}
}
