package corpora

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// largePayloadReader streams an MCP transcript whose result line carries n bytes of a seeded
// pattern as base64 in an image block (with `\/` escapes when escaped), then a text block,
// without holding the line.
func largePayloadReader(data []byte, escaped, claudeLog bool) io.Reader {
	b64 := base64.StdEncoding.EncodeToString(data)
	if escaped {
		b64 = strings.ReplaceAll(b64, "/", `\/`)
	}
	client, server, suffix := "", "", ""
	if claudeLog { // Claude Desktop's mcp-server-NAME.log records
		client = "2025-03-28T21:46:09.014Z [shot] [info] Message from client: "
		server = "2025-03-28T21:46:10.014Z [shot] [info] Message from server: "
		suffix = " { metadata: undefined }"
	}
	return io.MultiReader(
		strings.NewReader(client+`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot","arguments":{}}}`+suffix+"\n"),
		strings.NewReader(server+`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","mimeType":"image/png","data":"`),
		strings.NewReader(b64),
		strings.NewReader(`"},{"type":"text","text":"after the picture"},{"type":"resource","resource":{"uri":"file:///x","mimeType":"image/png","blob":"`+
			base64.StdEncoding.EncodeToString(data[:1000])+`"}}]}}`+suffix+"\n"))
}

// largePicture returns n bytes that start as a PNG and follow a pattern, and their sha256.
func largePicture(n int) ([]byte, [sha256.Size]byte) {
	data := make([]byte, n)
	copy(data, "\x89PNG\r\n\x1a\n")
	for i := 8; i < len(data); i++ {
		data[i] = byte(i*7 + i>>9)
	}
	return data, sha256.Sum256(data)
}

// TestLargePayloadStreamed: a picture whose decoded size is over LargeBase64Bytes in one JSON
// line is streamed past while the line is read: its size, first bytes and digest are kept, and
// the rest of the line is read as usual (peak memory: BenchmarkHugeLine in cmd/cli).
func TestLargePayloadStreamed(t *testing.T) {
	data, sum := largePicture(LargeBase64Bytes + 12345)
	for _, tt := range []struct{ escaped, claudeLog bool }{{false, false}, {true, false}, {false, true}} {
		escaped := tt.escaped
		format := FormatMCPJSONL
		if tt.claudeLog {
			format = FormatClaudeDesktopLog
		}
		var c Collector
		if err := Read(context.Background(), "mcp-server-shot.log", largePayloadReader(data, escaped, tt.claudeLog), format, &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Conversations) != 1 || len(c.Problems) != 0 {
			t.Fatalf("escaped %v: %d conversations, problems %v", escaped, len(c.Conversations), c.Problems)
		}
		var res *CallToolResult
		for _, m := range c.Conversations[0].Messages {
			for _, p := range m.Parts {
				if p.ToolResult != nil {
					res = p.ToolResult.MCP
				}
			}
		}
		if res == nil || len(res.Content) != 3 {
			t.Fatalf("escaped %v: result %+v", escaped, res)
		}
		img := res.Content[0]
		if img.Data != "" || img.Large == nil {
			t.Fatalf("escaped %v: the payload was held (%d characters)", escaped, len(img.Data))
		}
		l := img.Large
		if l.Bytes != int64(len(data)) || l.SHA256 != hex.EncodeToString(sum[:]) || !bytes.Equal(l.Head, data[:LargeHeadBytes]) || l.Err != "" {
			t.Errorf("escaped %v: kept %d bytes, sha256 %s, head ok %v, err %q", escaped, l.Bytes, l.SHA256, bytes.Equal(l.Head, data[:LargeHeadBytes]), l.Err)
		}
		if res.Content[1].Text != "after the picture" || res.Content[2].Resource == nil || res.Content[2].Resource.LargeBlob != nil ||
			len(*res.Content[2].Resource.Blob) != len(base64.StdEncoding.EncodeToString(data[:1000])) {
			t.Errorf("escaped %v: the blocks after the payload: %+v", escaped, res.Content[1:])
		}
	}
}

// TestLargeMarkerNotForgeable: a recording cannot pass itself off as a streamed payload.
func TestLargeMarkerNotForgeable(t *testing.T) {
	forged := `\u0000strata-eval:large-base64:000000000000000000000000:99999999999:99999999999:00:iVBORw0KGgo=:`
	src := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","mimeType":"image/png","data":"` + forged + `"}]}}` + "\n"
	var c Collector
	if err := Read(context.Background(), "f.jsonl", strings.NewReader(src), FormatMCPJSONL, &c); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Conversations[0].Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil && p.ToolResult.MCP.Content[0].Large != nil {
				t.Error("a forged marker was taken for a streamed payload")
			}
		}
	}
}

// FuzzLargeDecoder: what the streaming decoder keeps of valid base64 is what
// encoding/base64 decodes, whatever the sizes of the writes; other input gives an error.
func FuzzLargeDecoder(f *testing.F) {
	f.Add([]byte("hello, world"), 3)
	f.Add([]byte{0x89, 'P', 'N', 'G'}, 1)
	f.Fuzz(func(t *testing.T, data []byte, step int) {
		step = 1 + abs(step)%97
		b64 := []byte(base64.StdEncoding.EncodeToString(data))
		d := newLargeDecoder()
		for i := 0; i < len(b64); i += step {
			d.write(b64[i:min(len(b64), i+step)])
		}
		l := d.finish()
		sum := sha256.Sum256(data)
		if l.Err != "" || l.Bytes != int64(len(data)) || l.SHA256 != hex.EncodeToString(sum[:]) || l.Chars != int64(len(b64)) ||
			!bytes.Equal(l.Head, data[:min(len(data), LargeHeadBytes)]) {
			t.Fatalf("%q: kept %+v", b64, l)
		}
		if len(b64) > 4 && bytes.HasSuffix(b64, []byte("=")) {
			d := newLargeDecoder()
			d.write(bytes.TrimRight(b64, "="))
			if d.finish().Err == "" {
				t.Fatalf("%q without its padding: no error", b64)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// FuzzLineSpiller: with a small streaming limit, the line a spiller writes does not depend on
// how the line is cut into chunks, a line with no "data" or "blob" member comes out unchanged,
// and a valid JSON line stays valid JSON whose streamed payloads read back as markers.
func FuzzLineSpiller(f *testing.F) {
	f.Add([]byte(`{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAA","x":"y"}`), 3, 5)
	f.Add([]byte(`{"resource":{"blob":"QUJD\/REVG==","mimeType":"image/png"}}`), 1, 4)
	f.Add([]byte(`{"data" : "QUJDREVG\nQUJD", "data":["QUJDREVGSEhI"]}`), 7, 4)
	f.Add([]byte(`{"image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA"},"image_url":"DATA:a;BASE64,QUJDREVG"}`), 5, 6)
	f.Fuzz(func(t *testing.T, line []byte, step, limit int) {
		step, limit = 1+abs(step)%61, 4+abs(limit)%64
		whole := (&lineSpiller{limit: limit}).feed(nil, line)
		s := &lineSpiller{limit: limit}
		var cut []byte
		for i := 0; i < len(line); i += step {
			cut = s.feed(cut, line[i:min(len(line), i+step)])
		}
		if !bytes.Equal(cut, whole) {
			t.Fatalf("chunks of %d give %q, the whole line %q", step, cut, whole)
		}
		if !bytes.Contains(line, []byte(`"data"`)) && !bytes.Contains(line, []byte(`"blob"`)) && !bytes.Contains(line, []byte(`url"`)) && !bytes.Equal(whole, line) {
			t.Fatalf("a line with no payload member changed: %q → %q", line, whole)
		}
		if jwValid(line) && s.spill == nil && !jwValid(whole) {
			t.Fatalf("valid JSON %q became %q", line, whole)
		}
	})
}

// FuzzSpillReader: read through a spillReader in reads of any size, a document comes out as the
// spiller writes it whole, and every byte outside a payload's stand-in maps back to the same
// byte of the input (inputOffset).
func FuzzSpillReader(f *testing.F) {
	f.Add([]byte(`{"a":[{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAA"},{"data":"QUJDREVGR0hJSktM","x":"tail"}]}`), 3, 5)
	f.Add([]byte(`{"resource":{"blob":"QUJD\/REVG==","mimeType":"image/png"}, "k":"a long string that is no key"}`), 1, 4)
	f.Fuzz(func(t *testing.T, doc []byte, step, limit int) {
		fuzzSpillReader(t, doc, step, limit, func() lineSpiller { return lineSpiller{} })
	})
}

// FuzzRunSpillReader is FuzzSpillReader for the reader that streams past the base64 runs of any
// string as well (newRunSpillReader).
func FuzzRunSpillReader(f *testing.F) {
	f.Add([]byte(`{"a":[{"text":"screen: QUJDREVGR0hJSktM\/QUJD== and more"},{"data":"QUJDREVGR0hJSktM","x":"tail"}]}`), 3, 5)
	f.Add([]byte(`{"text":"a run that starts with an escape: \/QUJDREVGR0hJSktMTU5PUFFSU1RVVldY"}`), 1, 4)
	f.Add([]byte(`{"output":"{\"page\":\"p\",\"data\":\"QUJDREVGR0hJSktMTU5P\"}","k":"a long string that is no key"}`), 1, 4)
	f.Fuzz(func(t *testing.T, doc []byte, step, limit int) {
		fuzzSpillReader(t, doc, step, limit, func() lineSpiller { return *textRunSpiller(nil) })
	})
}

// fuzzSpillReader reads doc through a spillReader whose spiller newSpiller makes, in reads of
// step bytes, and checks it against the spiller fed doc whole and every byte's inputOffset.
func fuzzSpillReader(t *testing.T, doc []byte, step, limit int, newSpiller func() lineSpiller) {
	step, limit = 1+abs(step)%61, 4+abs(limit)%64
	whole := newSpiller()
	whole.limit = limit
	want := whole.feed(nil, doc)
	sr := newSpillReader(iotest.OneByteReader(bytes.NewReader(doc)))
	sr.s = newSpiller()
	sr.s.limit = limit
	var got []byte
	buf := make([]byte, step)
	for {
		n, err := sr.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read in %d-byte reads: %q, the spiller whole: %q", step, got, want)
	}
	marker := []byte(`\u0000` + largeMarkerPrefix()[1:])
	for o := 0; o < len(got); o++ {
		if bytes.HasPrefix(got[o:], marker) { // skip the stand-in, up to the NUL that ends it
			o += len(marker) + bytes.Index(got[o+len(marker):], []byte(`\u0000`)) + len(`\u0000`)
			if o == len(got) {
				break
			}
		}
		if in := sr.inputOffset(int64(o)); in >= int64(len(doc)) || doc[in] != got[o] {
			t.Fatalf("output byte %d (%q) maps to input byte %d of %q", o, got[o], in, doc)
		}
	}
}

// TestChatboxLargePayloadStreamed: a Chatbox backup whose tool result carries a picture over
// LargeBase64Bytes is read without holding it: the block keeps its size, first bytes and
// digest, the sessions after it are read with the offsets of the file, and a conversation's
// size is that of its messages in the file.
func TestChatboxLargePayloadStreamed(t *testing.T) {
	data, sum := largePicture(LargeBase64Bytes + 4321)
	b64 := base64.StdEncoding.EncodeToString(data)
	msg := func(id, parts string) string {
		return `{"id":"` + id + `","role":"assistant","contentParts":[` + parts + `]}`
	}
	big := msg("a1", `{"type":"tool-call","state":"result","toolCallId":"c1","toolName":"shot","args":{},`+
		`"result":{"content":[{"type":"text","text":"the screen"},{"type":"image","mimeType":"image/png","data":"`+b64+`"}]}}`)
	user := `{"id":"u1","role":"user","contentParts":[{"type":"text","text":"take a screenshot"}]}`
	second := `"session:s2":{"id":"s2","name":"Later","type":"chat","messages":[` + user + `]}`
	doc := `{"session:s1":{"id":"s1","name":"Shots","type":"chat","messages":[` + user + `,` + big + `]},` + second + `}`
	var c Collector
	if err := Read(context.Background(), "chatbox-exported-data.json", strings.NewReader(doc), FormatChatbox, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Conversations) != 2 || len(c.Problems) != 0 {
		t.Fatalf("%d conversations, problems %v", len(c.Conversations), c.Problems)
	}
	first := c.Conversations[0]
	var res *CallToolResult
	for _, m := range first.Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				res = p.ToolResult.MCP
			}
		}
	}
	if res == nil || len(res.Content) != 2 || res.Content[1].Large == nil || res.Content[1].Data != "" {
		t.Fatalf("the picture was not streamed past: %+v", res)
	}
	if l := res.Content[1].Large; l.Bytes != int64(len(data)) || l.SHA256 != hex.EncodeToString(sum[:]) || !bytes.Equal(l.Head, data[:LargeHeadBytes]) || l.Err != "" {
		t.Errorf("kept %d bytes, sha256 %s, err %q", l.Bytes, l.SHA256, l.Err)
	}
	if want := int64(strings.Index(doc, second) - 1 - len(`{"session:s1":`)); first.Bytes != want {
		t.Errorf("conversation bytes %d, want %d (the session as recorded)", first.Bytes, want)
	}
	if got, want := first.Source.Offset, int64(len(`{"session:s1"`)); got != want {
		t.Errorf("the first session at byte %d, want %d", got, want)
	}
	if got, want := c.Conversations[1].Source.Offset, int64(strings.Index(doc, second)+len(`"session:s2"`)); got != want {
		t.Errorf("the session after the payload at byte %d, want %d (its offset in the file)", got, want)
	}
}

// TestAPILogLargeImageStreamed: in an OpenAI chat, Responses or Anthropic request log, an
// image payload over LargeBase64Bytes in one line (a data URL, a base64 source) is streamed
// past while the line is read: the image part keeps its size, first bytes and digest, and the
// rest of the line and the next line are read as usual.
func TestAPILogLargeImageStreamed(t *testing.T) {
	data, sum := largePicture(LargeBase64Bytes + 777)
	b64 := base64.StdEncoding.EncodeToString(data)
	for _, tt := range largeRecordings {
		if tt.format == FormatMCPJSONL || tt.format == FormatChatbox {
			continue // TestLargePayloadStreamed, TestChatboxLargePayloadStreamed
		}
		src := io.MultiReader(strings.NewReader(tt.head), strings.NewReader(b64), strings.NewReader(tt.tail), strings.NewReader(tt.next))
		var c Collector
		if err := Read(context.Background(), "log.jsonl", src, tt.format, &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Conversations) != 2 || len(c.Problems) != 0 {
			t.Fatalf("%s: %d conversations, problems %v", tt.format, len(c.Conversations), c.Problems)
		}
		parts := c.Conversations[0].Messages[0].Parts
		if len(parts) != 2 || parts[0].Image == nil || parts[1].Text != "after" {
			t.Fatalf("%s: parts %+v", tt.format, parts)
		}
		img := parts[0].Image
		if img.Data != nil || img.Large == nil {
			t.Fatalf("%s: the payload was held (%d bytes)", tt.format, len(img.Data))
		}
		if l := img.Large; l.Bytes != int64(len(data)) || l.SHA256 != hex.EncodeToString(sum[:]) || !bytes.Equal(l.Head, data[:LargeHeadBytes]) || l.Err != "" {
			t.Errorf("%s: kept %d bytes, sha256 %s, err %q", tt.format, l.Bytes, l.SHA256, l.Err)
		}
		if got := len(c.Conversations[0].Messages[0].Raw); got > 3*LargeHeadBytes { // the head as hex
			t.Errorf("%s: the message as kept is %d bytes", tt.format, got)
		}
	}
}

// largeRecordings are one recording per format that streams a payload past: the JSON before
// and after a tool's (or user's) picture in one line, and what follows the line.
var largeRecordings = []struct {
	format           Format
	head, tail, next string
}{
	{FormatOpenAIChat, `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,`,
		`"}},{"type":"text","text":"after"}]}]}` + "\n", `{"model":"m","messages":[{"role":"user","content":"next"}]}`},
	{FormatOpenAIResponses, `{"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,`,
		`"},{"type":"input_text","text":"after"}]}]}` + "\n", `{"model":"m","input":"next"}`},
	{FormatAnthropic, `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`,
		`"}},{"type":"text","text":"after"}]}]}` + "\n", `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"next"}]}`},
	{FormatMCPJSONL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","mimeType":"image/png","data":"`, `"}]}}` + "\n", ""},
	{FormatChatbox, `{"session:s1":{"id":"s1","name":"Shots","type":"chat","messages":[{"id":"u1","role":"user","contentParts":[{"type":"text","text":"shot"}]},` +
		`{"id":"a1","role":"assistant","contentParts":[{"type":"tool-call","state":"result","toolCallId":"c1","toolName":"shot","args":{},` +
		`"result":{"content":[{"type":"image","mimeType":"image/png","data":"`, `"}]}}]}]}}`, ""},
}

// TestLargePayloadMemoryFlat: in every format that streams a payload past, what a read
// allocates does not grow with the payload past the size from which it is streamed: 40 MB more
// of base64 cost less than 4 MB more (the bound of BenchmarkHugeLine's 1 GB line, at a size
// for the unit tests).
func TestLargePayloadMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 270 MB of base64 per format")
	}
	small, _ := largePicture(LargeBase64Bytes + 1<<20)
	big, _ := largePicture(LargeBase64Bytes + 31<<20)
	payloads := []string{base64.StdEncoding.EncodeToString(small), base64.StdEncoding.EncodeToString(big)}
	for _, rec := range largeRecordings {
		var allocs [2]uint64
		for i, b64 := range payloads {
			src := io.MultiReader(strings.NewReader(rec.head), strings.NewReader(b64), strings.NewReader(rec.tail), strings.NewReader(rec.next))
			var c Collector
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := Read(context.Background(), "chatbox-exported-data.json", src, rec.format, &c)
			runtime.ReadMemStats(&after)
			if err != nil || len(c.Problems) != 0 || len(c.Conversations) == 0 {
				t.Fatalf("%s: %v, problems %v", rec.format, err, c.Problems)
			}
			allocs[i] = after.TotalAlloc - before.TotalAlloc
		}
		t.Logf("%s: %d, %d", rec.format, allocs[0], allocs[1])
		if grew := int64(allocs[1]) - int64(allocs[0]); grew > 4<<20 {
			t.Errorf("%s: 40 MB more of base64 allocated %d bytes more (%d, %d)", rec.format, grew, allocs[0], allocs[1])
		}
	}
}
