package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Registries whose names are compared only where they are kept (docs/development.md): a
// projector type's facts live in its entry of projectorTypes or in its family file, and an
// engine kind's in its entry of engineKinds.
const (
	projectorTable = "measure/imagerows/projectors.go"
	projectorVar   = "projectorTypes"
	familyFiles    = "measure/imagerows/family_"
	engineTable    = "cmd/cli/engines.go"
	engineVar      = "engineKinds"
)

// TestProjectorTypesComparedInTheirTable fails on a comparison (==, !=, a case clause) of a
// projector type name outside projectors.go and the family files, and on a family file that
// compares a type it does not own (one whose table entry names none of the file's functions).
// It reads package imagerows and the files that import it: elsewhere the same words name
// other things (the gemma3 chat template).
func TestProjectorTypesComparedInTheirTable(t *testing.T) {
	files := importersOf(moduleFiles(t), filepath.Dir(projectorTable))
	entries := registry(t, files, projectorTable, projectorVar, 30)
	owners := familyOwners(files, entries)
	for _, c := range nameComparisons(files, entries) {
		switch {
		case c.file == projectorTable:
		case strings.HasPrefix(c.file, familyFiles):
			if !owners[c.name][c.file] {
				t.Errorf("%s: compares projector type %q, which is not this family file's (its entry in %s names none of its functions)", c.pos, c.name, projectorVar)
			}
		default:
			t.Errorf("%s: compares projector type %q: the fact belongs in its entry of %s (%s) or its family file", c.pos, c.name, projectorVar, projectorTable)
		}
	}
}

// TestEngineKindsComparedInTheirRegistry fails on a comparison of an --engine name outside
// cmd/cli/engines.go (a URL's scheme "http" excepted): what a kind does is a field of its entry.
func TestEngineKindsComparedInTheirRegistry(t *testing.T) {
	files := moduleFiles(t)
	for _, c := range nameComparisons(files, registry(t, files, engineTable, engineVar, 3)) {
		if c.file != engineTable && !c.scheme {
			t.Errorf("%s: compares engine kind %q: say what it needs in a field of its entry in %s (%s)", c.pos, c.name, engineVar, engineTable)
		}
	}
}

// TestNameComparisonsFound checks the checks' finder on code that has each form of comparison.
func TestNameComparisonsFound(t *testing.T) {
	const src = `package p
const kind = "b"
func f(x, y string) {
	_ = x == "a"
	_ = "a" != x
	_ = x == kind
	_ = x == "c"
	_ = y.Scheme == "a"
	switch x {
	case "c", "b":
	}
	switch {
	case x == "a":
	}
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p/p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := nameComparisons(map[string]*parsedFile{"p/p.go": {fset: fset, file: f}}, map[string]bool{"a": true, "b": true})
	var lines []string
	for _, c := range got {
		lines = append(lines, c.pos+" "+c.name+" "+strconv.FormatBool(c.scheme))
	}
	want := []string{"p/p.go:4:6 a false", "p/p.go:5:6 a false", "p/p.go:6:6 b false", "p/p.go:8:6 a true", "p/p.go:10:12 b false", "p/p.go:13:7 a false"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("comparisons found:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// registry returns the entries of variable in the file at path (registryEntries), failing
// when there are fewer than least.
func registry(t *testing.T, files map[string]*parsedFile, path, variable string, least int) map[string][]string {
	t.Helper()
	table := files[path]
	if table == nil {
		t.Fatalf("%s not found", path)
	}
	entries := registryEntries(t, table, variable)
	if len(entries) < least {
		t.Fatalf("%s: found only %d entries in %s", path, len(entries), variable)
	}
	return entries
}

// parsedFile is one non-test Go file of the module.
type parsedFile struct {
	fset *token.FileSet
	file *ast.File
}

// moduleFiles parses every non-test Go file of the module, by its path relative to the
// module, skipping testdata and hidden folders.
func moduleFiles(t *testing.T) map[string]*parsedFile {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string]*parsedFile{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = &parsedFile{fset: fset, file: f}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// importersOf keeps the files of package dir and those that import it.
func importersOf(files map[string]*parsedFile, dir string) map[string]*parsedFile {
	out := map[string]*parsedFile{}
	for path, pf := range files {
		if filepath.Dir(path) == dir {
			out[path] = pf
			continue
		}
		for _, imp := range pf.file.Imports {
			if stringLit(imp.Path) == module+dir {
				out[path] = pf
			}
		}
	}
	return out
}

// registryEntries returns the names of a registry variable's entries (a map's string keys, or
// the name field, else the first field, of each element of a slice) with the identifiers each entry's value
// mentions, a local variable it names standing for that variable's value.
func registryEntries(t *testing.T, pf *parsedFile, variable string) map[string][]string {
	t.Helper()
	var lit *ast.CompositeLit
	var scope ast.Node // the function that fills the registry: its locals stand for their values
	for _, d := range pf.file.Decls {
		ast.Inspect(d, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && id.Name == variable && i < len(n.Rhs) {
						if cl, ok := n.Rhs[i].(*ast.CompositeLit); ok {
							lit, scope = cl, d
						}
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if cl, ok := valueAt(n.Values, i).(*ast.CompositeLit); ok && id.Name == variable {
						lit = cl
					}
				}
			}
			return true
		})
	}
	if lit == nil {
		t.Fatalf("no composite literal assigned to %s", variable)
	}
	locals := map[string]ast.Expr{}
	if scope != nil {
		ast.Inspect(scope, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok {
				for i, lhs := range as.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && id.Name != variable && i < len(as.Rhs) {
						locals[id.Name] = as.Rhs[i]
					}
				}
			}
			return true
		})
	}
	entries := map[string][]string{}
	for _, elt := range lit.Elts {
		var key string
		var value ast.Expr = elt
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			key, value = stringLit(kv.Key), kv.Value
		} else if cl, ok := elt.(*ast.CompositeLit); ok && len(cl.Elts) > 0 {
			key = elementName(cl)
		}
		if key == "" {
			t.Fatalf("%s: an entry of %s without a string name", pf.fset.Position(elt.Pos()), variable)
		}
		entries[key] = mentioned(value, locals)
	}
	return entries
}

// elementName is the name of a registry's element: its field name, else its first field.
func elementName(cl *ast.CompositeLit) string {
	for _, e := range cl.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "name" {
				return stringLit(kv.Value)
			}
		}
	}
	return stringLit(cl.Elts[0])
}

func valueAt(values []ast.Expr, i int) ast.Expr {
	if i < len(values) {
		return values[i]
	}
	return nil
}

// mentioned lists the identifiers in e (field names of composite literals left out), following
// identifiers of locals once.
func mentioned(e ast.Expr, locals map[string]ast.Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if _, field := kv.Key.(*ast.Ident); field {
					walk(kv.Value)
					return false
				}
			}
			id, ok := n.(*ast.Ident)
			if !ok || seen[id.Name] {
				return true
			}
			seen[id.Name] = true
			out = append(out, id.Name)
			if v, ok := locals[id.Name]; ok {
				walk(v)
			}
			return true
		})
	}
	walk(e)
	return out
}

// familyOwners maps each projector type to the family files that declare a function its
// table entry mentions.
func familyOwners(files map[string]*parsedFile, entries map[string][]string) map[string]map[string]bool {
	declaredIn := map[string]string{}
	for path, pf := range files {
		if !strings.HasPrefix(path, familyFiles) {
			continue
		}
		for _, d := range pf.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				declaredIn[fd.Name.Name] = path
			}
		}
	}
	owners := map[string]map[string]bool{}
	for name, idents := range entries {
		owners[name] = map[string]bool{}
		for _, id := range idents {
			if file, ok := declaredIn[id]; ok {
				owners[name][file] = true
			}
		}
	}
	return owners
}

// comparison is a registry name compared in code.
type comparison struct {
	file, pos, name string
	at              token.Position
	// scheme is set when the other side is a URL's Scheme (the http engine's name is a scheme).
	scheme bool
}

// nameComparisons finds, in every file, the comparisons (==, !=, case clauses) of one of the
// names (the keys of entries), as a string literal or a constant of the file's package holding one.
func nameComparisons[V any](files map[string]*parsedFile, entries map[string]V) []comparison {
	names := map[string]bool{}
	for name := range entries {
		names[name] = true
	}
	consts := map[string]map[string]string{} // package folder → constant → name
	for path, pf := range files {
		for _, d := range pf.file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if v := stringLit(valueAt(vs.Values, i)); names[v] {
						dir := filepath.Dir(path)
						if consts[dir] == nil {
							consts[dir] = map[string]string{}
						}
						consts[dir][id.Name] = v
					}
				}
			}
		}
	}
	var out []comparison
	for path, pf := range files {
		pkgConsts := consts[filepath.Dir(path)]
		nameOf := func(e ast.Expr) string {
			if v := stringLit(e); names[v] {
				return v
			}
			if id, ok := e.(*ast.Ident); ok {
				return pkgConsts[id.Name]
			}
			return ""
		}
		add := func(at ast.Expr, name string, other ast.Expr) {
			sel, isSel := other.(*ast.SelectorExpr)
			pos := pf.fset.Position(at.Pos())
			out = append(out, comparison{file: path, pos: pos.String(), at: pos, name: name,
				scheme: isSel && sel.Sel.Name == "Scheme"})
		}
		ast.Inspect(pf.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					return true
				}
				if name := nameOf(n.Y); name != "" {
					add(n.X, name, n.X)
				} else if name := nameOf(n.X); name != "" {
					add(n.X, name, n.Y)
				}
			case *ast.SwitchStmt:
				for _, s := range n.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						if name := nameOf(e); name != "" {
							add(e, name, n.Tag)
						}
					}
				}
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].at, out[j].at
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return out
}

// stringLit is the value of a string literal, "" for anything else.
func stringLit(e ast.Expr) string {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return ""
	}
	return s
}

// TestFamilyOwners checks that a type is owned by the family file declaring a function its
// entry names, directly, through a call or through a local variable.
func TestFamilyOwners(t *testing.T) {
	parse := func(path, src string) *parsedFile {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return &parsedFile{fset: fset, file: f}
	}
	files := map[string]*parsedFile{
		projectorTable: parse(projectorTable, `package p
func init() {
	shared := entry{rows: wrap(bRows)}
	table = map[string]entry{"a": {rows: aRows, configure: aConfigure}, "b": shared, "c": {rows: wrap(bRows)}, "d": {}}
}`),
		familyFiles + "a.go": parse(familyFiles+"a.go", "package p\nfunc aRows() {}\nfunc aConfigure() {}"),
		familyFiles + "b.go": parse(familyFiles+"b.go", "package p\nfunc bRows() {}\nfunc wrapped() {}"),
	}
	owners := familyOwners(files, registryEntries(t, files[projectorTable], "table"))
	want := map[string][]string{"a": {familyFiles + "a.go"}, "b": {familyFiles + "b.go"}, "c": {familyFiles + "b.go"}, "d": nil}
	for name, files := range want {
		var got []string
		for f := range owners[name] {
			got = append(got, f)
		}
		if strings.Join(got, ",") != strings.Join(files, ",") {
			t.Errorf("owners of %s: %v, want %v", name, got, files)
		}
	}
}
