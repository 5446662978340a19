package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docOutput finds the output folders and files the commands of README.md and docs/*.md write
// into the checkout: --out DIR, --dump DIR, results merge -o DIR, and a redirection to a file.
var docOutput = regexp.MustCompile(`(?:--out|--dump|-o|>) ([a-z][a-z0-9_.-]*)`)

// TestGitignoreHoldsDocOutputs: every folder or file that a command of the README or the docs
// writes into the checkout is in .gitignore, so that trying the docs leaves `git status` clean.
func TestGitignoreHoldsDocOutputs(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.Trim(strings.TrimSpace(line), "/"); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docOutput.FindAllStringSubmatch(string(text), -1) {
			name := m[1]
			if name == "as" || name == "dev" || name == "name" { // prose ("--out as"), /dev/null, find -o -name
				continue
			}
			ignored := false
			for _, p := range patterns {
				if ok, _ := filepath.Match(p, name); ok {
					ignored = true
				}
			}
			if !ignored {
				t.Errorf("%s writes %s (%q), which .gitignore does not list", filepath.Base(page), name, m[0])
			}
		}
	}
}
