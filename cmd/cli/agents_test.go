package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentCases is the folder of the session files the real agents wrote (make agent-sessions).
var agentCases = filepath.Join("..", "..", "corpora", "testdata", "agents")

// countRows runs count --format json on a file with extra flags: a row per conversation, its last request.
func countRows(t *testing.T, file string, flags ...string) []countRow {
	t.Helper()
	args := append([]string{"count", "--format", "json"}, flags...)
	code, out, errOut := runCLI(t, append(args, file)...)
	if code != ExitOK {
		t.Fatalf("count %s: exit %d\n%s", file, code, errOut)
	}
	var rows []countRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("count %s: %v\n%s", file, err, out)
	}
	return rows
}

// wireRequests lists the Messages request bodies a Claude Code case sent, in order (its
// count_tokens calls left out), each without the billing line Claude Code puts first in the
// system prompt when sending and does not record in the session, written to dir.
func wireRequests(t *testing.T, caseDir, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(caseDir, "requests", "*-v1-messages.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no requests in %s (%v)", caseDir, err)
	}
	var out []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		var system []map[string]any
		if err := json.Unmarshal(body["system"], &system); err != nil || len(system) == 0 {
			t.Fatalf("%s: no system blocks (%v)", f, err)
		}
		if text, _ := system[0]["text"].(string); !strings.HasPrefix(text, "x-anthropic-billing-header:") {
			t.Fatalf("%s: the first system block is %q, not the billing line", f, text)
		}
		body["system"], _ = json.Marshal(system[1:])
		b, _ := json.Marshal(body)
		to := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, to)
	}
	return out
}

// TestClaudeCodeRequestsCountAsSent: every request rebuilt from a Claude Code session counts,
// with the same flags, exactly as the body the agent sent (less the unrecorded billing line).
func TestClaudeCodeRequestsCountAsSent(t *testing.T) {
	for _, name := range []string{"claude-code", "claude-code-spill"} {
		t.Run(name, func(t *testing.T) {
			caseDir := filepath.Join(agentCases, name)
			sessions, _ := filepath.Glob(filepath.Join(caseDir, "sessions", "*", "*.jsonl"))
			if len(sessions) != 1 {
				t.Fatalf("%d sessions in %s, want 1", len(sessions), caseDir)
			}
			rebuilt := countRows(t, sessions[0])
			wire := wireRequests(t, caseDir, t.TempDir())
			if len(rebuilt) != len(wire) {
				t.Fatalf("%d requests rebuilt, %d sent", len(rebuilt), len(wire))
			}
			pictures := 0
			for i, f := range wire {
				rows := countRows(t, f)
				got, want := rebuilt[i], rows[len(rows)-1]
				if got.Messages != want.Messages || got.TextTokens != want.TextTokens || got.ImageRows != want.ImageRows ||
					got.Pictures != want.Pictures || got.PromptTokens != want.PromptTokens {
					t.Errorf("request %d: rebuilt %+v, sent %+v", i+1, got, want)
				}
				pictures += got.Pictures
			}
			if pictures == 0 {
				t.Error("no picture in any request: the case does not test pictures")
			}
		})
	}
}
