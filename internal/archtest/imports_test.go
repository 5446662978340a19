// Package archtest holds the tests that keep the module's imports pointing one way and the
// shipped binary free of test code.
package archtest

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/strata-eval/strata-eval/"

// rank is the floor of each part of the module: the non-test code of a package may import only
// packages of a lower floor, besides its own part's. A part is a top-level folder (a product
// package and its sub-packages), but internal/ holds two kinds: each production leaf
// internal/<x> is a part of its own on the floor under corpora, importing nothing of the module,
// and internal/testkit (test helpers and generators) is one part above cmd, so that no non-test
// code of the product imports it and the binary links none of it. So cmd → run → {engine,
// results} → {measure, replay} → records → corpora → internal/<x>, where skipping floors
// downwards is fine and importing upwards or sideways (replay ↔ measure, engine ↔ results, one
// leaf and another) is not (docs/decisions.md §7, "Layers").
var rank = map[string]int{
	"internal": -1, // internal/<x>, each a part of its own
	"corpora":  0,
	"records":  1,
	"recorder": 1, // the recording proxy and MCP tap: corpora's redaction only
	"measure":  2,
	"replay":   2,
	"engine":   3,
	"results":  3,
	"run":      4,
	"cmd":      5,
	testkit:    6,
}

// testkit is the part that holds the test helpers and generators.
const testkit = "internal/testkit"

// barred lists imports that the ranks allow but the layers do not want: results reports the
// records (package records), not the pipeline that makes them.
var barred = map[string][]string{
	"results": {"replay"},
}

// TestImportsPointOneWay walks every package of the module and fails on an import of its
// non-test code that runs the other way.
func TestImportsPointOneWay(t *testing.T) {
	pkgs := modulePackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages: is the walk rooted at the module?", len(pkgs))
	}
	for _, pkg := range pkgs {
		for _, imp := range pkg.imports {
			if why := importRule(pkg.rel, imp); why != "" {
				t.Errorf("%s imports %s: %s", pkg.rel, imp, why)
			}
		}
	}
}

// TestImportRule checks the rule itself on imports the tree does not (and must not) have.
func TestImportRule(t *testing.T) {
	tests := []struct {
		from, to string
		ok       bool
	}{
		{"cmd/cli", "run", true},
		{"cmd/cli", "corpora", true}, // downward skip
		{"run", "engine", true},
		{"results/budget", "results", true}, // own sub-package
		{"results", "records", true},
		{"replay", "internal/jsonquote", true},
		{"corpora", "internal/vecscan", true},
		{"run", "internal/vecscan", true},
		{"internal/vecscan", "run", false},
		{"internal/vecscan", "corpora", false},
		{"internal/jsonquote", "internal/vecscan", false},                    // leaves import no other leaf
		{"internal/jsonquote/x", "internal/jsonquote", true},                 // a leaf's own sub-package
		{"internal/testkit/gensamples", "internal/testkit/testimages", true}, // within the test kit
		{"internal/testkit/testserver", "corpora", true},
		{"internal/testkit/gensamples", "internal/jsonquote", true},
		{"internal/testkit/gensamples", "cmd/cli", true},
		{"cmd/cli", "internal/testkit/testimages", false},
		{"measure/prompt", "internal/testkit/tinymodel", false},
		{"internal/fsutil", "internal/testkit/syncbuf", false},
		{"results", "replay", false}, // a lower floor, but results reports records, not the pipeline
		{"replay", "measure", false}, // sideways
		{"engine", "results", false}, // sideways
		{"corpora", "records", false},
		{"cmd/cli", "recorder", true},
		{"recorder", "records", false}, // sideways
		{"recorder", "corpora", true},
		{"run", "cmd/cli", false},
		{"run", "tools/new", false}, // a package without a rank
	}
	for _, tt := range tests {
		got := importRule(tt.from, tt.to) == ""
		if got != tt.ok {
			t.Errorf("importRule(%s, %s) allows = %v, want %v (%s)", tt.from, tt.to, got, tt.ok, importRule(tt.from, tt.to))
		}
	}
}

// importRule says why package from (relative to the module) may not import to, or "".
func importRule(from, to string) string {
	pf, pt := part(from), part(to)
	if pf == pt {
		return "" // a part's own packages
	}
	rf, okf := rank[floor(pf)]
	rt, okt := rank[floor(pt)]
	switch {
	case !okf:
		return pf + " has no rank in internal/archtest"
	case !okt:
		return pt + " has no rank in internal/archtest"
	case rt >= rf:
		return ranksText(pf, rf)
	case contains(barred[pf], pt):
		return pf + " must not import " + pt + " (internal/archtest: barred)"
	}
	return ""
}

func ranksText(name string, r int) string {
	var lower []string
	for n, x := range rank {
		if x < r {
			if n == "internal" {
				n = "internal/<leaf>"
			}
			lower = append(lower, n)
		}
	}
	sort.Strings(lower)
	if len(lower) == 0 {
		return name + " is on the ground floor: it imports nothing of the module"
	}
	return name + " may import only lower floors: " + strings.Join(lower, ", ")
}

// part is the part of the module a package belongs to: internal/testkit for the test kit, its
// own internal/<x> for a production leaf ("internal/vecscan/x" → "internal/vecscan"), else its
// top-level folder.
func part(rel string) string {
	if rel == testkit || strings.HasPrefix(rel, testkit+"/") {
		return testkit
	}
	parts := strings.SplitN(rel, "/", 3)
	if parts[0] == "internal" && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// floor is the key of a part in rank: "internal" for every production leaf.
func floor(part string) string {
	if part != testkit && strings.HasPrefix(part, "internal/") {
		return "internal"
	}
	return part
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pkg is one package of the module: its path relative to the module, the module packages its
// non-test code imports (relative too), and whether it has non-test code on this platform.
type pkg struct {
	rel     string
	imports []string
	code    bool
}

// modulePackages lists every package of the module, skipping testdata and hidden folders.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []pkg
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "node_modules") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		one := pkg{rel: filepath.ToSlash(rel), code: len(p.GoFiles)+len(p.CgoFiles) > 0}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				one.imports = append(one.imports, strings.TrimPrefix(imp, module))
			}
		}
		if one.rel != "." {
			out = append(out, one)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
