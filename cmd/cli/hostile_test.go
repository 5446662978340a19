package cli

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
	"github.com/strata-eval/strata-eval/results"
)

// TestReplayListsProblemsOnStderr: replay lists its first problems on stderr and counts the rest.
func TestReplayListsProblemsOnStderr(t *testing.T) {
	var problems []results.Problem
	for i := range maxProblemLines + 5 {
		problems = append(problems, results.Problem{Where: "f.jsonl:" + strconv.Itoa(i+1), Message: "invalid JSON"})
	}
	var b strings.Builder
	writeProblems(&b, problems)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != maxProblemLines+1 || lines[0] != "strata-eval: f.jsonl:1: invalid JSON" ||
		lines[maxProblemLines] != "strata-eval: … and 5 more problem(s), listed in the report" {
		t.Errorf("stderr:\n%s", b.String())
	}
}

// TestInspectReportsWhatReplayReports: on hostile inputs (pictures that fail the picture check
// in tool text and in MCP blocks, a NUL byte, an empty file, a good file) `corpus inspect` and
// `replay` exit 3 alike and name the same files and places.
func TestInspectReportsWhatReplayReports(t *testing.T) {
	dir := t.TempDir()
	chat := func(text string) string {
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{
			map[string]any{"role": "user", "content": "look"},
			map[string]any{"role": "tool", "tool_call_id": "c1", "content": text},
		}})
		return string(b)
	}
	mcp := func(data []byte) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot","arguments":{}}}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","mimeType":"image/png","data":"` + base64.StdEncoding.EncodeToString(data) + `"}]}}` + "\n"
	}
	files := map[string]string{
		"bomb.json":     chat("shot " + base64.StdEncoding.EncodeToString(testimages.PNGBomb(10001, 10000))),
		"frames.json":   chat("shot " + base64.StdEncoding.EncodeToString(testimages.ManyFrameGIF(500))),
		"claims.jsonl":  mcp(testimages.ClaimingPNG(100000, 100000)),
		"garbage.jsonl": mcp(testimages.GarbageJPEG(2000, 3)),
		"nul.json":      strings.Replace(chat("a-b"), "-", "\x00", 1),
		"empty.json":    "",
		"good.json":     chat("shot " + base64.StdEncoding.EncodeToString(testimages.PNG(80, 60, 4, testimages.WithGrain(50)))),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, _ := runCLI(t, "replay", "--out", filepath.Join(t.TempDir(), "out"), "--format", "json", dir)
	inspectCode, _, inspectErr := runCLI(t, "corpus", "inspect", dir)
	if code != ExitInputs || inspectCode != ExitInputs {
		t.Fatalf("exit codes: replay %d, corpus inspect %d; want %d for both", code, inspectCode, ExitInputs)
	}
	_, stdout, replayErr := runCLI(t, "replay", "--format", "json", dir)
	var rep struct {
		Problems []struct{ Where, Message string }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		path := filepath.Join(dir, name)
		var replayWhere []string
		for _, p := range rep.Problems {
			if p.Where == path || strings.HasPrefix(p.Where, path+":") {
				replayWhere = append(replayWhere, p.Where)
			}
		}
		if name == "good.json" {
			if len(replayWhere) != 0 || strings.Contains(inspectErr, path) {
				t.Errorf("good.json reported: %q", replayWhere)
			}
			continue
		}
		if len(replayWhere) == 0 {
			t.Errorf("replay reports no problem in %s", name)
		}
		for _, w := range replayWhere {
			if !strings.Contains(inspectErr, "strata-eval: "+w+": ") {
				t.Errorf("replay reports %s; corpus inspect does not:\n%s", w, inspectErr)
			}
			if !strings.Contains(replayErr, "strata-eval: "+w+": ") {
				t.Errorf("replay reports %s in its report but not on stderr:\n%s", w, replayErr)
			}
		}
		if strings.HasSuffix(name, ".jsonl") {
			// an MCP picture is located at its data, line:column, like the other formats' pictures
			col := strings.Index(strings.Split(files[name], "\n")[1], `"data":"`) + len(`"data":`) + 1
			want := path + ":2:" + strconv.Itoa(col) + " at /result/content/0/data"
			if !slices.Contains(replayWhere, want) {
				t.Errorf("%s: picture located at %q, want %s", name, replayWhere, want)
			}
		}
	}
}
