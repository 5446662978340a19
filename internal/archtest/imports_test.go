// Package archtest holds the test that keeps the module's imports pointing one way.
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

// rank is the floor of each product package (by its top-level folder): the non-test code of a
// package may import only packages of a lower rank, besides its own sub-packages and the
// internal/ helpers. So cmd → run → {engine, results} → {measure, replay} → records → corpora,
// where skipping floors downwards is fine and importing upwards or sideways (replay ↔ measure,
// engine ↔ results) is not (docs/decisions.md §7, "Layers").
var rank = map[string]int{
	"corpora":  0,
	"records":  1,
	"recorder": 1, // the recording proxy and MCP tap: corpora's redaction only
	"measure":  2,
	"replay":   2,
	"engine":   3,
	"results":  3,
	"run":      4,
	"cmd":      5,
}

// barred lists imports that the ranks allow but the layers do not want: results reports the
// records (package records), not the pipeline that makes them.
var barred = map[string][]string{
	"results": {"replay"},
}

// helperImports lists the product packages an internal/ helper may import; a helper not
// listed imports none (helpers are leaves under every floor).
var helperImports = map[string][]string{
	"internal/testserver": {"corpora"}, // reads what it serves with the project's own reader
}

// testOnly lists internal/ helpers that the shipped binary must not link: only tests and the
// generators (helperUsers) may import them.
var testOnly = map[string][]string{
	"internal/testimages":   {"internal/gensamples", "internal/gencorpus", "internal/agentsim"},
	"internal/llamaserver":  {"internal/ollamaserver"},
	"internal/ollamaserver": nil,
	"internal/tinyproj":     nil,
	"internal/testserver":   nil,
	"internal/syncbuf":      nil,
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
		{"run", "internal/blake3x", true},
		{"internal/blake3x", "run", false},
		{"internal/gensamples", "internal/testimages", true},
		{"results", "replay", false}, // a lower floor, but results reports records, not the pipeline
		{"replay", "measure", false}, // sideways
		{"engine", "results", false}, // sideways
		{"corpora", "records", false},
		{"cmd/cli", "recorder", true},
		{"recorder", "records", false}, // sideways
		{"recorder", "corpora", true},
		{"run", "cmd/cli", false},
		{"internal/fsutil", "corpora", false},
		{"cmd/cli", "internal/testimages", false},
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
	fromTop, toTop := top(from), top(to)
	if fromTop == toTop && fromTop != "internal" {
		return "" // a product package and its own sub-packages
	}
	if users, ok := testOnly[helper(to)]; ok && !underAny(from, users) {
		return "only tests and the generators " + strings.Join(users, ", ") + " may import it"
	}
	if fromTop == "internal" {
		if toTop == "internal" || contains(helperImports[helper(from)], toTop) {
			return ""
		}
		return "internal/ helpers are leaves: they import no product package"
	}
	if toTop == "internal" {
		return ""
	}
	rf, okf := rank[fromTop]
	rt, okt := rank[toTop]
	switch {
	case !okf:
		return fromTop + " has no rank in internal/archtest"
	case !okt:
		return toTop + " has no rank in internal/archtest"
	case rt >= rf:
		return ranksText(fromTop, rf)
	case contains(barred[fromTop], toTop):
		return fromTop + " must not import " + toTop + " (internal/archtest: barred)"
	}
	return ""
}

func ranksText(name string, r int) string {
	var lower []string
	for n, x := range rank {
		if x < r {
			lower = append(lower, n)
		}
	}
	sort.Strings(lower)
	return name + " may import only lower floors: " + strings.Join(lower, ", ") + " (and internal/...)"
}

// top is the first folder of a path relative to the module.
func top(rel string) string { return strings.SplitN(rel, "/", 2)[0] }

// helper is the internal/ helper a path belongs to ("internal/gencorpus/cmd/x" →
// "internal/gencorpus"), or "" outside internal/.
func helper(rel string) string {
	parts := strings.SplitN(rel, "/", 3)
	if parts[0] != "internal" || len(parts) < 2 {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

func underAny(rel string, roots []string) bool {
	for _, r := range roots {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pkg is one package of the module: its path relative to the module and the module packages
// its non-test code imports (relative too).
type pkg struct {
	rel     string
	imports []string
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
		one := pkg{rel: filepath.ToSlash(rel)}
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
