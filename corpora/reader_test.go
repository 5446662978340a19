package corpora

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFormatTableIsComplete(t *testing.T) {
	seen := map[Format]bool{}
	for _, spec := range formatTable() {
		if spec.format == "" || spec.sniff == nil || spec.read == nil {
			t.Errorf("incomplete entry %+v", spec.format)
		}
		if seen[spec.format] {
			t.Errorf("format %s twice in the table", spec.format)
		}
		seen[spec.format] = true
		if got, err := ParseFormat(string(spec.format)); err != nil || got != spec.format {
			t.Errorf("ParseFormat(%s) = %q, %v", spec.format, got, err)
		}
	}
	if len(Formats()) != len(seen) {
		t.Errorf("Formats lists %d, the table %d", len(Formats()), len(seen))
	}
	for _, s := range []string{"", "auto"} {
		if got, err := ParseFormat(s); err != nil || got != "" {
			t.Errorf("ParseFormat(%q) = %q, %v; want detection", s, got, err)
		}
	}
	_, err := ParseFormat("chatbox-v2")
	if err == nil {
		t.Fatal("unknown format accepted")
	}
	for _, f := range Formats() {
		if !strings.Contains(err.Error(), string(f)) {
			t.Errorf("error %q does not name %s", err, f)
		}
	}
}

// TestDetectOrder checks the places where two sniffs say yes and the table's order decides.
func TestDetectOrder(t *testing.T) {
	tests := []struct {
		name, file, head string
		want             Format
	}{
		{"inspector export holds JSON-RPC", "history.json", `[{"direction":"request","message":{"jsonrpc":"2.0","id":1,"method":"tools/call"}}]`, FormatMCPInspector},
		{"stdio prefix before any JSON-RPC", "t.log", "STDIN: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n", FormatMCPJSONL},
		{"chatbox name wins over messages", "chatbox-exported-data-2025.json", `{"settings":{},"messages":[]}`, FormatChatbox},
		{"claude log of JSON-RPC", "mcp-server-fs.log", `2025-06-01T10:00:00.000Z [fs] [info] Message from client: {"jsonrpc":"2.0","id":1}`, FormatClaudeDesktopLog},
		{"claude log by its first line", "x.log", "\ufeff2025-06-01T10:00:00.000Z [info] [fs] Server started\n", FormatClaudeDesktopLog},
		{"responses before anthropic", "req.json", `{"model":"claude-x","input":[{"type":"input_text","text":"hi"}]}`, FormatOpenAIResponses},
		{"anthropic before chat", "req.json", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}]}`, FormatAnthropic},
		{"httprr after white space", "trace", "\n  httprr trace v1\n", FormatHTTPRR},
	}
	for _, tt := range tests {
		got, err := Detect(tt.file, []byte(tt.head))
		if err != nil || got != tt.want {
			t.Errorf("%s: Detect = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := Detect("notes.txt", []byte("just some text")); err != ErrUnknownFormat {
		t.Errorf("plain text: err = %v, want ErrUnknownFormat", err)
	}
}

// TestDocsListTheDetectionOrder keeps the detection order that docs/formats.md and
// docs/decisions.md write out that of the table.
func TestDocsListTheDetectionOrder(t *testing.T) {
	var want []string
	for _, f := range Formats() {
		want = append(want, string(f))
	}
	for _, tt := range []struct{ page, lead string }{
		{"formats.md", "Detection tries the formats in this order and takes the first that matches:"},
		{"decisions.md", "tried in this order:"},
	} {
		doc, err := os.ReadFile(filepath.Join("..", "docs", tt.page))
		if err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(string(doc), tt.lead)
		if !ok {
			t.Fatalf("docs/%s does not state the detection order (%q)", tt.page, tt.lead)
		}
		list, _, _ := strings.Cut(after, "(")
		var named []string
		for _, f := range strings.Split(list, "`") {
			if f = strings.TrimSpace(f); f != "" && f != "," {
				named = append(named, f)
			}
		}
		if strings.Join(named, " ") != strings.Join(want, " ") {
			t.Errorf("docs/%s lists %v, the table %v", tt.page, named, want)
		}
	}
}

// TestFormatProperties: the table says which formats' clients stringify MCP results (the
// replay's auto delivery): Chatbox's and Cline's.
func TestFormatProperties(t *testing.T) {
	for _, f := range Formats() {
		if got, want := StringifiesMCP(f), f == FormatChatbox || f == FormatCline; got != want {
			t.Errorf("StringifiesMCP(%s) = %v", f, got)
		}
	}
	if StringifiesMCP("no-such-format") {
		t.Error("an unknown format stringifies MCP results")
	}
}

// FuzzDetect: detection never panics, gives the same answer twice, and every format it names
// has a reader.
func FuzzDetect(f *testing.F) {
	f.Add("chatbox-exported-data-1.json", `{"chat-sessions":[]}`)
	f.Add("mcp.log", "2025-06-01T10:00:00.000Z [fs] [info] Message from client: {}")
	f.Add("t.jsonl", "STDIN: {\"jsonrpc\":\"2.0\"}")
	f.Add("h.json", `[{"direction":"request","message":{"jsonrpc":"2.0"}}]`)
	f.Add("r.json", `{"model":"claude-x","max_tokens":1,"system":"s","messages":[]}`)
	f.Add("x", "\ufeff httprr trace v1\n")
	f.Fuzz(func(t *testing.T, name, head string) {
		got, err := Detect(name, []byte(head))
		again, err2 := Detect(name, []byte(head))
		if got != again || (err == nil) != (err2 == nil) {
			t.Fatalf("Detect gave %q then %q", got, again)
		}
		if err != nil {
			return
		}
		if _, err := ReaderFor(got); err != nil {
			t.Fatalf("Detect named %q, which has no reader: %v", got, err)
		}
	})
}

// TestReadFileDigestSeesTheWholeFile: the bytes ReadFileDigest writes are the file's, once and
// in order, whether the reader reads it all (a log), stops early (a file of no known format) or
// fails; a long line read through it is still sized from the file, not grown.
func TestReadFileDigestSeesTheWholeFile(t *testing.T) {
	dir := t.TempDir()
	line := `{"messages":[{"role":"tool","tool_call_id":"c","content":"` + strings.Repeat("iVBORw0KGgo", 300_000) + `"}]}`
	files := map[string]string{
		"log.jsonl":   `{"messages":[{"role":"user","content":"x"}]}` + "\n" + line + "\n",
		"notes.txt":   "not a recording\n" + strings.Repeat("z", 3<<20),
		"broken.json": `{"messages":[` + strings.Repeat(" ", 2<<20),
		// larger files, read whole and stopped early
		"big.jsonl": `{"messages":[{"role":"user","content":"x"}]}` + "\n" + strings.Replace(line, "iVBORw0KGgo", strings.Repeat("Q", 9<<20), 1) + "\n",
		"big.txt":   "not a recording\n" + strings.Repeat("z", 9<<20),
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var c Collector
		h := sha256.New()
		n, whole, err := ReadFileDigest(context.Background(), path, "", &c, h)
		want := sha256.Sum256([]byte(content))
		if !whole || n != int64(len(content)) || !bytes.Equal(h.Sum(nil), want[:]) {
			t.Errorf("%s: %d bytes (whole %v) with sha256 %x; want %d with %x (read error %v)", name, n, whole, h.Sum(nil), len(content), want, err)
		}
		if name == "log.jsonl" || name == "big.jsonl" {
			if err != nil || len(c.Conversations) != 2 {
				t.Fatalf("%s: %v, %d conversations", name, err, len(c.Conversations))
			}
			raw := c.Conversations[1].Messages[0].Raw
			if spare := cap(raw) - len(raw); spare > 64<<10 {
				t.Errorf("the long line's buffer has %d bytes to spare: grown, not sized from the file", spare)
			}
		}
	}
	if _, whole, err := ReadFileDigest(context.Background(), filepath.Join(dir, "missing.json"), "", &Collector{}, sha256.New()); whole || err == nil {
		t.Errorf("a missing file: whole %v, error %v", whole, err)
	}
}

// TestReadFileDigestCancelled: a cancelled read does not go on to read the rest of the file,
// and says the digest is not whole.
func TestReadFileDigestCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("not a recording\n"+strings.Repeat("z", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, whole, _ := ReadFileDigest(ctx, path, "", &Collector{}, sha256.New()); whole || n > 1<<20 {
		t.Errorf("cancelled: %d bytes, whole %v", n, whole)
	}
}

// TestReadFileDigestSmallFileAllocatesLittle: a small file read to its end allocates no
// buffer for a rest it does not have (a corpus of many small files would allocate one per
// file).
func TestReadFileDigestSmallFileAllocatesLittle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "small.jsonl")
	content := `{"messages":[{"role":"user","content":"x"}]}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() {
		if _, whole, err := ReadFileDigest(context.Background(), path, "", &Collector{}, sha256.New()); !whole || err != nil {
			t.Fatalf("whole %v, %v", whole, err)
		}
	}
	read()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		read()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 512<<10 {
		t.Errorf("a read of a %d-byte file allocates %d KiB", len(content), per>>10)
	}
}
