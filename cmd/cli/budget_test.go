package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/results/budget"
)

// TestBudgetCheckGolden checks the committed budgets.yaml on a replay of the sample corpus
// (the same check as make test) and keeps the printed and JSON verdicts as golden files.
// With -update (make update-expected) it first rewrites the exact figures of budgets.yaml
// (`== N`) to what this replay observes, so that a new sample needs no figure typed by hand.
func TestBudgetCheckGolden(t *testing.T) {
	dir := t.TempDir()
	res := sampleRun(t, dir, 1000, nil)
	budgets := filepath.Join("..", "..", "budgets.yaml")
	if *update {
		updateBudgetFigures(t, budgets, res)
	}
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
	before, after := armSummary(t, old, "before"), armSummary(t, old, "after")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		crossed  int
		stdout   []string
	}{
		// new answers every case but the first right, and no longer refuses what old refused
		{"mixed", []string{"--baseline", old, new}, ExitBudget, 2, []string{
			"correct{arm:after}: rate >= 0.99", budget.FormatValue(float64(after.Cases-1)/float64(after.Cases), ""),
			"CROSSED: no samples match the selector",
			fmt.Sprintf("-%d (%[1]d → 0)", before.Refused),
			fmt.Sprintf("0 (%s → %[1]s)", budget.FormatValue(float64(after.ImageRows), ""))}},
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
			for _, o := range v.Checks { // the table shows what the JSON verdict observed
				if o.Observed != nil && o.Base == nil && !strings.Contains(text, budget.FormatValue(*o.Observed, o.Unit)) {
					t.Errorf("table lacks %s observed for %s:\n%s", budget.FormatValue(*o.Observed, o.Unit), o.Budget, text)
				}
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

// exactFigure is the figure of an exact budget, `== N`, and what follows it on its line.
var exactFigure = regexp.MustCompile(`^(==\s*)(-?[0-9][0-9.]*)`)

// updateBudgetFigures rewrites, in the budgets file, the figure of every exact budget (`== N`,
// no unit) that the results do not meet with the figure they observe. Bounds (`<=`, `>=`, …)
// and budgets with a unit are left as they are: they are choices, not figures of the corpus.
func updateBudgetFigures(t *testing.T, budgets, res string) {
	t.Helper()
	code, js, stderr := runCLI(t, "budget", "check", "--budgets", budgets, "--format", "json", res)
	if code != ExitOK && code != ExitBudget {
		t.Fatalf("budget check exit %d: %s", code, stderr)
	}
	var v budget.Verdict
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(budgets)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	changed := 0
	for _, c := range v.Checks {
		if c.Passed || c.Op != "==" || c.Unit != "" || c.Observed == nil || c.Line < 1 || c.Line > len(lines) {
			continue
		}
		line := lines[c.Line-1]
		at := strings.Index(line[min(c.Column-1, len(line)):], "==")
		if at < 0 {
			t.Fatalf("%s:%d: no == after column %d in %q", budgets, c.Line, c.Column, line)
		}
		at += min(c.Column-1, len(line))
		m := exactFigure.FindStringSubmatchIndex(line[at:])
		if m == nil {
			t.Fatalf("%s:%d: no figure after == in %q", budgets, c.Line, line)
		}
		figure := strconv.FormatFloat(*c.Observed, 'f', -1, 64)
		lines[c.Line-1] = line[:at+m[4]] + figure + line[at+m[5]:]
		t.Logf("%s:%d: %s → %s", budgets, c.Line, line[at+m[4]:at+m[5]], figure)
		changed++
	}
	if changed == 0 {
		return
	}
	if err := os.WriteFile(budgets, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBudgetExamplesShowTheBudgetsFile: the example budgets of docs/budgets.md and of
// `budget check --help` that budgets.yaml also holds (the same selector and aggregation) carry
// its figures; -update (make update-expected) writes them in.
func TestBudgetExamplesShowTheBudgetsFile(t *testing.T) {
	figures := map[string]string{}
	yamlBudgets(t, filepath.Join("..", "..", "budgets.yaml"), func(key, figure string) string {
		figures[key] = figure
		return ""
	})
	for _, page := range []string{filepath.Join("..", "..", "docs", "budgets.md"), "budget.go"} {
		shared := 0
		out := yamlBudgets(t, page, func(key, figure string) string {
			want, ok := figures[key]
			if !ok {
				return ""
			}
			shared++
			if want != figure && !*update {
				t.Errorf("%s: %s shows %s, budgets.yaml holds %s (go test ./cmd/cli -run %s -update)", page, key, figure, want, t.Name())
			}
			return want
		})
		if shared == 0 {
			t.Fatalf("%s shows no budget of budgets.yaml (did its example change?)", page)
		}
		if *update {
			if err := os.WriteFile(page, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// budgetLine is a budget as a line of YAML shows it: key (selector and aggregation), the
// operator and its figure, and the rest.
var budgetLine = regexp.MustCompile(`^(\s+)([a-z_]+(?:\{[^}]*\})?:\s*[a-z]+(?:\([0-9.]+\))?)(\s*(?:==|!=|<=|>=|<|>)\s*)(-?[0-9][0-9.]*)(.*)$`)

// yamlBudgets calls f for every budget line of a budgets file or Go source (the help text), or
// of the yaml blocks of a Markdown page, with its key and its figure; a non-empty answer
// replaces the figure. It returns the text with the replacements.
func yamlBudgets(t *testing.T, path string, f func(key, figure string) string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inYAML := !strings.HasSuffix(path, ".md")
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(path, ".md") && strings.HasPrefix(line, "```") {
			inYAML = line == "```yaml"
		}
		if m := budgetLine.FindStringSubmatch(line); inYAML && m != nil {
			if figure := f(m[2], m[4]); figure != "" {
				line = fmt.Sprintf("%s%s%s%s%s", m[1], m[2], m[3], figure, m[5])
			}
		}
		out.WriteString(line + "\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
