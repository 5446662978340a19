package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// comparePair writes the old and new runs of the compare goldens: new has a larger context
// (so before no longer refuses the headline), scans 1.5× slower, and the after arm answers
// every other case wrong that it answered right before (a significant regression).
func comparePair(t *testing.T) (dir, old, new string) {
	dir = t.TempDir()
	old = sampleRun(t, filepath.Join(dir, "old"), 1000, func(i int, arm string) *bool { return boolPtr(true) })
	new = sampleRun(t, filepath.Join(dir, "new"), 1500, func(i int, arm string) *bool {
		return boolPtr(arm != "after" || i%2 == 1)
	}, "--ctx", "4000000")
	return dir, old, new
}

func TestCompareGolden(t *testing.T) {
	dir, old, new := comparePair(t)
	for _, tt := range []struct {
		format, golden string
	}{{"table", "compare.txt"}, {"markdown", "compare.md"}, {"json", "compare.json"}} {
		t.Run(tt.format, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "compare", "--format", tt.format, old, new)
			if code != ExitRegression {
				t.Errorf("exit %d, want %d (correctness regressed); stderr %s", code, ExitRegression, stderr)
			}
			if !strings.Contains(stderr, "correctness regressed significantly") {
				t.Errorf("stderr %q", stderr)
			}
			golden(t, tt.golden, []byte(strings.ReplaceAll(stdout, dir, "$DIR")))
		})
	}
	// Without --format the comparison is the table the golden holds: the refusal gone, the case
	// that was refused, the slower scans, the answers that turned wrong.
	_, stdout, _ := runCLI(t, "compare", old, new)
	table, err := os.ReadFile(filepath.Join("testdata", "golden", "compare.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(stdout, dir, "$DIR"); got != string(table) && !*update {
		t.Errorf("compare without --format differs from compare.txt:\n%s", got)
	}
	for _, want := range []string{"openai-chat-chatbox-screenshot.json#0@6", "-100.0%", " (p=", "pass→fail", "regressed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare output lacks %q", want)
		}
	}
}

func TestCompareExitCodes(t *testing.T) {
	dir, old, new := comparePair(t)
	same := sampleRun(t, filepath.Join(dir, "same"), 1000, func(int, string) *bool { return boolPtr(true) })
	budgets := filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(budgets, []byte("budgets:\n  refused{arm:before}: delta == 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "partial.json")
	writeTrimmedCases(t, old, partial, 3)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{"identical runs", []string{"compare", old, same}, ExitOK, []string{"~ (p=1.000"}, nil},
		{"regression wins over budgets", []string{"compare", "--budgets", budgets, old, new}, ExitRegression,
			[]string{"refused{arm:before}: delta == 0", "CROSSED"}, []string{"correctness regressed"}},
		{"budget crossed", []string{"compare", "--budgets", budgets, "--alpha", "0.000001", old, new}, ExitBudget,
			[]string{fmt.Sprintf("-%d (%[1]d → 0)", armSummary(t, old, "before").Refused)}, []string{"1 budget crossed"}},
		{"budget holds", []string{"compare", "--budgets", budgets, old, same}, ExitOK, []string{"all 1 budgets hold"}, nil},
		{"unpaired cases", []string{"compare", old, partial}, ExitOK, []string{"figures over 3 paired cases"},
			[]string{fmt.Sprintf("warning: the runs cover different cases: %d only in the old run, 0 only in the new", sampleCases(t)-3), "warning: only in the old run: "}},
		{"bad alpha", []string{"compare", "--alpha", "2", old, new}, ExitUsage, nil, []string{"--alpha must be between 0 and 1"}},
		{"one file", []string{"compare", old}, ExitUsage, nil, []string{"accepts 2 arg(s)"}},
		{"missing file", []string{"compare", old, filepath.Join(dir, "nope.json")}, ExitInputs, nil, []string{"nope.json: no such file"}},
		{"malformed budget", []string{"compare", "--budgets", old, old, new}, ExitUsage, nil, []string{"results.json:2:3: unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr %s", code, tt.wantCode, stderr)
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// writeTrimmedCases writes src with only its first n cases to dst.
func writeTrimmedCases(t *testing.T, src, dst string, n int) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["cases"] = doc["cases"].([]any)[:n]
	out, _ := json.Marshal(doc)
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
