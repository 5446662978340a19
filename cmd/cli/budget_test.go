package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/results/budget"
)

// TestBudgetCheckGolden checks the committed budgets.yaml on a replay of the sample corpus
// (the same check as make test) and keeps the printed and JSON verdicts as golden files.
func TestBudgetCheckGolden(t *testing.T) {
	dir := t.TempDir()
	res := sampleRun(t, dir, 1000, nil)
	budgets := filepath.Join("..", "..", "budgets.yaml")
	for _, tt := range []struct{ format, golden string }{{"table", "budget_check.txt"}, {"json", "budget_check.json"}} {
		t.Run(tt.format, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "budget", "check", "--budgets", budgets, "--format", tt.format, res)
			if code != ExitOK {
				t.Errorf("exit %d: the committed budgets.yaml does not hold on the sample corpus: %s\n%s", code, stderr, stdout)
			}
			golden(t, tt.golden, []byte(strings.ReplaceAll(stdout, dir, "$DIR")))
		})
	}
}

// TestBudgetVerdictAgreesWithExitCode runs one budgets file in every format: the printed
// verdict, the JSON verdict and the exit code come from one evaluation.
func TestBudgetVerdictAgreesWithExitCode(t *testing.T) {
	dir := t.TempDir()
	old := sampleRun(t, filepath.Join(dir, "old"), 1000, func(int, string) *bool { return boolPtr(true) })
	new := sampleRun(t, filepath.Join(dir, "new"), 1000, func(i int, arm string) *bool { return boolPtr(i != 0) }, "--ctx", "4000000")
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mixed := write("mixed.yaml", `budgets:
  refused{arm:before}: [sum == 0, delta < 0]
  correct{arm:after}: rate >= 0.99
  scan_time{arm:after}: p(95) < 1ms
  image_rows{arm:after}: delta == 0
  prompt_tokens{arm:nosucharm}: sum > 0
`)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		crossed  int
		stdout   []string
	}{
		{"mixed", []string{"--baseline", old, new}, ExitBudget, 2, []string{
			"correct{arm:after}: rate >= 0.99", "0.944444", "CROSSED: no samples match the selector", "-2 (2 → 0)", "48.5µs", "0 (2,542 → 2,542)"}},
		{"no baseline", []string{new}, ExitBudget, 4, []string{"CROSSED: delta needs a baseline (--baseline)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"budget", "check", "--budgets", mixed}, tt.args...)
			code, text, stderr := runCLI(t, args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d: %s", code, tt.wantCode, stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(text, w) {
					t.Errorf("table lacks %q:\n%s", w, text)
				}
			}
			codeJSON, js, _ := runCLI(t, append(args, "--json")...)
			var v budget.Verdict
			if err := json.Unmarshal([]byte(js), &v); err != nil {
				t.Fatal(err)
			}
			if codeJSON != code || v.Crossed != tt.crossed || v.Passed != (code == ExitOK) {
				t.Errorf("JSON verdict passed=%v crossed=%d (exit %d), text exit %d, want %d crossed", v.Passed, v.Crossed, codeJSON, code, tt.crossed)
			}
			if !strings.Contains(text, "crossed") || !strings.Contains(stderr, "crossed") {
				t.Errorf("verdict not printed: %s / %s", text, stderr)
			}
		})
	}
}

func TestBudgetCheckUsageErrors(t *testing.T) {
	dir := t.TempDir()
	res := sampleRun(t, dir, 1000, nil)
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("budgets:\n  # line 2\n  scan_time{arm:after}: p95 < 1ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte(`{"schema": "strata-eval/results/v1", "cases": [1`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		stderr   string
	}{
		{"malformed budget names line and column", []string{"--budgets", bad, res}, ExitUsage,
			`bad.yaml:3:25: unknown aggregation "p95" (did you mean p(95)?)`},
		{"missing budgets file", []string{"--budgets", filepath.Join(dir, "none.yaml"), res}, ExitUsage, "none.yaml: no such file"},
		{"no results", []string{"--budgets", bad}, ExitUsage, "requires at least 1 arg"},
		{"bad format", []string{"--budgets", bad, "--format", "xml", res}, ExitUsage, "--format must be table, markdown, json or junit"},
		{"unreadable results", []string{"--budgets", filepath.Join("..", "..", "budgets.yaml"), garbage}, ExitInputs, "garbage.json: byte 48: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"budget", "check"}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tt.wantCode, tt.stderr)
			}
		})
	}
}
