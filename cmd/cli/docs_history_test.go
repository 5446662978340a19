package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// historyPatterns are what development history leaves in docs: an issue number, a commit hash
// (7 to 40 hex digits, letters and digits both), a folder of pending text, a comparison with
// what the code was.
var historyPatterns = []struct {
	what string
	re   *regexp.Regexp
	keep func(string) bool // a match that is not history after all
}{
	{"an issue number", regexp.MustCompile(`(?i)\b(issue|pr|pull request) ?#?\d+|(^|[\s(])#\d+\b`), nil},
	{"a commit hash", regexp.MustCompile(`\b[0-9a-f]{7,40}\b`), func(s string) bool {
		return !strings.ContainsAny(s, "abcdef") || !strings.ContainsAny(s, "0123456789")
	}},
	{"a pending-docs folder", regexp.MustCompile(`docs/incoming`), nil},
	{"a figure it used to be", regexp.MustCompile(`(?i)\b(was|used to be) [0-9]|\bmain before\b`), nil},
}

// TestDocsDescribeTheProduct: README.md and docs/*.md describe the product as it is, without
// development history.
func TestDocsDescribeTheProduct(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "..", "README.md"))
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, p := range historyPatterns {
				for _, m := range p.re.FindAllString(line, -1) {
					if p.keep == nil || !p.keep(m) {
						t.Errorf("%s:%d holds %s (%q): docs describe the product as it is", filepath.ToSlash(strings.TrimPrefix(page, filepath.Join("..", "..")+string(filepath.Separator))), i+1, p.what, strings.TrimSpace(m))
					}
				}
			}
		}
	}
}
