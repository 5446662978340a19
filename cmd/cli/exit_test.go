package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/run"
)

// TestUsageErrorsAreOneKind: a usage error, made by the commands or by the packages below
// them, is a *run.UsageError and exits 2; wrapping keeps it one.
func TestUsageErrorsAreOneKind(t *testing.T) {
	for name, err := range map[string]error{
		"usageErrorf":             usageErrorf("--x must be positive"),
		"usageError":              usageError(errors.New("bad flag")),
		"withExitCode(ExitUsage)": withExitCode(ExitUsage, errors.New("bad flag")),
		"wrapped":                 fmt.Errorf("replay: %w", usageErrorf("bad")),
		"from run":                fmt.Errorf("replay: %w", &run.UsageError{Err: errors.New("bad arms file")}),
	} {
		var usage *run.UsageError
		if !errors.As(err, &usage) {
			t.Errorf("%s: %T is not a *run.UsageError", name, err)
		}
		var ee *exitError
		if errors.As(err, &ee) {
			t.Errorf("%s: a usage error carried as an exitError (code %d)", name, ee.code)
		}
		if code := exitCode(err); code != ExitUsage {
			t.Errorf("%s: exit %d, want %d", name, code, ExitUsage)
		}
	}
	if usageError(nil) != nil || withExitCode(ExitUsage, nil) != nil {
		t.Error("a nil error became a usage error")
	}
	if code := exitCode(withExitCode(ExitBudget, errors.New("crossed"))); code != ExitBudget {
		t.Errorf("a budget error exits %d", code)
	}
}

// TestMissingPathExitsThree: a path that does not exist is a located problem; the other inputs
// are replayed and reported, and the exit code is 3, as docs/exit-codes.md says.
func TestMissingPathExitsThree(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.json")
	sample := "../../corpora/samples/openai-chat-chatbox-screenshot.json"
	code, out, errOut := runCLI(t, "replay", "--summary", missing, sample)
	if code != ExitInputs {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInputs, errOut)
	}
	if !strings.Contains(out, "inputs that could not be read") || !strings.Contains(out, missing) {
		t.Errorf("stdout does not name the missing path:\n%s", out)
	}
	if !strings.Contains(out, "1,002") { // the sample's picture rows: the other input was replayed
		t.Errorf("the other input was not replayed:\n%s", out)
	}
	code, out, errOut = runCLI(t, "corpus", "inspect", missing, sample)
	if code != ExitInputs || !strings.Contains(out, "openai-chat-chatbox-screenshot.json") {
		t.Errorf("corpus inspect: exit %d, want %d with the other input listed\n%s%s", code, ExitInputs, out, errOut)
	}
}

// TestNothingReplayedWritesResults: with --out and every input unreadable, the run exits 3 with
// its one line and still writes results.json, holding the problems and an empty summary, so
// that a job publishing it shows why.
func TestNothingReplayedWritesResults(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "gone.json")
	code, out, errOut := runCLI(t, "replay", "--out", filepath.Join(dir, "out"), missing)
	if code != ExitInputs || out != "" || !strings.Contains(errOut, "nothing was replayed") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	r, _ := readResultsJSON(t, filepath.Join(dir, "out", "results.json"))
	if len(r.Cases) != 0 || len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Where+r.Problems[0].Message, "gone.json") {
		t.Errorf("results.json: %d cases, problems %+v", len(r.Cases), r.Problems)
	}
}
