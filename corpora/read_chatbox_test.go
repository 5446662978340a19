package corpora

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// chatboxTestBackup builds a Chatbox 1.20 backup the way the exporter writes it: IndexedDB
// keys in lexicographic order, then configVersion and settings, then the export markers.
func chatboxTestBackup(t testing.TB, pngB64 string) string {
	const sid = "8f14e45f-ceea-4a6b-9b3c-1f0e2d3c4b5a"
	mcpResult := `{"content":[{"type":"text","text":"Captured <the> page"},{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}],"isError":false}`
	session := `{"id":"` + sid + `","name":"Screenshots","type":"chat",` +
		`"messages":[` +
		`{"id":"m-sys","role":"system","contentParts":[{"type":"text","text":"You are helpful."}],"timestamp":1767000000000},` +
		`{"id":"m-u1","role":"user","contentParts":[{"type":"text","text":"Look at this"},{"type":"image","storageKey":"picture:input-box:0b9c"}]},` +
		`{"id":"m-a1","role":"assistant","aiProvider":"custom-provider-1a2b","model":"qwen2.5-vl-7b","contentParts":[` +
		`{"type":"reasoning","text":"I should take a screenshot.","startTime":1,"duration":20},` +
		`{"type":"text","text":"Taking one."},` +
		`{"type":"tool-call","state":"result","toolCallId":"call_1","toolName":"mcp__browser__screenshot","args":{"url":"https://example.org","full":true},"result":` + mcpResult + `},` +
		`{"type":"tool-call","state":"result","toolCallId":"call_2","toolName":"web_search","args":{"query":"x"},"result":{"query":"x","searchResults":[{"title":"T","link":"https://t","snippet":"s <b>"}]}},` +
		`{"type":"info","text":"model does not support images, using OCR"},` +
		`{"type":"text","text":"Here is the page."}]},` +
		`{"id":"m-u2","role":"user","contentParts":[{"type":"text","text":"Again"}]},` +
		`{"id":"m-a2","role":"assistant","contentParts":[{"type":"tool-call","state":"error","toolCallId":"call_3","toolName":"mcp__browser__screenshot","args":{},"result":{"error":"Timeout after 30s","input":{},"toolName":"mcp__browser__screenshot"}},` +
		`{"type":"tool-call","state":"call","toolCallId":"call_4","toolName":"mcp__browser__click","args":{}},` +
		`{"type":"text","text":"It timed out."}]}` +
		`],` +
		`"threads":[{"id":"th-1","name":"Older topic","createdAt":1,"messages":[` +
		`{"id":"t-u","role":"user","contentParts":[{"type":"text","text":"Hi"}]},` +
		`{"id":"t-a","role":"assistant","contentParts":[{"type":"text","text":"Hello"}]}]}],` +
		`"messageForksHash":{"m-u2":{"position":1,"lists":[{"id":"fork_list_a","messages":[` +
		`{"id":"m-a2-old","role":"assistant","contentParts":[{"type":"tool-call","state":"result","toolCallId":"call_0","toolName":"mcp__browser__screenshot","args":{},"result":{"content":[{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}]}}]}` +
		`]},{"id":"fork_list_b","messages":[]}],"createdAt":2}},` +
		`"settings":{"provider":"custom-provider-1a2b","modelId":"qwen2.5-vl-7b","temperature":0.7}}`
	legacy := `[{"id":"old-1","name":"Old chat","messages":[` +
		`{"id":"o1","role":"user","content":"What is in these?","pictures":[{"storageKey":"picture:input-box:aa"},{"url":"https://example.org/cat.png"},{"url":"data:image/png;base64,` + pngB64 + `"}]},` +
		`{"id":"o2","role":"assistant","content":"Cats.","webBrowsing":{"query":["cats"],"links":[]}}]}]`
	return `{"chat-session-settings":{"temperature":0.7},` +
		`"chat-sessions":` + legacy + `,` +
		`"chat-sessions-list":[{"id":"` + sid + `","name":"Screenshots","type":"chat"}],` +
		`"myCopilots":[],` +
		`"session:` + sid + `":` + session + `,` +
		`"session:empty-1":{"id":"empty-1","name":"Untitled","messages":[]},` +
		`"configVersion":14,"settings":{"language":"en","providers":{}},` +
		`"__exported_items":["setting","conversations"],"__exported_at":"2026-04-01T10:00:00.000Z"}`
}

func TestReadChatboxBackup(t *testing.T) {
	pngB64 := mcpTestPNG(t, 6, 4)
	const name = "chatbox-exported-data-2026-4-1.json"
	const sid = "8f14e45f-ceea-4a6b-9b3c-1f0e2d3c4b5a"
	c := mcpTestRead(t, name, chatboxTestBackup(t, pngB64), "")
	if len(c.Problems) != 0 {
		t.Errorf("problems: %v", c.Problems)
	}
	var ids []string
	byID := map[string]*Conversation{}
	for _, conv := range c.Conversations {
		ids = append(ids, conv.ID)
		byID[conv.ID] = conv
		if conv.Format != FormatChatbox {
			t.Errorf("%s: format %s", conv.ID, conv.Format)
		}
	}
	wantIDs := []string{name + "#old-1", name + "#" + sid, name + "#" + sid + "/thread/th-1", name + "#" + sid + "/fork/m-u2/0"}
	if strings.Join(ids, "\n") != strings.Join(wantIDs, "\n") {
		t.Fatalf("conversations:\n%s\nwant\n%s", strings.Join(ids, "\n"), strings.Join(wantIDs, "\n"))
	}

	main := byID[name+"#"+sid]
	if main.Title != "Screenshots" || main.Model != "qwen2.5-vl-7b" || main.Provider != "custom-provider-1a2b" {
		t.Errorf("main title %q model %q provider %q", main.Title, main.Model, main.Provider)
	}
	type shape struct {
		role  Role
		kinds string
	}
	var got []shape
	for _, m := range main.Messages {
		var kinds []string
		for _, p := range m.Parts {
			kinds = append(kinds, string(p.Kind))
		}
		got = append(got, shape{m.Role, strings.Join(kinds, ",")})
	}
	want := []shape{
		{RoleSystem, "text"},
		{RoleUser, "text,reference"},
		{RoleAssistant, "opaque,text,tool_call,tool_call"},
		{RoleTool, "tool_result"},
		{RoleTool, "tool_result"},
		{RoleAssistant, "text"},
		{RoleUser, "text"},
		{RoleAssistant, "tool_call"},
		{RoleTool, "tool_result"},
		{RoleAssistant, "text"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("messages\n%v\nwant\n%v", got, want)
	}
	ref := main.Messages[1].Parts[1]
	if ref.Ref.Kind != "storage-key" || ref.Ref.Target != "picture:input-box:0b9c" || ref.Ref.Origin != OriginUser ||
		ref.Ref.Reason != "picture bytes are in Chatbox's blob store, not in the backup" {
		t.Errorf("reference %+v", ref.Ref)
	}
	if l := ref.Loc; l.File != name || l.Pointer != "/session:"+sid+"/messages/1/contentParts/1/storageKey" || l.Offset == 0 {
		t.Errorf("reference loc %+v", l)
	}
	call := main.Messages[2].Parts[2].ToolCall
	if call.ID != "call_1" || call.Name != "mcp__browser__screenshot" || call.Arguments != `{"url":"https://example.org","full":true}` {
		t.Errorf("call %+v", call)
	}
	mcp := main.Messages[3].Parts[0].ToolResult
	if main.Messages[3].ToolCallID != "call_1" || mcp.CallID != "call_1" || mcp.Name != "mcp__browser__screenshot" || mcp.IsText || mcp.IsError {
		t.Errorf("MCP tool result %+v", mcp)
	}
	wantText := `[{"type":"text","text":"Captured <the> page"},{"type":"image-data","data":"` + pngB64 + `","mediaType":"image/png"}]`
	if mcp.MCP == nil || mcp.Text != wantText {
		t.Fatalf("MCP result text %.150s", mcp.Text)
	}
	if b := mcp.MCP.Content[1]; b.Type != "image" || b.Data != pngB64 || b.Loc.Pointer != "/session:"+sid+"/messages/2/contentParts/2/result/content/1" {
		t.Errorf("image block %s at %+v", b.Type, b.Loc)
	}
	search := main.Messages[4].Parts[0].ToolResult
	if search.MCP != nil || search.IsText || search.Text != `{"query":"x","searchResults":[{"title":"T","link":"https://t","snippet":"s <b>"}]}` {
		t.Errorf("web_search result %+v", search)
	}
	failed := main.Messages[8].Parts[0].ToolResult
	if !failed.IsError || failed.Text != "Timeout after 30s" || failed.CallID != "call_3" {
		t.Errorf("failed call result %+v", failed)
	}
	notes := strings.Join(main.Notes, "\n")
	for _, n := range []string{"skipped 1 info parts", "skipped 1 tool calls without a result"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes %q lack %q", main.Notes, n)
		}
	}
	if rs := main.Requests(); len(rs) != 4 {
		t.Errorf("%d requests, want 4 (two user turns, two runs of tool results)", len(rs))
	}
	if main.Messages[0].Raw == nil || main.Messages[2].Raw != nil {
		t.Errorf("Raw kept for unsplit messages only")
	}

	thread := byID[name+"#"+sid+"/thread/th-1"]
	if thread.Title != "Screenshots / Older topic" || len(thread.Messages) != 2 || thread.Messages[1].Parts[0].Text != "Hello" {
		t.Errorf("thread %q %+v", thread.Title, thread.Messages)
	}

	fork := byID[name+"#"+sid+"/fork/m-u2/0"]
	// History up to and including the fork message (7 messages), then the old branch.
	if len(fork.Messages) != 9 || fork.Messages[6].Parts[0].Text != "Again" || fork.Messages[7].Parts[0].ToolCall.ID != "call_0" {
		t.Fatalf("fork has %d messages", len(fork.Messages))
	}
	if b := fork.Messages[8].Parts[0].ToolResult.MCP.Content[0]; b.Loc.Pointer != "/session:"+sid+"/messageForksHash/m-u2/lists/0/messages/0/contentParts/0/result/content/0" {
		t.Errorf("fork image at %+v", b.Loc)
	}

	old := byID[name+"#old-1"]
	if old.Title != "Old chat" || len(old.Messages) != 2 {
		t.Fatalf("legacy session %q %d messages", old.Title, len(old.Messages))
	}
	parts := old.Messages[0].Parts
	if len(parts) != 4 || parts[0].Text != "What is in these?" || parts[1].Ref.Kind != "storage-key" ||
		parts[2].Ref.Kind != "url" || parts[2].Ref.Target != "https://example.org/cat.png" ||
		parts[3].Kind != PartImage || parts[3].Image.Encoding != "data-url" || parts[3].Image.DeclaredType != "image/png" ||
		!bytes.HasPrefix(parts[3].Image.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("legacy pictures %+v", parts)
	}
	if l := parts[3].Loc.Pointer; l != "/chat-sessions/0/messages/0/pictures/2/url" {
		t.Errorf("legacy picture pointer %s", l)
	}
	if !strings.Contains(strings.Join(old.Notes, "\n"), "skipped 1 legacy webBrowsing records") {
		t.Errorf("legacy notes %q", old.Notes)
	}
}

func TestReadChatboxBadInput(t *testing.T) {
	pngB64 := mcpTestPNG(t, 2, 2)
	full := chatboxTestBackup(t, pngB64)
	cut := full[:strings.Index(full, `"session:empty-1"`)+30]
	tests := []struct {
		name     string
		src      string
		convs    int
		problems int
		has      string
	}{
		{"truncated after the sessions keeps them", cut, 4, 1, "not valid JSON"},
		{"not an object", `[1,2]`, 0, 1, "not a JSON object"},
		{"messages of the wrong type", `{"session:x":{"id":"x","messages":"oops","threads":[{"id":"t","messages":[{"role":"user","contentParts":[{"type":"text","text":"hi"}]}]}]}}`, 1, 1, `session field "messages"`},
		{"bad data URL", `{"chat-sessions":[{"id":"a","messages":[{"role":"user","content":"x","pictures":[{"url":"data:image/png;base64,@@@"}]}]}]}`, 1, 1, "base64"},
		{"bad MCP result", `{"session:y":{"id":"y","messages":[{"role":"assistant","contentParts":[{"type":"tool-call","state":"result","toolCallId":"c","toolName":"t","args":{},"result":{"content":[{"type":"text","text":1}]}}]}]}}`, 1, 1, "/session:y/messages/0/contentParts/0/result/content/0/text"},
		{"session saved as a JSON string", `{"session:z":"{\"id\":\"z\",\"messages\":[{\"role\":\"user\",\"contentParts\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}"}`, 1, 0, ""},
		{"chat-sessions not an array", `{"chat-sessions":{"a":[1,{"b":2}]},"session:q":{"id":"q","messages":[{"role":"user","contentParts":[{"type":"text","text":"hi"}]}]}}`, 1, 1, "not an array"},
		{"invalid UTF-8", "{\"session:w\":{\"id\":\"w\",\"messages\":[{\"role\":\"user\",\"contentParts\":[{\"type\":\"text\",\"text\":\"a\xffb\"}]}]}}", 1, 0, ""},
		{"deep nesting", `{"settings":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, 0, 1, "exceeded max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mcpTestRead(t, "b.json", tt.src, FormatChatbox)
			if len(c.Conversations) != tt.convs || len(c.Problems) != tt.problems {
				t.Fatalf("%d conversations, problems %v; want %d, %d", len(c.Conversations), c.Problems, tt.convs, tt.problems)
			}
			if tt.problems > 0 {
				if msg := c.Problems[0].Error(); !strings.Contains(msg, tt.has) || !strings.HasPrefix(msg, "b.json") {
					t.Errorf("problem %q lacks %q", msg, tt.has)
				}
			}
		})
	}
}

func FuzzReadChatbox(f *testing.F) {
	f.Add([]byte(chatboxTestBackup(f, mcpTestPNG(f, 1, 1))))
	f.Add([]byte(`{"chat-sessions":[{"id":"a","messages":[{"role":"user","content":"x","pictures":[{"url":"data:image/png;base64,AAAA"}]}]}]}`))
	f.Add([]byte(`{"session:z":"{\"id\":\"z\",\"messages\":[]}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Collector
		_ = Read(context.Background(), "fuzz.json", bytes.NewReader(data), FormatChatbox, &c)
		for _, p := range c.Problems {
			if p.Loc.File != "fuzz.json" {
				t.Fatalf("problem without its file: %v", p)
			}
		}
	})
}

// chatboxDiscard counts conversations and drops them, so that a benchmark measures the
// reader's own memory.
type chatboxDiscard struct {
	convs, problems int
}

func (d *chatboxDiscard) Conversation(*Conversation) error { d.convs++; return nil }
func (d *chatboxDiscard) Problem(*ReadError)               { d.problems++ }

// BenchmarkReadChatboxBackup300MB writes a ~300 MB one-line backup (1,000 sessions; every
// 25th holds a 6 MB MCP screenshot result) and reads it, reporting the peak heap in use
// (sampled every 5 ms) as peak-heap-MB.
func BenchmarkReadChatboxBackup300MB(b *testing.B) {
	path := filepath.Join(b.TempDir(), "chatbox-exported-data-2026-4-1.json")
	size := chatboxWriteBigBackup(b, path, 300<<20)
	b.ReportAllocs()
	b.SetBytes(size)
	var peak atomic.Uint64
	for b.Loop() {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ms runtime.MemStats
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					runtime.ReadMemStats(&ms)
					for {
						old := peak.Load()
						if ms.HeapInuse <= old || peak.CompareAndSwap(old, ms.HeapInuse) {
							break
						}
					}
				}
			}
		}()
		var d chatboxDiscard
		if err := ReadFile(context.Background(), path, FormatChatbox, &d); err != nil {
			b.Fatal(err)
		}
		close(stop)
		wg.Wait()
		if d.problems != 0 || d.convs != 1000 {
			b.Fatalf("%d conversations, %d problems", d.convs, d.problems)
		}
	}
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}

// chatboxWriteBigBackup writes a backup of about target bytes and returns its size.
func chatboxWriteBigBackup(b *testing.B, path string, target int64) int64 {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	const sessions = 1000
	bigImage := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 6<<20/24)
	perSession := (target - sessions/25*int64(len(bigImage))) / sessions
	w.WriteString(`{"chat-sessions-list":[],`)
	var written int64
	for i := 0; i < sessions; i++ {
		fmt.Fprintf(w, `"session:%08d-0000-4000-8000-000000000000":{"id":"%08d","name":"S%d","messages":[`, i, i, i)
		var n int64
		for j := 0; n < perSession || j < 2; j++ {
			if j > 0 {
				w.WriteByte(',')
			}
			var msg string
			switch {
			case j%2 == 0:
				msg = `{"id":"u` + fmt.Sprint(j) + `","role":"user","contentParts":[{"type":"text","text":"` + strings.Repeat("question text ", 200) + `"}]}`
			case i%25 == 0 && j == 1:
				msg = `{"id":"a1","role":"assistant","contentParts":[{"type":"tool-call","state":"result","toolCallId":"c1","toolName":"mcp__b__shot","args":{},"result":{"content":[{"type":"text","text":"shot"},{"type":"image","data":"` + bigImage + `","mimeType":"image/png"}],"isError":false}},{"type":"text","text":"done"}]}`
			default:
				msg = `{"id":"a` + fmt.Sprint(j) + `","role":"assistant","contentParts":[{"type":"text","text":"` + strings.Repeat("answer text ", 300) + `"}]}`
			}
			w.WriteString(msg)
			n += int64(len(msg))
		}
		w.WriteString(`]},`)
		written += n
	}
	w.WriteString(`"configVersion":14,"__exported_at":"2026-04-01T10:00:00.000Z"}`)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}
