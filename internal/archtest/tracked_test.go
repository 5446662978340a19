package archtest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoIgnoredPathTracked fails when git tracks a path that .gitignore ignores: such a path
// (a local .cache symlink, a built binary) is committed by accident and breaks a fresh clone.
func TestNoIgnoredPathTracked(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--ignored", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	if tracked := strings.Fields(string(out)); len(tracked) > 0 {
		t.Errorf("tracked but ignored by .gitignore (git rm --cached them): %s", strings.Join(tracked, ", "))
	}
}
