package recorder

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// TestRecordMCPMalformedFrame: through a real process that echoes what it reads (cat), a
// valid frame, a malformed one, a credential in a URL and a last line without a newline are
// relayed byte for byte, and the transcript holds each as a whole line: the malformed frame as
// a problem replay locates at its line, the credential redacted.
func TestRecordMCPMalformedFrame(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	input := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"f","arguments":{"u":"https://h/x?access_token=SECRET"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled"}`
	out := filepath.Join(t.TempDir(), "t.jsonl")
	var stdout, stderr bytes.Buffer
	err = RecordMCP(context.Background(), MCPOptions{Out: out, Server: []string{cat}, Stdin: strings.NewReader(input),
		Stdout: &stdout, Stderr: &stderr, Now: func() time.Time { return time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != input {
		t.Fatalf("relayed %q, want %q", stdout.String(), input)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v, want 0600", st.Mode().Perm())
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 8 || bytes.Contains(data, []byte("SECRET")) {
		t.Fatalf("transcript:\n%s", data)
	}
	if !strings.Contains(string(data), `{"ts":"2026-12-03T08:00:00Z","dir":"client->server","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`+"\n") {
		t.Errorf("no whole line for the first frame:\n%s", data)
	}
	var col corpora.Collector
	if err := corpora.ReadFile(context.Background(), out, "", &col); err != nil {
		t.Fatal(err)
	}
	if len(col.Problems) != 2 { // the malformed frame, once each way
		t.Fatalf("problems: %v", col.Problems)
	}
	for _, p := range col.Problems {
		if p.Loc.Line < 1 || p.Loc.Line > len(lines) || !strings.Contains(lines[p.Loc.Line-1], `\"id\":2,\"method\":"}`) ||
			p.Loc.Pointer != "/message" || !strings.Contains(p.Error(), "malformed frame") {
			t.Errorf("problem %v does not locate the malformed frame", p)
		}
	}
}

// TestRecordMCPServerFails: a server that cannot start or exits with a failure is an error
// naming it; the transcript keeps what was relayed.
func TestRecordMCPServerFails(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.jsonl")
	err := RecordMCP(context.Background(), MCPOptions{Out: out, Server: []string{filepath.Join(t.TempDir(), "absent")},
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "start the MCP server") {
		t.Fatalf("err = %v", err)
	}
	sh, lerr := exec.LookPath("sh")
	if lerr != nil {
		t.Skip("no sh")
	}
	err = RecordMCP(context.Background(), MCPOptions{Out: out, Server: []string{sh, "-c", "echo '{\"jsonrpc\":\"2.0\",\"method\":\"x\"}'; exit 7"},
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard})
	var se *ServerExitError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a ServerExitError", err)
	}
	if data, _ := os.ReadFile(out); !bytes.Contains(data, []byte(`"dir":"server->client","message":{"jsonrpc":"2.0","method":"x"}}`)) {
		t.Fatalf("transcript %q", data)
	}
}

// TestRecordMCPStopped: stopping the recorder (Ctrl-C) while a server that ignores interrupts
// holds the session open ends it within the grace period, the transcript holding whole lines.
func TestRecordMCPStopped(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	out := filepath.Join(t.TempDir(), "t.jsonl")
	stdin, feed := io.Pipe()
	defer feed.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RecordMCP(ctx, MCPOptions{Out: out, Server: []string{sh, "-c", `trap "" INT; cat`}, Stdin: stdin,
			Stdout: io.Discard, Stderr: io.Discard, StopGrace: 100 * time.Millisecond})
	}()
	io.WriteString(feed, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"+`{"jsonrpc":"2.0","id":2,`)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if data, _ := os.ReadFile(out); bytes.Count(data, []byte("\n")) == 2 || time.Now().After(deadline) {
			break
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the recorder did not stop")
	}
	data, _ := os.ReadFile(out)
	if bytes.Count(data, []byte("\n")) != 2 || !bytes.HasSuffix(data, []byte("}\n")) {
		t.Fatalf("transcript %q", data)
	}
}
