package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sectionCite matches a citation of a page's section in the code: "docs/pipeline.md §4.6".
var sectionCite = regexp.MustCompile(`([A-Za-z0-9_./-]+\.md) §`)

// TestCitedPagesExist: every page the code cites by section (a .md name, then § and a number) is in the repository
// (at the root or in docs/), so that a reader can follow it; the product's spec notes are not.
func TestCitedPagesExist(t *testing.T) {
	root := filepath.Join("..", "..")
	cites := 0
	err := walkGoFiles(root, func(path string, src []byte) error {
		for _, m := range sectionCite.FindAllStringSubmatch(string(src), -1) {
			cites++
			page := m[1]
			if !exists(filepath.Join(root, page)) && !exists(filepath.Join(root, "docs", page)) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s cites %s, which is not in the repository (cite docs/pipeline.md or docs/decisions.md)", rel, m[0])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cites < 10 {
		t.Fatalf("found only %d section citations: is the walk rooted at the module?", cites)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// bareIssue matches an issue or pull-request number that names no repository: "#" and digits
// after a space or a bracket.
var bareIssue = regexp.MustCompile(`(^|[\s(\[])#[0-9]{3,}\b`)

// TestIssueReferencesNameTheRepository: a reference to an issue or pull request in the code or
// the docs names its repository (NousResearch/hermes-agent#111441), so that a reader can find it.
func TestIssueReferencesNameTheRepository(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "samples" || strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := bareIssue.FindString(line); m != "" {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: %q names no repository (write owner/name%s)", rel, i+1, strings.TrimSpace(m), strings.TrimLeft(m, " \t(["))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
