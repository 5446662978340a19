package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// notInBinary lists standard packages the shipped binary must not link: they are for tests.
var notInBinary = []string{"net/http/httptest", "testing"}

// TestBinaryLinksNoTestCode: the packages `go list -deps ./cmd/strata-eval` names (what the
// binary links) hold no test package of the standard library and nothing of internal/testkit,
// and every other package of the module with non-test code is among them: code that only tests
// and generators use belongs in internal/testkit, which the import rule keeps out of the product.
func TestBinaryLinksNoTestCode(t *testing.T) {
	goTool := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to list the binary's packages")
		}
	}
	cmd := exec.Command(goTool, "list", "-deps", "./cmd/strata-eval")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/strata-eval: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps[module+"cmd/cli"] {
		t.Fatalf("go list -deps names no %scmd/cli: %d packages", module, len(deps))
	}
	for _, p := range notInBinary {
		if deps[p] {
			t.Errorf("the binary links %s", p)
		}
	}
	for _, p := range modulePackages(t) {
		inKit, linked := part(p.rel) == testkit, deps[module+p.rel]
		switch {
		case inKit && linked:
			t.Errorf("the binary links the test helper %s", p.rel)
		case !inKit && p.code && !linked:
			t.Errorf("the binary does not link %s: if only tests and generators use it, move it under %s/", p.rel, testkit)
		}
	}
}
