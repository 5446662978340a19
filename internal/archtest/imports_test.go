// Package archtest holds the test that keeps the module's imports pointing one way.
package archtest

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/strata-eval/strata-eval/"

// allowed lists, per top-level package, the module's packages its non-test code may import
// (internal/... is shared by all): corpora is the ground floor; replay and measure stand on
// corpora; engine on measure and corpora; results on the records it reports.
var allowed = map[string][]string{
	"corpora": {},
	"replay":  {"corpora"},
	"measure": {"corpora"},
	"engine":  {"corpora", "measure"},
	"results": {"corpora", "replay", "measure", "results"},
}

// TestImportsPointOneWay walks every package under the five layers and fails on an import
// that runs the other way.
func TestImportsPointOneWay(t *testing.T) {
	root := filepath.Join("..", "..")
	for layer, ok := range allowed {
		err := filepath.WalkDir(filepath.Join(root, layer), func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() == "testdata" {
				if d != nil && d.IsDir() && d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return err
			}
			pkg, err := build.ImportDir(path, 0)
			if err != nil {
				if _, none := err.(*build.NoGoError); none {
					return nil
				}
				return err
			}
			for _, imp := range pkg.Imports {
				if !strings.HasPrefix(imp, module) {
					continue
				}
				rel := strings.TrimPrefix(imp, module)
				top := strings.SplitN(rel, "/", 2)[0]
				if top == "internal" || top == layer {
					continue
				}
				if !contains(ok, top) {
					t.Errorf("%s imports %s: %s may import only %v (and internal/...)", path, imp, layer, ok)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
