package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clineSession is the one Cline session of corpora/testdata/agents (make agent-sessions).
func clineSession(t *testing.T) string {
	t.Helper()
	sessions, _ := filepath.Glob(filepath.Join(agentCases, "cline", "sessions", "*", "*.messages.json"))
	if len(sessions) != 1 {
		t.Fatalf("%d Cline sessions, want 1", len(sessions))
	}
	return sessions[0]
}

// TestClineRequestsCountAsSentButTheTools: each request rebuilt from a Cline session counts in
// the recorded arm as the body Cline sent less its tool definitions, which the session does not
// record and whose weight the note gives; the before arm holds the MCP result Cline cut.
func TestClineRequestsCountAsSentButTheTools(t *testing.T) {
	session := clineSession(t)
	wire, _ := filepath.Glob(filepath.Join(agentCases, "cline", "requests", "*-v1-messages.json"))
	rebuilt := countRows(t, session, "--arm", "recorded")
	if len(rebuilt) != len(wire) || len(wire) != 3 {
		t.Fatalf("%d requests rebuilt, %d sent; want 3", len(rebuilt), len(wire))
	}
	for i, f := range wire {
		rows := countRows(t, f, "--arm", "recorded")
		got, want := rebuilt[i], rows[len(rows)-1]
		if got.Messages != want.Messages || got.ImageRows != want.ImageRows || got.Pictures != want.Pictures {
			t.Errorf("request %d: rebuilt %+v, sent %+v", i+1, got, want)
		}
		// The note says "about 4,500 tokens" (o200k_base, the default tokenizer).
		if m := want.TextTokens - got.TextTokens; m < 4050 || m > 4950 {
			t.Errorf("request %d: the unrecorded part weighs %d tokens, the note says about 4,500", i+1, m)
		}
		if got.Recorded == nil || got.Recorded.PromptTokens == 0 {
			t.Errorf("request %d: no usage of its answer beside the count", i+1)
		}
	}
	rows := countRows(t, session, "--arm", "before,recorded")
	before, recorded := rows[len(rows)-2], rows[len(rows)-1]
	if before.Arm != "before" || recorded.Arm != "recorded" || recorded.PromptTokens*4 > before.PromptTokens {
		t.Errorf("the last request: %s %d, %s %d prompt tokens; Cline cut the MCP result it sent", before.Arm, before.PromptTokens, recorded.Arm, recorded.PromptTokens)
	}
}

// TestReplayAgentCline: replay --agent cline reads $CLINE_DATA_DIR/sessions and keeps the
// sessions whose working folder --project names.
func TestReplayAgentCline(t *testing.T) {
	data := t.TempDir()
	if err := os.CopyFS(filepath.Join(data, "sessions"), os.DirFS(filepath.Join(agentCases, "cline", "sessions"))); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLINE_DATA_DIR", data)
	code, out, errOut := runCLI(t, "replay", "--agent", "cline", "--summary", "--arms", "before", "--project", "user/project")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	_, perTool, ok := strings.Cut(out, "pictures by tool")
	if !ok || !strings.Contains(perTool, "shots__screenshot") || !strings.Contains(perTool, "read_files") {
		t.Errorf("no per-tool table of the MCP screenshot and read_files:\n%s", out)
	}
	code, _, errOut = runCLI(t, "replay", "--agent", "cline", "--project", "elsewhere")
	if code != ExitInputs || !strings.Contains(errOut, "no session under") {
		t.Errorf("--project elsewhere: exit %d, want %d:\n%s", code, ExitInputs, errOut)
	}
}
