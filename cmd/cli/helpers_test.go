package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/results"
)

// readResultsJSON reads a results.json and returns it decoded and as written.
func readResultsJSON(t *testing.T, path string) (*results.Report, []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r results.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r, raw
}

// armSummary is the summary of one arm in a results.json: the figures a test of the sample
// corpus derives what it expects from, so that a new sample changes no literal figure.
func armSummary(t *testing.T, path, arm string) results.ArmSummary {
	t.Helper()
	r, _ := readResultsJSON(t, path)
	for _, a := range r.Summary {
		if a.Arm == arm {
			return a
		}
	}
	t.Fatalf("%s has no arm %q", path, arm)
	return results.ArmSummary{}
}

// sampleCases is the number of cases a replay of the sample corpus measures (the last request
// of every conversation that has one), for the tests and scripts ($SAMPLE_CASES) that count them.
func sampleCases(t testing.TB) int {
	t.Helper()
	var col corpora.Collector
	if err := corpora.ReadSamples(context.Background(), &col); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range col.Conversations {
		if len(c.Requests()) > 0 {
			n++
		}
	}
	return n
}

// runCLI runs strata-eval in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLIIn(t, "", args...)
}

// readReport reads dir/results.json.
func readReport(t *testing.T, dir string) *results.Report {
	t.Helper()
	r, err := readReportFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runCLIIn runs strata-eval in-process with stdin and returns its exit code, stdout and stderr.
func runCLIIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

var update = flag.Bool("update", false, "rewrite the golden files of the CLI tests")

// golden compares got with testdata/golden/name (or the absolute path name), rewriting it with -update. On a mismatch
// it writes name.got beside it for inspection.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join("testdata", "golden", name)
	}
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s differs from the golden file; see %s.got", name, path)
	}
}

// sampleRun replays the embedded sample corpus into dir/results.json with the given extra
// flags and makes its timings and run-specific config deterministic: every tool message of
// a case scans in (case index + 1) × base nanoseconds, plus jitter by message. Correct, when
// not nil, sets each arm's "correct" member (as a live-model run records it) by case index.
func sampleRun(t *testing.T, dir string, base int64, correct func(caseIndex int, arm string) *bool, flags ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"replay", "--format", "json", "--out", dir}, flags...)
	if code, _, stderr := runCLI(t, args...); code != ExitOK {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	path := filepath.Join(dir, "results.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	cfg := doc["config"].(map[string]any)
	cfg["flags"] = map[string]any{}
	cfg["tool_version"] = "test"
	timings := doc["timings"].(map[string]any)
	timings["wall_nanos"] = 1e9
	if cases, ok := timings["cases"].([]any); ok {
		for i, c := range cases {
			tc := c.(map[string]any)
			ns, _ := tc["scan_nanos"].([]any)
			for j := range ns {
				ns[j] = base*int64(i+1) + int64(j*7)
			}
		}
	}
	if correct != nil {
		for i, c := range doc["cases"].([]any) {
			for _, a := range c.(map[string]any)["arms"].([]any) {
				arm := a.(map[string]any)
				if v := correct(i, arm["arm"].(string)); v != nil {
					arm["correct"] = *v
				}
			}
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func boolPtr(b bool) *bool { return &b }

// replayJSON runs replay with args and --out into a fresh folder and returns results.json.
func replayJSON(t *testing.T, args ...string) (*results.Report, []byte) {
	t.Helper()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	args = append([]string{"replay", "--format", "csv", "--out", dir}, args...)
	if code := Run(context.Background(), args, &IOStreams{Out: &out, ErrOut: &errOut}); code != ExitOK {
		t.Fatalf("replay %v: exit %d: %s", args, code, errOut.String())
	}
	return readResultsJSON(t, filepath.Join(dir, "results.json"))
}
