package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// system prompt when sending and does not record in the session, written to dir: those of the
// main conversation, then those of its sub-agents (the billing line says cc_is_subagent=true).
func wireRequests(t *testing.T, caseDir, dir string) (main, sub []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(caseDir, "requests", "*-v1-messages.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no requests in %s (%v)", caseDir, err)
	}
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
		text, _ := system[0]["text"].(string)
		if !strings.HasPrefix(text, "x-anthropic-billing-header:") {
			t.Fatalf("%s: the first system block is %q, not the billing line", f, text)
		}
		body["system"], _ = json.Marshal(system[1:])
		b, _ := json.Marshal(body)
		to := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, "cc_is_subagent=true") {
			sub = append(sub, to)
		} else {
			main = append(main, to)
		}
	}
	return main, sub
}

// TestClaudeCodeRequestsCountAsSent: every request rebuilt from a Claude Code session, and from
// the file of its sub-agent, counts in the recorded arm, with the same flags, exactly as the
// body the agent sent (less the unrecorded billing line).
func TestClaudeCodeRequestsCountAsSent(t *testing.T) {
	for _, name := range []string{"claude-code", "claude-code-spill", "claude-code-subagent", "claude-code-resize"} {
		t.Run(name, func(t *testing.T) {
			caseDir := filepath.Join(agentCases, name)
			sessions, _ := filepath.Glob(filepath.Join(caseDir, "sessions", "*", "*.jsonl"))
			subagents, _ := filepath.Glob(filepath.Join(caseDir, "sessions", "*", "*", "subagents", "agent-*.jsonl"))
			if len(sessions) != 1 || len(subagents) > 1 {
				t.Fatalf("%d sessions and %d sub-agents in %s, want 1 and at most 1", len(sessions), len(subagents), caseDir)
			}
			main, sub := wireRequests(t, caseDir, t.TempDir())
			if (name == "claude-code-subagent") != (len(subagents) == 1 && len(sub) > 0) {
				t.Fatalf("%d sub-agent files, %d sub-agent requests sent", len(subagents), len(sub))
			}
			pictures := countAsSent(t, sessions[0], main)
			if len(subagents) == 1 {
				pictures += countAsSent(t, subagents[0], sub)
			}
			if pictures == 0 {
				t.Error("no picture in any request: the case does not test pictures")
			}
		})
	}
}

// countAsSent checks that each request rebuilt from a session file counts in the recorded arm
// exactly as the body sent (wire, in order), and returns how many pictures they hold.
func countAsSent(t *testing.T, session string, wire []string) int {
	t.Helper()
	rebuilt := countRows(t, session, "--arm", "recorded")
	if len(rebuilt) != len(wire) {
		t.Fatalf("%s: %d requests rebuilt, %d sent", filepath.Base(session), len(rebuilt), len(wire))
	}
	pictures := 0
	for i, f := range wire {
		rows := countRows(t, f, "--arm", "recorded")
		got, want := rebuilt[i], rows[len(rows)-1]
		if got.Messages != want.Messages || got.TextTokens != want.TextTokens || got.ImageRows != want.ImageRows ||
			got.Pictures != want.Pictures || got.PromptTokens != want.PromptTokens {
			t.Errorf("%s request %d: rebuilt %+v, sent %+v", filepath.Base(session), i+1, got, want)
		}
		pictures += got.Pictures
	}
	return pictures
}

// TestCountShowsTheProviderUsageBesideTheComputedCount: each request of an agent's session is
// counted with the usage the provider reported for it beside, as the session recorded it.
func TestCountShowsTheProviderUsageBesideTheComputedCount(t *testing.T) {
	sessions, _ := filepath.Glob(filepath.Join(agentCases, "claude-code", "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	rows := countRows(t, sessions[0])
	// What the scripted server answered for the first request (input_tokens), as Claude Code
	// recorded it in the session.
	if len(rows) == 0 || rows[0].Recorded == nil || rows[0].Recorded.PromptTokens != 12357 || rows[0].PromptTokens == 0 {
		t.Fatalf("first request: %+v, want the recorded 12357 prompt tokens beside the computed count", rows)
	}
	code, out, errOut := runCLI(t, "count", sessions[0])
	if code != ExitOK || !strings.Contains(out, "provider's") || !strings.Contains(out, "12,357") {
		t.Errorf("count's table shows no provider column (exit %d):\n%s%s", code, out, errOut)
	}
}

// TestCodexRequestsCountAllButTheToolSchemas: each request rebuilt from a Codex rollout counts as
// the body Codex sent less its tool schemas, which the rollout does not record, and the note each
// request carries gives their weight.
func TestCodexRequestsCountAllButTheToolSchemas(t *testing.T) {
	caseDir := filepath.Join(agentCases, "codex")
	rollouts, _ := filepath.Glob(filepath.Join(caseDir, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	wire, _ := filepath.Glob(filepath.Join(caseDir, "requests", "*-v1-responses.json"))
	if len(rollouts) != 1 || len(wire) == 0 {
		t.Fatalf("%d rollouts, %d requests", len(rollouts), len(wire))
	}
	rebuilt := countRows(t, rollouts[0])
	if len(rebuilt) != len(wire) {
		t.Fatalf("%d requests rebuilt, %d sent", len(rebuilt), len(wire))
	}
	var missing []int
	for i, f := range wire {
		rows := countRows(t, f)
		got, want := rebuilt[i], rows[len(rows)-1]
		if got.Messages != want.Messages || got.ImageRows != want.ImageRows || got.Pictures != want.Pictures {
			t.Errorf("request %d: rebuilt %+v, sent %+v", i+1, got, want)
		}
		missing = append(missing, want.TextTokens-got.TextTokens)
	}
	for i, m := range missing {
		// The note says "about 2,500 tokens" (o200k_base, the default tokenizer).
		if m != missing[0] || m < 2250 || m > 2750 {
			t.Errorf("request %d: the unrecorded part weighs %d tokens (request 1: %d), the note says about 2,500", i+1, m, missing[0])
		}
	}
	code, out, _ := runCLI(t, "corpus", "inspect", "--json", rollouts[0])
	if code != ExitOK || !strings.Contains(out, "does not record the tool schemas") {
		t.Errorf("corpus inspect shows no note of the missing tool schemas (exit %d)", code)
	}
}

// TestRecordedArmDiffersWhereTheAgentSpilled: the recorded arm (what Claude Code sent) is the
// before arm (the tool results as the session recorded them) where Claude Code sent the results
// as they were, far below it where it spilled an MCP result to a file, and has fewer image rows
// where it resized a picture (the before arm holds the original it kept under tool-results/).
func TestRecordedArmDiffersWhereTheAgentSpilled(t *testing.T) {
	for _, tt := range []struct {
		name             string
		spilled, resized bool
	}{{"claude-code", false, false}, {"claude-code-spill", true, false}, {"claude-code-resize", false, true}} {
		sessions, _ := filepath.Glob(filepath.Join(agentCases, tt.name, "sessions", "*", "*.jsonl"))
		if len(sessions) != 1 {
			t.Fatalf("%s: %d sessions", tt.name, len(sessions))
		}
		rows := countRows(t, sessions[0], "--arm", "before,recorded")
		if len(rows) != 8 {
			t.Fatalf("%s: %d rows, want 4 requests in 2 arms", tt.name, len(rows))
		}
		last := rows[len(rows)-2:]
		before, recorded := last[0], last[1]
		if before.Arm != "before" || recorded.Arm != "recorded" {
			t.Fatalf("%s: arms %s, %s", tt.name, before.Arm, recorded.Arm)
		}
		switch {
		case tt.resized && (recorded.Pictures != before.Pictures || recorded.ImageRows >= before.ImageRows):
			t.Errorf("%s: before %d, recorded %d image rows; Claude Code sent the 2560-pixel screenshot at 2000", tt.name, before.ImageRows, recorded.ImageRows)
		case tt.resized:
		case !tt.spilled && before.PromptTokens != recorded.PromptTokens:
			t.Errorf("%s: before %d, recorded %d prompt tokens; Claude Code sent the results as they were", tt.name, before.PromptTokens, recorded.PromptTokens)
		case tt.spilled && recorded.PromptTokens*4 > before.PromptTokens:
			t.Errorf("%s: before %d, recorded %d prompt tokens; Claude Code spilled the MCP result", tt.name, before.PromptTokens, recorded.PromptTokens)
		}
	}
}

// TestReplayAgentFindsSessionsAndPrintsPerTool: replay --agent claude-code reads the agent's
// own folder (CLAUDE_CONFIG_DIR/projects here), keeps what --project and --since select, and
// prints a table per session and per tool, the costliest tool first.
func TestReplayAgentFindsSessionsAndPrintsPerTool(t *testing.T) {
	config := t.TempDir()
	for _, name := range []string{"claude-code", "claude-code-spill"} {
		src := filepath.Join(agentCases, name, "sessions")
		if err := os.CopyFS(filepath.Join(config, "projects", name), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", config)
	code, out, errOut := runCLI(t, "replay", "--agent", "claude-code", "--summary", "--arms", "before", "--since", "30d")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	_, perTool, ok := strings.Cut(out, "pictures by tool")
	if !ok || !strings.Contains(out, "sessions (arm before") {
		t.Fatalf("no per-session or per-tool table:\n%s", out)
	}
	mcp, read := strings.Index(perTool, "mcp__shots__screenshot"), strings.Index(perTool, "Read")
	if mcp < 0 || read < 0 || mcp > read {
		t.Errorf("the MCP screenshot tool, whose pictures cost the most, is not listed first:\n%s", perTool)
	}
	// --project keeps one project's sessions.
	code, out, errOut = runCLI(t, "replay", "--agent", "claude-code", "--summary", "--arms", "before", "--project", "SPILL")
	if code != ExitOK || strings.Count(out, ".jsonl") != 1 {
		t.Errorf("--project spill: exit %d, want one session:\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"--project", "no-such-project"},
		{"--since", "2999-01-01"},
	} {
		code, _, errOut := runCLI(t, append([]string{"replay", "--agent", "claude-code"}, args...)...)
		if code != ExitInputs || !strings.Contains(errOut, "no session under") {
			t.Errorf("%v: exit %d, want %d and the empty selection named:\n%s", args, code, ExitInputs, errOut)
		}
	}
	for _, args := range [][]string{
		{"--agent", "aider"},
		{"--agent", "codex", "--since", "yesterday"},
		{"--since", "7d"},
	} {
		if code, _, errOut := runCLI(t, append([]string{"replay"}, args...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, want a usage error:\n%s", args, code, errOut)
		}
	}
}

// TestReplayAgentReadsSubagentFiles: replay --agent claude-code reads a sub-agent's file
// (<session>/subagents/agent-*.jsonl) as a session of its own, and its metadata beside it is no
// problem.
func TestReplayAgentReadsSubagentFiles(t *testing.T) {
	sessions := filepath.Join(agentCases, "claude-code-subagent", "sessions")
	code, out, errOut := runCLI(t, "replay", "--agent", "claude-code", "--summary", "--arms", "before", sessions)
	if code != ExitOK || strings.Contains(out, "could not be read") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	_, table, _ := strings.Cut(out, "sessions (arm before")
	var rows []string
	for _, line := range strings.Split(table, "\n") {
		if strings.Contains(line, ".jsonl") {
			rows = append(rows, strings.Join(strings.Fields(strings.ReplaceAll(line, "│", " ")), " "))
		}
	}
	if len(rows) != 2 || (!strings.HasPrefix(rows[0], "agent-") && !strings.HasPrefix(rows[1], "agent-")) {
		t.Fatalf("want the session and its sub-agent, each with its 3 requests:\n%s", out)
	}
	for _, r := range rows {
		if f := strings.Fields(r); len(f) < 2 || f[1] != "3" {
			t.Errorf("row %q: want 3 requests", r)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Time
	}{
		{"", time.Time{}},
		{"36h", now.Add(-36 * time.Hour)},
		{"7d", now.AddDate(0, 0, -7)},
		{"2026-12-01", time.Date(2026, 12, 1, 0, 0, 0, 0, time.Local)},
	} {
		if got, err := parseSince(tt.in, now); err != nil || !got.Equal(tt.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"-3d", "soon", "12/01/2026"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) accepted", bad)
		}
	}
}

// TestGeminiNoteWeighsWhatIsNotRecorded: the note on each Gemini CLI request gives the weight of
// the system instruction and tool declarations Gemini CLI sent and did not record, as count
// counts them in the body captured on the wire.
func TestGeminiNoteWeighsWhatIsNotRecorded(t *testing.T) {
	wire, _ := filepath.Glob(filepath.Join(agentCases, "gemini-cli", "requests", "*-streamGenerateContent.json"))
	if len(wire) == 0 {
		t.Fatal("no Gemini request")
	}
	raw, err := os.ReadFile(wire[len(wire)-1])
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		System struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"systemInstruction"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	var system strings.Builder
	for _, p := range body.System.Parts {
		system.WriteString(p.Text)
	}
	dir := t.TempDir()
	tokens := func(name, text string, note int) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "count", "--text", "--format", "json", path)
		var tc textCount
		if code != ExitOK || json.Unmarshal([]byte(out), &tc) != nil {
			t.Fatalf("count %s: exit %d\n%s%s", name, code, out, errOut)
		}
		if d := tc.Tokens - note; d < -note/10 || d > note/10 {
			t.Errorf("%s: %d tokens, the note says about %d", name, tc.Tokens, note)
		}
	}
	tokens("system.txt", system.String(), 6100)
	tokens("tools.json", string(body.Tools), 3200)
}

// TestReplayAgentFamilyFromModel: --agent counts pictures with the hosted family the session's
// model id implies, named under the header; --vision still wins.
func TestReplayAgentFamilyFromModel(t *testing.T) {
	spill := filepath.Join(agentCases, "claude-code-spill", "sessions")
	code, out, errOut := runCLI(t, "replay", "--agent", "claude-code", "--summary", "--arms", "before", spill)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	header, _, _ := strings.Cut(out, "\n\n")
	if !strings.Contains(header, "vision recorded") || !strings.Contains(header, "→ anthropic/") {
		t.Errorf("the header does not name the session's model and its family:\n%s", header)
	}
	code, out, errOut = runCLI(t, "replay", "--agent", "claude-code", "--summary", "--arms", "before", "--vision", "llamacpp/qwen3vl", spill)
	if code != ExitOK {
		t.Fatalf("--vision: exit %d\n%s", code, errOut)
	}
	if header, _, _ := strings.Cut(out, "\n\n"); strings.Contains(header, "→") || !strings.Contains(header, "vision llamacpp/qwen3vl") {
		t.Errorf("--vision llamacpp/qwen3vl does not win over the session's model:\n%s", header)
	}
}

// TestReplayAgentWithoutItsFolder: an agent whose folder does not exist is one line naming the
// folder and the fix, exit 3.
func TestReplayAgentWithoutItsFolder(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(t.TempDir(), "none"))
	code, out, errOut := runCLI(t, "replay", "--agent", "claude-code")
	if code != ExitInputs || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "no folder") || !strings.Contains(errOut, "CLAUDE_CONFIG_DIR") {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit %d and one line naming the folder and the fix", code, out, errOut, ExitInputs)
	}
}

// TestReplayAgentWithoutFiles: an agent whose sessions are in no folder of files (OpenCode's
// SQLite) is one usage line that names how to obtain a session to replay.
func TestReplayAgentWithoutFiles(t *testing.T) {
	code, out, errOut := runCLI(t, "replay", "--agent", "opencode")
	if code != ExitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "opencode export <session-id>") {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit %d and one line naming opencode export", code, out, errOut, ExitUsage)
	}
}
