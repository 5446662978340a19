package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnreadableResults: every command that reads results.json reads it with one strict reader;
// a missing file, truncated JSON and a member the results do not have are each exit 3 with
// one line on stderr naming the file and the place.
func TestUnreadableResults(t *testing.T) {
	dir := t.TempDir()
	good := `{"schema":"strata-eval/results/v1","cases":[{"id":"a","arms":[{"arm":"after","prompt_tokens":1,"fits":true}]}]}`
	files := map[string]string{
		"good.json":      good,
		"truncated.json": good[:50],
		"unknown.json":   strings.Replace(good, `"fits":true`, `"fits":true,"colour":"red"`, 1),
		"budgets.yaml":   "budgets:\n  problems: sum == 0\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	bad := map[string]string{
		"missing.json":   "no such file or directory",
		"truncated.json": "byte 50: unexpected end of JSON input",
		"unknown.json":   `byte 107: member "cases.arms.colour": unknown`,
	}
	commands := map[string]func(file string) []string{
		"results merge": func(f string) []string {
			return []string{"results", "merge", "-o", path("merged"), path("good.json"), f}
		},
		"rescore":      func(f string) []string { return []string{"rescore", f} },
		"budget check": func(f string) []string { return []string{"budget", "check", "--budgets", path("budgets.yaml"), f} },
		"compare":      func(f string) []string { return []string{"compare", path("good.json"), f} },
	}
	for cmd, args := range commands {
		for file, place := range bad {
			t.Run(cmd+"/"+file, func(t *testing.T) {
				code, _, stderr := runCLI(t, args(path(file))...)
				want := "strata-eval: " + path(file) + ": " + place
				if code != ExitInputs || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, want) {
					t.Errorf("exit %d, stderr %q; want exit %d and one line %q", code, stderr, ExitInputs, want)
				}
			})
		}
	}
}
