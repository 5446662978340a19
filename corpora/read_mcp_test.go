package corpora

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpTestPNG returns the base64 of a real w×h PNG.
func mcpTestPNG(t testing.TB, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 13), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// mcpTestRead reads src with the given format (or detection when "") into a Collector.
func mcpTestRead(t *testing.T, name, src string, format Format) *Collector {
	t.Helper()
	var c Collector
	if err := Read(context.Background(), name, strings.NewReader(src), format, &c); err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return &c
}

// mcpTestCalls lists the tool calls and results of a conversation read from MCP frames,
// checking that messages alternate assistant call / tool result.
func mcpTestCalls(t *testing.T, c *Conversation) ([]*ToolCall, []*ToolResult) {
	t.Helper()
	var calls []*ToolCall
	var results []*ToolResult
	for i, m := range c.Messages {
		if len(m.Parts) != 1 {
			t.Fatalf("message %d has %d parts", i, len(m.Parts))
		}
		p := m.Parts[0]
		switch {
		case i%2 == 0 && m.Role == RoleAssistant && p.Kind == PartToolCall:
			calls = append(calls, p.ToolCall)
		case i%2 == 1 && m.Role == RoleTool && p.Kind == PartToolResult:
			if m.ToolCallID != calls[len(calls)-1].ID || p.ToolResult.CallID != m.ToolCallID {
				t.Errorf("message %d answers %q, want %q", i, m.ToolCallID, calls[len(calls)-1].ID)
			}
			results = append(results, p.ToolResult)
		default:
			t.Fatalf("message %d: role %s part %s out of order", i, m.Role, p.Kind)
		}
	}
	return calls, results
}

func TestReadMCPRealSamples(t *testing.T) {
	tests := []struct {
		file     string
		format   Format
		convs    int
		calls    []string // tool names, in order
		tools    int
		title    string
		noteHas  string
		results0 string
	}{
		{file: "goose-mcp-replay-server-everything.txt", format: FormatMCPJSONL, convs: 1,
			calls: []string{"echo", "add", "longRunningOperation", "structuredContent"}, tools: 0,
			title: "Everything Example Server 1.0.0", noteHas: "5 notifications/progress notification",
			results0: `[{"type":"text","text":"Echo: Hello, world!"}]`},
		{file: "goose-mcp-replay-server-everything-2026.1.14.txt", format: FormatMCPJSONL, convs: 1,
			calls: []string{"echo", "get-sum", "trigger-long-running-operation", "get-structured-content", "trigger-sampling-request"},
			tools: 5, title: "Everything Reference Server 2.0.0", noteHas: "2 notifications/tools/list_changed notification"},
		{file: "inspector-v2-history-everything-server.json", format: FormatMCPInspector, convs: 0},
		{file: "inspector-v2-network-logging-modern.json", format: FormatMCPInspector, convs: 1,
			calls: []string{"send_notification", "echo"}, tools: 2, title: "logging-modern 1.0.0",
			noteHas: "1 notifications/message notification", results0: `[{"type":"text","text":"Notification sent: sdadsd"}]`},
		{file: "claude-desktop-mcp-server-playwright.issue-excerpt.log", format: FormatClaudeDesktopLog, convs: 0},
		{file: "claude-desktop-mcp-server-rebe.issue-excerpt.log", format: FormatClaudeDesktopLog, convs: 0},
		{file: "claude-desktop-mcp-log-2026-summary-format.issue-excerpt.log", format: FormatClaudeDesktopLog, convs: 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "mcp", tt.file)
			var c Collector
			if err := ReadFile(context.Background(), path, "", &c); err != nil {
				t.Fatal(err)
			}
			if len(c.Problems) != 0 {
				t.Errorf("problems: %v", c.Problems)
			}
			if len(c.Conversations) != tt.convs {
				t.Fatalf("%d conversations, want %d", len(c.Conversations), tt.convs)
			}
			if tt.convs == 0 {
				return
			}
			conv := c.Conversations[0]
			if conv.Format != tt.format || conv.ID != path || conv.Title != tt.title {
				t.Errorf("conversation %s format %s title %q, want %s %q", conv.ID, conv.Format, conv.Title, tt.format, tt.title)
			}
			calls, results := mcpTestCalls(t, conv)
			var names []string
			for _, c := range calls {
				names = append(names, c.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.calls, ",") {
				t.Errorf("calls %v, want %v", names, tt.calls)
			}
			if len(results) != len(tt.calls) {
				t.Errorf("%d results, want %d", len(results), len(tt.calls))
			}
			for i, r := range results {
				if r.MCP == nil || r.IsError || r.IsText {
					t.Errorf("result %d: MCP %v IsError %v IsText %v", i, r.MCP != nil, r.IsError, r.IsText)
				}
			}
			if tt.results0 != "" && results[0].Text != tt.results0 {
				t.Errorf("first result text %s, want %s", results[0].Text, tt.results0)
			}
			if len(conv.Tools) != tt.tools {
				t.Errorf("%d tools, want %d", len(conv.Tools), tt.tools)
			}
			if !strings.Contains(strings.Join(conv.Notes, "\n"), tt.noteHas) {
				t.Errorf("notes %q lack %q", conv.Notes, tt.noteHas)
			}
			if rs := conv.Requests(); len(rs) != len(tt.calls) {
				t.Errorf("%d requests, want one after each result (%d)", len(rs), len(tt.calls))
			}
		})
	}
}

func TestReadMCPRealSampleDetails(t *testing.T) {
	var c Collector
	if err := ReadFile(context.Background(), "testdata/mcp/goose-mcp-replay-server-everything-2026.1.14.txt", "", &c); err != nil {
		t.Fatal(err)
	}
	conv := c.Conversations[0]
	calls, results := mcpTestCalls(t, conv)
	// The sampling/createMessage request of the server (id 0, the same id as the client's
	// initialize) is answered on STDIN; call 7 must still get its own result.
	if calls[4].ID != "7" || !strings.Contains(results[4].Text, "LLM sampling result") || !strings.Contains(results[4].Text, "— F. Scott Fitzgerald") {
		t.Errorf("sampling call: id %s result %.80s", calls[4].ID, results[4].Text)
	}
	if calls[1].Arguments != `{"a":1,"b":2}` {
		t.Errorf("arguments %s", calls[1].Arguments)
	}
	if string(results[3].MCP.StructuredContent) != `{"temperature":33,"conditions":"Cloudy","humidity":82}` {
		t.Errorf("structuredContent %s", results[3].MCP.StructuredContent)
	}
	if tool := conv.Tools[0]; tool.Name != "echo" || !strings.Contains(string(tool.Parameters), `"required":["message"]`) {
		t.Errorf("tool 0 = %+v", tool)
	}
	// Locations: the request line and the byte offset after the "STDIN: " prefix.
	want := Location{File: "testdata/mcp/goose-mcp-replay-server-everything-2026.1.14.txt", Line: 9, Offset: 7}
	if conv.Messages[0].Loc != want || conv.Messages[0].Parts[0].Loc.Pointer != "/params" {
		t.Errorf("call loc %+v part %+v", conv.Messages[0].Loc, conv.Messages[0].Parts[0].Loc)
	}
	// a block: the column of its own first byte
	if l := results[0].MCP.Content[0].Loc; l.Line != 10 || l.Offset != 30 || l.Pointer != "/result/content/0" {
		t.Errorf("block loc %+v", l)
	}
}

func TestReadMCPJSONLEveryRevision(t *testing.T) {
	pngB64 := mcpTestPNG(t, 5, 4)
	lines := []string{
		// 2024-11-05 handshake, TS-SDK key order.
		`{"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"jsonrpc":"2.0","id":0}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"shots","version":"0.3"}}}`,
		`{"method":"notifications/initialized","jsonrpc":"2.0"}`,
		`{"method":"tools/list","jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"screenshot","description":"Take one","inputSchema":{"type":"object"}},{"name":"fetch","inputSchema":{"type":"object","properties":{"url":{"type":"string"}}}}]}}`,
		// 1: image result with progress before it.
		`{"method":"tools/call","params":{"name":"screenshot","arguments":{"full":true},"_meta":{"progressToken":7}},"jsonrpc":"2.0","id":2}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":2}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Captured"},{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}]}}`,
		// 2025-03-26 batch: audio + blob resource (two calls in one array), answered by a batch.
		`[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"record","arguments":{}}},{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"render","arguments":{"w":5}}}]`,
		`[{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"resource","resource":{"uri":"file:///r.png","mimeType":"image/png","blob":"` + pngB64 + `"}}]}},{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"audio","data":"UklGRiQAAABXQVZF","mimeType":"audio/wav"}]}}]`,
		// 2025-06-18: resource_link + structuredContent, Python key order, inside an envelope.
		`{"ts":"2025-07-01T10:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"find","arguments":{"q":"x"}}}}`,
		`{"ts":"2025-07-01T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":5,"result":{"_meta":{"k":1},"content":[{"uri":"https://e/x.png","name":"x.png","mimeType":"image/png","type":"resource_link"}],"structuredContent":{"n":1},"isError":false}}}`,
		// 2025-11-25: isError result.
		`{"jsonrpc":"2.0","id":"call-6","method":"tools/call","params":{"name":"fetch","arguments":{"url":"bad"}}}`,
		`{"jsonrpc":"2.0","id":"call-6","result":{"content":[{"type":"text","text":"Invalid URL"}],"isError":true}}`,
		// JSON-RPC error.
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: nope"}}`,
		// A server request reusing the client's id 2, answered by the client (no direction given).
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ask","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"messages":[]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"model":"m","role":"assistant","content":{"type":"text","text":"ok"}}}`,
		`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"asked"}]}}`,
		// 2026-07-28: stateless _meta, resultType, structuredContent array.
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"result":{"content":[{"type":"text","text":"[1,2]"}],"structuredContent":[1,2],"resultType":"complete"},"jsonrpc":"2.0","id":9}`,
		// Bad input: invalid JSON, a plain text line, a request never answered.
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"x"`,
		`server says hi`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"lost","arguments":{}}}`,
		``,
	}
	c := mcpTestRead(t, "session.jsonl", strings.Join(lines, "\r\n"), "")
	if len(c.Conversations) != 1 {
		t.Fatalf("%d conversations", len(c.Conversations))
	}
	conv := c.Conversations[0]
	if conv.Format != FormatMCPJSONL || conv.Title != "shots 0.3" || len(conv.Tools) != 2 || conv.Tools[1].Name != "fetch" {
		t.Errorf("format %s title %q tools %+v", conv.Format, conv.Title, conv.Tools)
	}
	calls, results := mcpTestCalls(t, conv)
	var got []string
	for _, c := range calls {
		got = append(got, c.ID+":"+c.Name)
	}
	want := "2:screenshot,3:record,4:render,5:find,call-6:fetch,7:nope,8:ask,9:list"
	if strings.Join(got, ",") != want {
		t.Fatalf("calls %s, want %s", strings.Join(got, ","), want)
	}
	// 1: image.
	img := results[0].MCP.Content[1]
	if img.Type != "image" || img.Data != pngB64 || img.Loc.Line != 8 || img.Loc.Pointer != "/result/content/1" {
		t.Errorf("image block %s at %+v", img.Type, img.Loc)
	}
	if want := `[{"type":"text","text":"Captured"},{"type":"image-data","data":"` + pngB64 + `","mediaType":"image/png"}]`; results[0].Text != want {
		t.Errorf("text of image result = %.120s", results[0].Text)
	}
	// batch: audio and blob resource, located in the batch array.
	if a := results[1].MCP.Content[0]; a.Type != "audio" || a.Loc.Line != 10 || a.Loc.Pointer != "/1/result/content/0" {
		t.Errorf("audio block %+v", a.Loc)
	}
	if r := results[2].MCP.Content[0]; r.Resource == nil || *r.Resource.Blob != pngB64 || r.Loc.Pointer != "/0/result/content/0" {
		t.Errorf("resource block %+v", r.Loc)
	}
	if !strings.HasPrefix(results[2].Text, `[{"type":"text","text":"{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///r.png\"`) {
		t.Errorf("resource stringified as %.100s", results[2].Text)
	}
	// each payload is located at its own value, line:column, like every other format
	for _, pl := range []struct {
		loc           Location
		line, payload string
		pointer       string
	}{
		{img.PayloadLoc, lines[7], pngB64, "/result/content/1/data"},
		{results[1].MCP.Content[0].PayloadLoc, lines[9], "UklGRiQAAABXQVZF", "/1/result/content/0/data"},
		{results[2].MCP.Content[0].PayloadLoc, lines[9], pngB64, "/0/result/content/0/resource/blob"},
	} {
		if pl.loc.Pointer != pl.pointer || pl.loc.Line != 10 && pl.loc.Line != 8 || pl.loc.Offset <= 0 ||
			!strings.HasPrefix(pl.line[pl.loc.Offset:], `"`+pl.payload+`"`) {
			t.Errorf("payload located at %s (%+v), want the column of its value at %s", pl.loc, pl.loc, pl.pointer)
		}
	}
	if s := img.PayloadLoc.String(); !strings.HasPrefix(s, "session.jsonl:8:") || !strings.HasSuffix(s, " at /result/content/1/data") {
		t.Errorf("image payload location %q", s)
	}
	// envelope.
	if r := results[3]; string(r.MCP.Meta) != `{"k":1}` || string(r.MCP.StructuredContent) != `{"n":1}` || r.MCP.Content[0].Loc.Pointer != "/msg/result/content/0" {
		t.Errorf("resource_link result %+v", r.MCP)
	}
	// isError, RPC error, id reuse, structuredContent array.
	if !results[4].IsError || results[4].RPCError != nil {
		t.Errorf("isError result %+v", results[4])
	}
	if r := results[5]; r.RPCError == nil || r.RPCError.Code != -32602 || r.Text != "Unknown tool: nope" || !r.IsError || r.MCP != nil {
		t.Errorf("RPC error result %+v", r)
	}
	if results[6].Text != `[{"type":"text","text":"asked"}]` {
		t.Errorf("call 8 result %s", results[6].Text)
	}
	if string(results[7].MCP.StructuredContent) != `[1,2]` {
		t.Errorf("call 9 structuredContent %s", results[7].MCP.StructuredContent)
	}
	// Problems: the invalid JSON line and the text line, each located.
	if len(c.Problems) != 2 {
		t.Fatalf("problems %v", c.Problems)
	}
	if p := c.Problems[0]; p.Loc.Line != 23 || p.Loc.File != "session.jsonl" || p.Loc.Offset == 0 {
		t.Errorf("problem 0 at %+v: %v", p.Loc, p)
	}
	if p := c.Problems[1]; p.Loc.Line != 24 {
		t.Errorf("problem 1 at %+v: %v", p.Loc, p)
	}
	notes := strings.Join(conv.Notes, "\n")
	for _, n := range []string{"tools/call 11 (lost) has no response", "1 notifications/progress notification"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes %q lack %q", conv.Notes, n)
		}
	}
}

func TestReadMCPJSONLHugeLine(t *testing.T) {
	big := strings.Repeat("QUJD", 3<<20/4*2) // 6 MiB of base64 on one line
	src := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`
	c := mcpTestRead(t, "big.jsonl", src, FormatMCPJSONL)
	if len(c.Problems) != 0 || len(c.Conversations) != 1 {
		t.Fatalf("problems %v, %d conversations", c.Problems, len(c.Conversations))
	}
	_, results := mcpTestCalls(t, c.Conversations[0])
	if results[0].MCP.Content[0].Text != big {
		t.Errorf("text of %d bytes, want %d", len(results[0].MCP.Content[0].Text), len(big))
	}
}

func TestReadMCPNoToolCallNoConversation(t *testing.T) {
	for _, src := range []string{ // (an empty file is a problem: corpora.ErrEmpty)
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":0,"result":{}}`,
		"STDERR: booting\nSTDERR: done\n",
	} {
		c := mcpTestRead(t, "empty.jsonl", src, FormatMCPJSONL)
		if len(c.Conversations) != 0 || len(c.Problems) != 0 {
			t.Errorf("%q: %d conversations, problems %v", src, len(c.Conversations), c.Problems)
		}
	}
}

func TestReadClaudeDesktopLogGroupsByServer(t *testing.T) {
	pngB64 := mcpTestPNG(t, 3, 3)
	log := strings.Join([]string{
		`2025-07-20T14:04:40.900Z [info] [weather] Initializing server...`,
		`2025-07-20T14:04:40.910Z [info] [weather] Message from client: {"method":"initialize","params":{"protocolVersion":"2025-06-18"},"jsonrpc":"2.0","id":0}`,
		`2025-07-20T14:04:40.920Z [info] [weather] Message from server: {"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"weather","version":"1.2"}}}`,
		`2025-07-20T14:04:41.000Z [info] [shots] Message from client: {"method":"tools/call","params":{"name":"snap","arguments":{}},"jsonrpc":"2.0","id":5}`,
		`2025-07-20T14:04:41.010Z [info] [weather] Message from client: {"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"}},"jsonrpc":"2.0","id":5}`,
		`Traceback (most recent call last):`,
		`  File "server.py", line 3`,
		`2025-07-20T14:04:41.100Z [info] [shots] Message from server: {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}]}} { metadata: undefined }`,
		`2025-07-20T14:04:41.200Z [weather] [info] Message from server: {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"Sunny"}]}} { metadata: undefined }`,
		`2025-07-20T14:04:42.000Z [info] [shots] Message from client: {"method":"tools/call","params":{"name":"snap","arguments":{}},"jsonrpc":"2.0","id":6}`,
		`2025-07-20T14:04:42.100Z [info] [shots] Message from server: {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"image","data":"iVBOR...[14696 chars truncated]...`,
		`2025-07-20T14:04:43.000Z [info] [shots] Message from client: {"method":"tools/call","params":{"name":"snap"`,
		`14:04:44.000Z [shots] Message from client: method="tools/list" id=7 params`,
		``,
	}, "\r\n")
	c := mcpTestRead(t, "mcp.log", log, "")
	if len(c.Conversations) != 2 {
		t.Fatalf("%d conversations, problems %v", len(c.Conversations), c.Problems)
	}
	weather, shots := c.Conversations[0], c.Conversations[1]
	if weather.ID != "mcp.log#weather" || shots.ID != "mcp.log#shots" || weather.Format != FormatClaudeDesktopLog {
		t.Errorf("ids %s %s", weather.ID, shots.ID)
	}
	if weather.Title != "weather" {
		t.Errorf("title %q", weather.Title)
	}
	wc, wr := mcpTestCalls(t, weather)
	if len(wc) != 1 || wc[0].Name != "forecast" || wr[0].Text != `[{"type":"text","text":"Sunny"}]` {
		t.Errorf("weather calls %+v", wc)
	}
	sc, sr := mcpTestCalls(t, shots)
	if len(sc) != 1 || sr[0].MCP.Content[0].Data != pngB64 {
		t.Fatalf("shots calls %+v", sc)
	}
	line8 := strings.Split(log, "\r\n")[7]
	if l := sr[0].MCP.Content[0].Loc; l.Line != 8 || l.Pointer != "/result/content/0" || l.Offset != int64(strings.Index(line8, `{"type"`)) {
		t.Errorf("image block at %+v", l)
	}
	if l := sr[0].MCP.Content[0].PayloadLoc; l.Line != 8 || l.Pointer != "/result/content/0/data" || l.Offset != int64(strings.Index(line8, `"`+pngB64)) {
		t.Errorf("image payload at %+v", l)
	}
	// The line cut without a marker is a located problem; the marked one is a note.
	if len(c.Problems) != 1 || c.Problems[0].Loc.Line != 12 {
		t.Errorf("problems %v", c.Problems)
	}
	notes := strings.Join(shots.Notes, "\n")
	for _, n := range []string{"truncated by Claude Desktop", "1 records in the summary form", "tools/call 6 (snap) has no response",
		"2 lines that are not log records"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes %q lack %q", shots.Notes, n)
		}
	}
}

func TestReadMCPInspectorExports(t *testing.T) {
	pngB64 := mcpTestPNG(t, 2, 2)
	history := `[
  {
    "id": "a",
    "timestamp": "2026-06-08T15:19:14.029Z",
    "direction": "request",
    "origin": "client",
    "message": {"method": "tools/call", "params": {"name": "get-tiny-image", "arguments": {}}, "jsonrpc": "2.0", "id": 3},
    "response": {
      "jsonrpc": "2.0",
      "id": 3,
      "result": {"content": [{"type": "text", "text": "Here"}, {"type": "image", "data": "` + pngB64 + `", "mimeType": "image/png"}]}
    },
    "duration": 12
  },
  {"id": "b", "timestamp": "t", "direction": "notification", "origin": "server", "message": {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}},
  {"id": "c", "timestamp": "t", "direction": "request", "origin": "client", "message": {"method": "tools/call", "params": {"name": "slow"}, "jsonrpc": "2.0", "id": 4}},
  {"id": "d", "timestamp": "t", "direction": "response", "message": {"jsonrpc": "2.0", "id": 4, "error": {"code": -32001, "message": "Request timed out"}}},
  {"id": "e", "bogus": true}
]`
	c := mcpTestRead(t, "inspector-protocol-x.json", history, "")
	if len(c.Conversations) != 1 {
		t.Fatalf("%d conversations, problems %v", len(c.Conversations), c.Problems)
	}
	conv := c.Conversations[0]
	if conv.Format != FormatMCPInspector {
		t.Errorf("format %s", conv.Format)
	}
	calls, results := mcpTestCalls(t, conv)
	if len(calls) != 2 || calls[0].Name != "get-tiny-image" || calls[1].Name != "slow" {
		t.Fatalf("calls %+v", calls)
	}
	if b := results[0].MCP.Content[1]; b.Data != pngB64 || b.Loc.Pointer != "/0/response/result/content/1" || b.Loc.Line != 2 {
		t.Errorf("image block at %+v", b.Loc)
	}
	if b := results[0].MCP.Content[1]; b.PayloadLoc.Pointer != "/0/response/result/content/1/data" || b.PayloadLoc.Line != 2 {
		t.Errorf("image payload at %+v", b.PayloadLoc)
	}
	if results[1].RPCError == nil || results[1].Text != "Request timed out" {
		t.Errorf("timeout result %+v", results[1])
	}
	if len(c.Problems) != 1 || c.Problems[0].Loc.Pointer != "/4" || c.Problems[0].Loc.Line != 18 {
		t.Errorf("problems %+v", c.Problems)
	}

	network := `[{"method":"POST","url":"http://h/mcp","requestBody":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"shot\",\"arguments\":{}}}",` +
		`"responseHeaders":{"content-type":"text/event-stream"},` +
		`"responseBody":"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"image\",\"data\":\"` + pngB64 + `\",\"mimeType\":\"image/png\"}]}}\n\n"},` +
		`{"method":"POST","url":"http://h/mcp","requestBody":"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}","responseBody":""}]`
	c = mcpTestRead(t, "inspector-network-x.json", network, "")
	if len(c.Conversations) != 1 || len(c.Problems) != 0 {
		t.Fatalf("%d conversations, problems %v", len(c.Conversations), c.Problems)
	}
	_, results = mcpTestCalls(t, c.Conversations[0])
	if b := results[0].MCP.Content[0]; b.Data != pngB64 || b.Loc.Pointer != "/0/responseBody/result/content/0" {
		t.Errorf("SSE image block at %+v", b.Loc)
	}
}

func TestReadMCPBadInputNeverPanics(t *testing.T) {
	inputs := []string{
		"\xff\xfe{\"jsonrpc\":\"2.0\"}",
		`{"jsonrpc":"2.0","id":{},"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"content":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"content":[` + strings.Repeat("[", 12000) + strings.Repeat("]", 12000) + `]}}`,
		`[` + strings.Repeat(`{"a":`, 11000),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"s":"\ud800"}}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"}]}}`,
	}
	for _, format := range []Format{FormatMCPJSONL, FormatMCPInspector, FormatClaudeDesktopLog} {
		for _, in := range inputs {
			var c Collector
			_ = Read(context.Background(), "bad", strings.NewReader(in), format, &c)
			for _, p := range c.Problems {
				if p.Loc.File != "bad" {
					t.Errorf("problem not located in the file: %v", p)
				}
			}
		}
	}
	// Bad base64 is kept as recorded: the reader does not decode MCP images.
	var c Collector
	_ = Read(context.Background(), "bad", strings.NewReader(inputs[5]), FormatMCPJSONL, &c)
	if len(c.Conversations) != 1 {
		t.Fatalf("%d conversations, problems %v", len(c.Conversations), c.Problems)
	}
	if _, r := mcpTestCalls(t, c.Conversations[0]); r[0].MCP.Content[0].Data != "not base64!" {
		t.Errorf("data %q", r[0].MCP.Content[0].Data)
	}
}

func mcpFuzzSeeds(f *testing.F, pattern string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "mcp", pattern))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

func mcpFuzzRead(t *testing.T, format Format, data []byte) {
	var c Collector
	_ = Read(context.Background(), "fuzz", bytes.NewReader(data), format, &c)
	for _, conv := range c.Conversations {
		for _, m := range conv.Messages {
			for _, p := range m.Parts {
				if p.Kind == PartToolResult && p.ToolResult == nil {
					t.Fatalf("tool result part without a result")
				}
			}
		}
	}
}

func FuzzReadMCPJSONL(f *testing.F) {
	mcpFuzzSeeds(f, "goose-*.txt")
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}]` + "\n" + `{"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) { mcpFuzzRead(t, FormatMCPJSONL, data) })
}

func FuzzReadMCPInspector(f *testing.F) {
	mcpFuzzSeeds(f, "inspector-*.json")
	f.Fuzz(func(t *testing.T, data []byte) { mcpFuzzRead(t, FormatMCPInspector, data) })
}

func FuzzReadClaudeDesktopLog(f *testing.F) {
	mcpFuzzSeeds(f, "claude-desktop-*.log")
	f.Add([]byte("2025-07-20T14:04:41.000Z [info] [s] Message from client: {\"method\":\"tools/call\",\"params\":{\"name\":\"a\"},\"jsonrpc\":\"2.0\",\"id\":5}\n" +
		"2025-07-20T14:04:41.100Z [s] [info] Message from server: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[]}} { metadata: undefined }\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) { mcpFuzzRead(t, FormatClaudeDesktopLog, data) })
}
