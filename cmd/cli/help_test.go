package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// helpBudgets returns the example budgets of `budget check --help` (the indented lines under
// "budgets:").
func helpBudgets(t *testing.T) []string {
	t.Helper()
	code, out, errOut := runCLI(t, "budget", "check", "--help")
	if code != ExitOK {
		t.Fatalf("budget check --help: exit %d\n%s", code, errOut)
	}
	_, block, ok := strings.Cut(out, "\n  budgets:\n")
	if !ok {
		t.Fatalf("budget check --help has no example budgets block:\n%s", out)
	}
	var lines []string
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "    ") {
			break
		}
		lines = append(lines, strings.TrimSpace(line))
	}
	if len(lines) < 3 {
		t.Fatalf("only %d example budgets", len(lines))
	}
	return lines
}

var scanOverRead = regexp.MustCompile(`scan_over_read\{payload:(\w+)\}: p\(50\) < ([0-9.]+)`)

// TestHelpBudgetFiguresHold: the figures the help texts show are true. The example budgets of
// `budget check --help` on replay figures hold on a replay of the sample corpus (the delta one
// against the same run as baseline); the scan/read budget that `budget check --help` and
// `bench scan --help` show is the same and lies above the current figure of
// docs/performance.md for its payload.
func TestHelpBudgetFiguresHold(t *testing.T) {
	lines := helpBudgets(t)
	var replayLines, scanLines []string
	for _, l := range lines {
		if strings.HasPrefix(l, "scan_over_read") {
			scanLines = append(scanLines, l)
		} else {
			replayLines = append(replayLines, l)
		}
	}
	dir := t.TempDir()
	res := sampleRun(t, filepath.Join(dir, "run"), 1000, nil)
	budgets := filepath.Join(dir, "budgets.yaml")
	if err := os.WriteFile(budgets, []byte("budgets:\n  "+strings.Join(replayLines, "\n  ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "budget", "check", "--budgets", budgets, "--baseline", res, res); code != ExitOK {
		t.Errorf("the example budgets of budget check --help do not hold on the sample corpus (exit %d):\n%s%s", code, out, errOut)
	}

	_, bench, _ := runCLI(t, "bench", "scan", "--help")
	m := scanOverRead.FindStringSubmatch(bench)
	if m == nil || len(scanLines) != 1 || !strings.Contains(scanLines[0], m[0]) {
		t.Fatalf("bench scan --help shows %q, budget check --help %q: want one scan_over_read budget, the same in both", m, scanLines)
	}
	bound, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		t.Fatal(err)
	}
	perf, err := os.ReadFile(filepath.Join("..", "..", "docs", "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(m[1]) + "`.*\\| ([0-9.]+)× \\|$").FindSubmatch(perf)
	if row == nil {
		t.Fatalf("docs/performance.md has no scan/read figure for %s", m[1])
	}
	figure, _ := strconv.ParseFloat(string(row[1]), 64)
	if figure >= bound {
		t.Errorf("the help's budget scan_over_read{payload:%s} < %v is crossed by the figure of docs/performance.md (%v×)", m[1], bound, figure)
	}
}

// TestHelpExitCodes: the help of every command ends with an EXIT STATUS section listing 0, 1 and
// 2 and then the codes that command gives: 3 where it reads inputs, 4 where it evaluates
// budgets, 5 for compare's regression; version reads nothing.
func TestHelpExitCodes(t *testing.T) {
	want := map[string][]int{
		"strata-eval": {3, 4, 5}, "replay": {3}, "count": {3}, "rows": {3}, "rescore": {3}, "corpus": {3}, "corpus inspect": {3},
		"results": {3}, "results merge": {3}, "bench": {3}, "bench scan": {3}, "budget": {3, 4}, "budget check": {3, 4},
		"compare": {3, 4, 5}, "version": nil, "cache": nil, "record": nil, "record http": nil, "record mcp": nil,
	}
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := strings.TrimPrefix(c.CommandPath(), "strata-eval ")
		if c.Name() == "help" || strings.HasPrefix(path, "completion") {
			return
		}
		codes, ok := want[path]
		if !ok {
			t.Errorf("%s: no expected exit codes in this test", path)
			return
		}
		seen++
		_, section, found := strings.Cut(c.Long, "EXIT STATUS\n")
		if !found {
			t.Errorf("%s: the help has no EXIT STATUS section", path)
			return
		}
		var got []string
		for _, line := range strings.Split(section, "\n") {
			got = append(got, strings.Fields(line)[0])
		}
		var w []string
		for _, code := range append([]int{ExitOK, ExitError, ExitUsage}, codes...) {
			w = append(w, strconv.Itoa(code))
		}
		if strings.Join(got, ",") != strings.Join(w, ",") {
			t.Errorf("%s: EXIT STATUS lists %v, want %v", path, got, w)
		}
	}
	walk(NewRootCmd(&IOStreams{}))
	if seen != len(want) {
		t.Errorf("checked %d commands, want %d", seen, len(want))
	}
}

// TestHelpExamplesRun: every command's --help has Example lines, and each runs as shown from the
// repository's root and exits 0 (in a folder that holds the repository's corpora/, examples/
// and budgets.yaml, so that what the examples write lands there); the lines of a command run
// one after the other, as a user would type them.
func TestHelpExamplesRun(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := c.CommandPath()
		if c.Name() == "help" || strings.Contains(path, "completion") {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s: the help has no examples", path)
			return
		}
		t.Run(strings.ReplaceAll(path, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{"corpora", "examples", "budgets.yaml"} {
				if err := os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			for _, line := range strings.Split(c.Example, "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "#") {
					continue
				}
				args := strings.Fields(line)
				if len(args) == 0 || args[0] != "strata-eval" {
					t.Errorf("%s: example %q does not start with strata-eval", path, line)
					continue
				}
				if code, _, errOut := runCLI(t, args[1:]...); code != ExitOK {
					t.Errorf("%s: example %q exits %d:\n%s", path, line, code, errOut)
				}
			}
		})
	}
	walk(NewRootCmd(&IOStreams{}))
}
