package corpora

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// readBudget reads name from r (format "" detects it) and fails the test past the time or
// allocation budget or when the reader panics; it returns what was collected.
func readBudget(t *testing.T, name string, r io.Reader, format Format, d time.Duration, maxAlloc uint64) (*Collector, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	var c Collector
	err := Read(context.Background(), name, r, format, &c)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if elapsed > d {
		t.Errorf("%s: took %v, budget %v", name, elapsed, d)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
		t.Errorf("%s: allocated %d MB, budget %d MB", name, alloc>>20, maxAlloc>>20)
	}
	return &c, err
}

// located reports whether every problem and the error name the file and a place in it.
func located(t *testing.T, name string, c *Collector, err error) {
	t.Helper()
	var all []error
	for _, p := range c.Problems {
		all = append(all, p)
	}
	if err != nil {
		all = append(all, err)
	}
	for _, e := range all {
		msg := e.Error()
		if !strings.HasPrefix(msg, name) {
			t.Errorf("problem does not name the file: %v", e)
		}
	}
}

func TestHostileRecordings(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepObj := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c","content":"%s"}]}`
	tests := []struct {
		name   string
		file   string
		format Format
		data   string
		// wantConversations is the number of conversations a correct reading gives (-1: any).
		wantConversations int
		wantProblem       bool
	}{
		{"array nested 100000 deep", "deep.json", FormatOpenAIChat, deep, 0, true},
		{"messages nested 100000 deep", "deep.json", FormatOpenAIChat, `{"messages":` + deep + `}`, 0, true},
		{"object nested 100000 deep", "deep.json", FormatOpenAIChat, deepObj, 0, true},
		{"deep value in a tool argument", "deep.json", FormatOpenAIChat, `{"model":"m","messages":[{"role":"user","content":"x","extra":` + deep + `}]}`, 0, true}, // past encoding/json's depth limit: a located problem
		{"deep json in mcp jsonl", "deep.jsonl", FormatMCPJSONL, `{"jsonrpc":"2.0","id":1,"result":` + deepObj + "}\n", -1, false},
		{"deep json in a chatbox backup", "chatbox-exported-data-x.json", FormatChatbox, `{"chat-sessions-list":` + deep + `}`, -1, true},
		{"deep json in anthropic", "a.json", FormatAnthropic, `{"model":"claude-x","max_tokens":5,"messages":` + deep + `}`, 0, true},
		{"deep json in responses", "r.json", FormatOpenAIResponses, `{"model":"m","input":` + deep + `}`, 0, true},
		{"invalid UTF-8 in a string", "u.json", FormatOpenAIChat, strings.Replace(chat, "%s", "bad \xff\xfe bytes", 1), 0, true}, // located at /messages/1/content
		{"invalid UTF-8 outside strings", "u.json", FormatOpenAIChat, "\xff\xfe" + chat, 0, true},
		{"NUL bytes in a string", "n.json", FormatOpenAIChat, strings.Replace(chat, "%s", "a\x00b", 1), 0, true},
		{"escaped NUL in a string", "n.json", FormatOpenAIChat, strings.Replace(chat, "%s", `a\u0000b`, 1), 1, false},
		{"NUL bytes between lines", "n.jsonl", FormatOpenAIChat, strings.Replace(chat, "%s", "x", 1) + "\n\x00\x00\n" + strings.Replace(chat, "%s", "y", 1) + "\n", 2, true},
		{"CRLF JSON Lines", "crlf.jsonl", FormatOpenAIChat, strings.Replace(chat, "%s", "x", 1) + "\r\n" + strings.Replace(chat, "%s", "y", 1) + "\r\n", 2, false},
		{"CRLF MCP stdio log", "crlf.jsonl", FormatMCPJSONL,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}` + "\r\n" +
				`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}` + "\r\n", 1, false},
		{"truncated JSON", "t.json", FormatOpenAIChat, strings.Replace(chat, "%s", "x", 1)[:40], 0, true},
		{"truncated base64 data URL", "b.json", FormatOpenAIChat, `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEU"}}]}]}`, -1, false},
		{"base64 data URL with line breaks", "b.json", FormatOpenAIChat, `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0K\r\nGgoAAAAN\nSUhEUgAA"}}]}]}`, -1, false},
		{"empty file", "e.json", "", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := readBudget(t, tt.file, strings.NewReader(tt.data), tt.format, 10*time.Second, 256<<20)
			located(t, tt.file, c, err)
			if tt.wantConversations >= 0 && len(c.Conversations) != tt.wantConversations {
				t.Errorf("%d conversations, want %d (problems %v, err %v)", len(c.Conversations), tt.wantConversations, c.Problems, err)
			}
			if tt.wantProblem && len(c.Problems) == 0 && err == nil {
				t.Error("no problem reported")
			}
		})
	}
}

// lineReader produces one JSON Lines record whose tool message is n bytes of text, without
// holding it: {"model":"m","messages":[{"role":"user","content":"aaaa…"}]}\n.
type lineReader struct {
	head, tail []byte
	n          int64
}

func (r *lineReader) Read(p []byte) (int, error) {
	if len(r.head) > 0 {
		k := copy(p, r.head)
		r.head = r.head[k:]
		return k, nil
	}
	if r.n > 0 {
		k := int(min(int64(len(p)), r.n))
		for i := range p[:k] {
			p[i] = 'a' + byte(i%26)
		}
		r.n -= int64(k)
		return k, nil
	}
	if len(r.tail) > 0 {
		k := copy(p, r.tail)
		r.tail = r.tail[k:]
		return k, nil
	}
	return 0, io.EOF
}

func TestHostileLongLine(t *testing.T) {
	sizes := []int64{64 << 20}
	if !testing.Short() {
		sizes = append(sizes, 1<<30+1) // one line longer than the record cap
	}
	for _, n := range sizes {
		r := &lineReader{head: []byte(`{"model":"m","messages":[{"role":"user","content":"`), tail: []byte("\"}]}\n" + `{"model":"m","messages":[{"role":"user","content":"next"}]}` + "\n"), n: n}
		c, err := readBudget(t, "long.jsonl", r, FormatOpenAIChat, 120*time.Second, uint64(6*n)+(512<<20))
		located(t, "long.jsonl", c, err)
		if err != nil {
			t.Fatalf("%d-byte line: %v", n, err)
		}
		if n > apiMaxRecordBytes {
			if len(c.Problems) != 1 || len(c.Conversations) != 1 {
				t.Errorf("%d-byte line: %d problems, %d conversations; want the long line reported and the next one read", n, len(c.Problems), len(c.Conversations))
			}
			continue
		}
		if len(c.Conversations) != 2 || len(c.Problems) != 0 {
			t.Fatalf("%d-byte line: %d conversations, problems %v", n, len(c.Conversations), c.Problems)
		}
		if got := len(c.Conversations[0].Messages[0].Parts[0].Text); int64(got) != n {
			t.Errorf("text of %d bytes read back as %d", n, got)
		}
	}
}

// TestHostileLocatedPlaces: one-line files broken inside the line name the byte (line:column),
// and an empty file says so, with or without a format.
func TestHostileLocatedPlaces(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c","content":"%s"}]}`
	nul := strings.Replace(chat, "%s", "a\x00b", 1)
	deep := `{"model":"m","messages":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	utf := strings.Replace(chat, "%s", "x", 1) + "\n" + strings.Replace(chat, "%s", "bad \xff", 1) + "\n"
	tests := []struct {
		name, file, data string
		format           Format
		want             string // the problem's text starts with it
	}{
		{"NUL byte in a one-line file", "n.json", nul, FormatOpenAIChat, fmt.Sprintf("n.json:1:%d: ", strings.IndexByte(nul, 0)+1)},
		{"NUL byte, format detected", "n.json", nul, "", fmt.Sprintf("n.json:1:%d: ", strings.IndexByte(nul, 0)+1)},
		{"100,000-deep nesting", "d.json", deep, FormatOpenAIChat, "d.json:1:"},
		{"invalid UTF-8 on line 2", "u.jsonl", utf, FormatOpenAIChat, fmt.Sprintf("u.jsonl:2:%d at /messages/1/content: invalid UTF-8", strings.IndexByte(utf[strings.IndexByte(utf, '\n')+1:], 0xff)+1)},
		{"empty file", "e.json", "", "", "e.json: empty"},
		{"empty file with a format", "e.json", "", FormatOpenAIChat, "e.json: empty"},
		{"white space only, with a format", "e.jsonl", " \n\r\n", FormatMCPJSONL, "e.jsonl: empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Collector
			err := Read(context.Background(), tt.file, strings.NewReader(tt.data), tt.format, &c)
			var msgs []string
			for _, p := range c.Problems {
				msgs = append(msgs, p.Error())
			}
			if err != nil {
				msgs = append(msgs, err.Error())
			}
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0], tt.want) {
				t.Errorf("problems %q, want one starting %q", msgs, tt.want)
			}
		})
	}
}
