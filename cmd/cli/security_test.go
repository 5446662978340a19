package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// plantedSecrets are credentials planted in recorded requests; none may reach any output.
var plantedSecrets = []string{
	"sk-planted-authorization-7f3a",
	"sk-planted-api-key-field-91c2",
	"planted-x-api-key-44de",
	"planted-url-token-0b7e",
	"planted-httprr-bearer-5a61",
	"planted-tool-text-key-3c9d",
}

// plantedToolText is a tool's text naming a URL with a credential: counted as recorded,
// written and printed redacted.
var plantedToolText = "the report is at https://reports.example.com/r/7?api_key=" + plantedSecrets[5] + "&page=2, and at https://bot:" + plantedSecrets[5] + "@files.example.com/r/7."

// writeHostileRecordings writes recordings that name a file path and URLs (to be never opened
// or fetched) and carry planted secrets, and returns the folder.
func writeHostileRecordings(t *testing.T, sentinel, listener string) string {
	t.Helper()
	dir := t.TempDir()
	mustJSON := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	type m = map[string]any
	toolContent := mustJSON([]m{
		{"type": "resource_link", "uri": "file://" + sentinel, "name": "shot.png", "mimeType": "image/png"},
		{"type": "text", "text": "saved to " + sentinel + " and " + listener + "/latest.png"},
	})
	files := map[string]string{
		// A request body with api_key fields and a tool result naming a path and a URL.
		"secrets.chat.json": mustJSON(m{"model": "qwen3-vl", "api_key": plantedSecrets[1], "x-api-key": plantedSecrets[2], "messages": []m{
			{"role": "user", "content": []m{{"type": "text", "text": "look"},
				{"type": "image_url", "image_url": m{"url": listener + "/pic.png?access_token=" + plantedSecrets[3]}}}},
			{"role": "assistant", "content": "", "tool_calls": []m{{"id": "c1", "type": "function",
				"function": m{"name": "read", "arguments": mustJSON(m{"path": sentinel})}}}},
			{"role": "tool", "tool_call_id": "c1", "content": toolContent},
		}}),
		// A proxy log whose envelope carries the Authorization header.
		"proxy.chat.jsonl": mustJSON(m{"ts": "2026-11-30T10:00:00Z", "headers": m{"Authorization": "Bearer " + plantedSecrets[0], "x-api-key": plantedSecrets[2]},
			"request": m{"method": "POST", "body": m{"model": "m", "messages": []m{{"role": "user", "content": "hi"}}}}, "status": 200}) + "\n",
		// A tool's text naming URLs with credentials.
		"tooltext.chat.json": mustJSON(m{"model": "m", "messages": []m{
			{"role": "user", "content": "where is the report?"},
			{"role": "assistant", "content": "", "tool_calls": []m{{"id": "c1", "type": "function",
				"function": m{"name": "find", "arguments": mustJSON(m{"url": "https://reports.example.com/?token=" + plantedSecrets[5]})}}}},
			{"role": "tool", "tool_call_id": "c1", "content": plantedToolText},
		}}),
		// An httprr trace with the header on the recorded request.
		"trace.httprr": httprrTrace(`{"model":"m","messages":[{"role":"user","content":"hello"}]}`, "Authorization: Bearer "+plantedSecrets[4]),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// httprrTrace writes one POST to an OpenAI-compatible endpoint as an httprr trace.
func httprrTrace(body, header string) string {
	req := fmt.Sprintf("POST http://127.0.0.1:8080/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", header, len(body), body)
	resp := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}"
	return fmt.Sprintf("httprr trace v1\n%d %d\n%s%s", len(req), len(resp), req, resp)
}

// watchFIFO reports through opened whether anything opened the FIFO at path for reading: a
// reader blocks in open until a writer comes, and the non-blocking open of the write end
// succeeds only while a reader is there.
func watchFIFO(t *testing.T, path string) (opened *atomic.Bool, stop func()) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	opened = &atomic.Bool{}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			default:
			}
			if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				opened.Store(true)
				f.Close()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return opened, func() { close(done); <-finished }
}

func TestRecordedPathsAndURLsAreNeverOpened(t *testing.T) {
	var contacted atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contacted.Add(1)
		t.Errorf("the listener named in a recording was contacted: %s %s", r.Method, r.URL)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	sentinel := filepath.Join(t.TempDir(), "sentinel.png")
	opened, stop := watchFIFO(t, sentinel)
	dir := writeHostileRecordings(t, sentinel, srv.URL)
	out, dump := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "dump")
	runCLI(t, "replay", "--turns", "all", "--out", out, "--dump", dump, dir)
	runCLI(t, "corpus", "inspect", "--json", dir)
	runCLI(t, "corpus", "inspect", dir)
	time.Sleep(20 * time.Millisecond) // give the watcher a last look
	stop()
	if opened.Load() {
		t.Error("the file path named in a recording was opened")
	}
	if n := contacted.Load(); n != 0 {
		t.Errorf("the URL named in a recording was fetched %d time(s)", n)
	}
}

func TestSecretsNeverWritten(t *testing.T) {
	dir := writeHostileRecordings(t, "/nonexistent/sentinel.png", "http://127.0.0.1:9")
	out, dump := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "dump")
	outputs := map[string][]byte{}
	for _, args := range [][]string{
		{"replay", "--turns", "all", "--out", out, "--dump", dump, dir},
		{"replay", "--format", "json", dir},
		{"replay", "--format", "csv", dir},
		{"corpus", "inspect", "--json", dir},
		{"corpus", "inspect", dir},
	} {
		_, stdout, stderr := runCLI(t, args...)
		outputs[strings.Join(args[:3], " ")+" stdout"] = []byte(stdout)
		outputs[strings.Join(args[:3], " ")+" stderr"] = []byte(stderr)
	}
	var files int
	for _, root := range []string{out, dump} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			outputs[path] = b
			files++
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 5 {
		t.Fatalf("only %d output files written; the test would prove nothing", files)
	}
	// The recordings were read: every planted conversation is a case, and none is a problem.
	r := readReport(t, out)
	if len(r.Cases) != 6 || len(r.Problems) != 0 {
		t.Fatalf("%d cases and problems %+v; want the 4 planted recordings (6 requests) read cleanly", len(r.Cases), r.Problems)
	}
	// counting used the text as recorded, credentials included
	for _, c := range r.Cases {
		if strings.Contains(c.ID, "tooltext") && c.Messages == 3 {
			if got := c.Arms[0].ToolChars; got != len(plantedToolText) {
				t.Errorf("%s: tool text of %d characters counted, recorded %d", c.ID, got, len(plantedToolText))
			}
		}
	}
	for name, b := range outputs {
		for _, s := range plantedSecrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s contains the planted secret %q", name, s)
			}
		}
	}
}

func TestOutputsStayInsideOut(t *testing.T) {
	// Conversation ids come from the recording: a Chatbox session id that climbs out.
	dir := t.TempDir()
	backup := `{"chat-sessions-list":[{"id":"../../../escaped","name":"x"}],"__exported_at":"2026-11-30T00:00:00Z",` +
		`"session:../../../escaped":{"id":"../../../escaped","name":"x","messages":[{"id":"m1","role":"user","contentParts":[{"type":"text","text":"hi"}]}]}}`
	if err := os.WriteFile(filepath.Join(dir, "chatbox-exported-data-2026-11-30.json"), []byte(backup), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	out, dump := filepath.Join(root, "a", "out"), filepath.Join(root, "a", "dump")
	code, _, stderr := runCLI(t, "replay", "--out", out, "--dump", dump, dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readReport(t, out)
	if len(r.Cases) != 1 || !strings.Contains(r.Cases[0].ID, "../") {
		t.Fatalf("cases %+v: want the one case with the climbing id", r.Cases)
	}
	var dumped int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !strings.HasPrefix(path, out+string(filepath.Separator)) && !strings.HasPrefix(path, dump+string(filepath.Separator)) {
			t.Errorf("file written outside --out and --dump: %s", path)
		}
		if strings.HasPrefix(path, dump) {
			dumped++
			if filepath.Dir(path) != dump {
				t.Errorf("dump file not directly in --dump: %s", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if dumped == 0 {
		t.Error("nothing dumped")
	}
}
