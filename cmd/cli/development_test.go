package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/records"
	"github.com/strata-eval/strata-eval/results"
)

// changeLists reads the "Five typical changes" of docs/development.md: each "### " title with
// the paths its list names (every `…` of its "- " items that holds a "/" and names a file or
// a folder; a * stands for the new thing's file).
func changeLists(t *testing.T, root string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Five typical changes\n")
	if !ok {
		t.Fatal(`docs/development.md has no "## Five typical changes" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	lists := map[string][]string{}
	title, inItem := "", false
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "### "); ok {
			title, inItem = rest, false
			lists[title] = nil
			continue
		}
		switch {
		case strings.HasPrefix(line, "- "):
			inItem = title != ""
		case !strings.HasPrefix(line, "  "):
			inItem = false
		}
		if !inItem {
			continue
		}
		for _, m := range quotedPath.FindAllStringSubmatch(line, -1) {
			lists[title] = append(lists[title], m[1])
		}
	}
	return lists
}

// quotedPath matches a path in backquotes: a "/" in it, ending in a file name with an
// extension or in a "/".
var quotedPath = regexp.MustCompile("`([A-Za-z0-9_.*/-]+/(?:[A-Za-z0-9_*-]+\\.[A-Za-z0-9_.*]+)?)`")

// declarations maps the package-level functions, methods (Type.Method), types, constants and
// variables of the non-test Go files of a folder to the file, relative to root, that declares them.
func declarations(t *testing.T, root, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.ToSlash(filepath.Join(dir, filepath.Base(path)))
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					name = receiverName(d.Recv.List[0].Type) + "." + name
				}
				decls[name] = rel
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						decls[s.Name.Name] = rel
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decls[n.Name] = rel
						}
					}
				}
			}
		}
	}
	return decls
}

// receiverName is the type a method is declared on, without a pointer or type parameters.
func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// funcBody parses a Go file and returns the body of its function (or method) name.
func funcBody(t *testing.T, path, name string) *ast.BlockStmt {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			return fd.Body
		}
	}
	t.Fatalf("%s declares no function %s", path, name)
	return nil
}

// calledNames lists the functions a piece of code calls by a plain name, in order.
func calledNames(n ast.Node) []string {
	var names []string
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
		return true
	})
	return names
}

// fieldIdent is the identifier a keyed composite literal gives field (reached through one call
// such as fixed(llavaRows)), or "".
func fieldIdent(lit *ast.CompositeLit, field string) string {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != field {
			continue
		}
		switch v := kv.Value.(type) {
		case *ast.Ident:
			return v.Name
		case *ast.CallExpr:
			if len(v.Args) == 1 {
				if id, ok := v.Args[0].(*ast.Ident); ok {
					return id.Name
				}
			}
		}
	}
	return ""
}

// changeList is the list of one change, with what it is checked against.
type changeList struct {
	t     *testing.T
	root  string
	title string
	paths []string
}

// names reports whether the list names file (a path relative to the root): itself, by a pattern,
// or by a folder it lies in.
func (c changeList) names(file string) bool {
	for _, p := range c.paths {
		if ok, _ := filepath.Match(p, file); ok || strings.HasSuffix(p, "/") && strings.HasPrefix(file, p) {
			return true
		}
	}
	return false
}

// holds fails unless the list names the file that declares what.
func (c changeList) holds(what, file string) {
	c.t.Helper()
	switch {
	case file == "":
		c.t.Errorf("%s: %s is declared nowhere the test looks (update the test with the code)", c.title, what)
	case !c.names(file):
		c.t.Errorf("%s: %s is declared in %s, which the list of docs/development.md does not name", c.title, what, file)
	}
}

// read returns a file of the repository that the list names.
func (c changeList) read(path string) string {
	c.t.Helper()
	if !c.names(path) {
		c.t.Errorf("%s: the change needs %s, which the list of docs/development.md does not name", c.title, path)
	}
	data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(path)))
	if err != nil {
		c.t.Fatal(err)
	}
	return string(data)
}

// TestDevelopmentChangeLists holds the lists of docs/development.md's "Five typical changes" to
// the tree: every path they name exists (a pattern matches a file), and every entry of each
// registry has its pieces in files its list names, its rows in the docs its list names and its
// test data.
func TestDevelopmentChangeLists(t *testing.T) {
	root := filepath.Join("..", "..")
	lists := changeLists(t, root)
	checks := map[string]func(changeList){
		"A recorded format": checkFormatList,
		"A projector type":  checkProjectorList,
		"An output format":  checkOutputList,
		"An HTTP protocol":  checkProtocolList,
		"A per-arm option":  checkArmOptionList,
	}
	for title := range lists {
		if checks[title] == nil {
			t.Errorf("docs/development.md lists the change %q, which the test does not check", title)
		}
	}
	for title, check := range checks {
		paths, ok := lists[title]
		if !ok || len(paths) == 0 {
			t.Errorf("docs/development.md has no list for %q", title)
			continue
		}
		for _, p := range paths {
			matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil || len(matches) == 0 {
				t.Errorf("%s: the list names %s, which is not in the tree", title, p)
			}
		}
		check(changeList{t: t, root: root, title: title, paths: paths})
	}
}

// checkFormatList: every format of corpora's table has its constant, sniff and reader in files
// the list names, a section in the docs and a sample (or a real recording of its format).
func checkFormatList(c changeList) {
	decls := declarations(c.t, c.root, "corpora")
	c.holds("formatTable", decls["formatTable"])
	body := funcBody(c.t, filepath.Join(c.root, "corpora", "reader.go"), "formatTable")
	var entries []*ast.CompositeLit
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok && fieldIdent(lit, "format") != "" {
			entries = append(entries, lit)
		}
		return true
	})
	formats := corpora.Formats()
	if len(entries) != len(formats) {
		c.t.Fatalf("%s: formatTable has %d entries the test reads, Formats %d", c.title, len(entries), len(formats))
	}
	samples := sampleFormats(c)
	formatsDoc := c.read("docs/formats.md")
	for i, lit := range entries {
		name := string(formats[i])
		for _, field := range []string{"format", "sniff", "read"} {
			ident := fieldIdent(lit, field)
			c.holds(name+"'s "+field+" "+ident, decls[ident])
		}
		if !samples[formats[i]] {
			c.t.Errorf("%s: no sample of %s in corpora/samples/manifest.json and no real recording of it in corpora/testdata/real", c.title, name)
		}
		if !strings.Contains(formatsDoc, "`"+name+"`") {
			c.t.Errorf("%s: docs/formats.md does not name `%s`", c.title, name)
		}
	}
}

// sampleFormats are the formats of the sample corpus's manifest and of the real recordings.
func sampleFormats(c changeList) map[corpora.Format]bool {
	var manifest struct {
		Files []struct {
			Format corpora.Format `json:"format"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(c.read("corpora/samples/manifest.json")), &manifest); err != nil {
		c.t.Fatal(err)
	}
	found := map[corpora.Format]bool{}
	for _, f := range manifest.Files {
		found[f.Format] = true
	}
	real, err := filepath.Glob(filepath.Join(c.root, "corpora", "testdata", "real", "*"))
	if err != nil {
		c.t.Fatal(err)
	}
	for _, path := range real {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // a folder
		}
		if f, err := corpora.Detect(path, data[:min(len(data), 64<<10)]); err == nil {
			found[f] = true
		}
	}
	return found
}

// checkProjectorList: every projector type of projectorTypes has its rows function in a file
// the list names, a tiny projector and a row of the oracle's table (or is a type a countAs hook
// counts another type's file as), and the family files are wired in builtinFamilies.
func checkProjectorList(c changeList) {
	const dir = "measure/imagerows"
	decls := declarations(c.t, c.root, dir)
	c.holds("projectorTypes", decls["projectorTypes"])
	c.holds("builtinFamilies", decls["builtinFamilies"])
	for _, f := range calledNames(funcBody(c.t, filepath.Join(c.root, filepath.FromSlash(decls["builtinFamilies"])), "builtinFamilies")) {
		if strings.HasSuffix(f, "Families") {
			c.holds(f, decls[f])
		}
	}
	types := projectorRows(c, filepath.Join(c.root, filepath.FromSlash(decls["projectorTypes"])))
	if len(types) < 10 {
		c.t.Fatalf("%s: read only %d projector types from projectorTypes", c.title, len(types))
	}
	// the types a countAs hook of the table returns: files of another type counted as these
	readAs := map[string]bool{}
	table := c.read(decls["projectorTypes"])
	for _, m := range regexp.MustCompile(`countAs: (\w+)`).FindAllStringSubmatch(table, -1) {
		if m[1] == "func" {
			continue // a literal in the entry: the table's file, which the list names
		}
		c.holds("the countAs hook "+m[1], decls[m[1]])
		for _, r := range regexp.MustCompile(`return "([^"]+)"`).FindAllStringSubmatch(c.read(decls[m[1]]), -1) {
			readAs[r[1]] = true
		}
	}
	tiny, oracle := c.read("internal/testkit/tinyproj/tinyproj.go"), c.read("docs/count-and-rows.md")
	for typ, rows := range types {
		c.holds(typ+"'s rows function "+rows, decls[rows])
		if readAs[typ] {
			continue // clip.cpp reads another type's file as this one: the oracle holds it through that type
		}
		if !strings.Contains(tiny, "Projector: "+strconv.Quote(typ)) {
			c.t.Errorf("%s: internal/testkit/tinyproj has no projector of type %s", c.title, typ)
		}
		if !strings.Contains(oracle, "\n| "+typ+" | ") {
			c.t.Errorf("%s: the oracle's table of docs/count-and-rows.md has no row of %s", c.title, typ)
		}
	}
}

// projectorRows reads projectorTypes: each type with the name of its rows function (through a
// local variable such as llava where the entry is one).
func projectorRows(c changeList, path string) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		c.t.Fatal(err)
	}
	locals := map[string]*ast.CompositeLit{}
	var table *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return true
		}
		id, ok1 := as.Lhs[0].(*ast.Ident)
		lit, ok2 := as.Rhs[0].(*ast.CompositeLit)
		switch {
		case !ok1 || !ok2:
		case id.Name == "projectorTypes":
			table = lit
		default:
			locals[id.Name] = lit
		}
		return true
	})
	if table == nil {
		c.t.Fatalf("%s: %s assigns no projectorTypes literal", c.title, path)
	}
	types := map[string]string{}
	for _, e := range table.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		key, ok2 := kv.Key.(*ast.BasicLit)
		if !ok || !ok2 {
			continue
		}
		name, _ := strconv.Unquote(key.Value)
		lit, _ := kv.Value.(*ast.CompositeLit)
		if id, ok := kv.Value.(*ast.Ident); ok {
			lit = locals[id.Name]
		}
		if lit == nil {
			c.t.Errorf("%s: cannot read the entry of %s", c.title, name)
			continue
		}
		types[name] = fieldIdent(lit, "rows")
	}
	return types
}

// outputRegistry matches the result type of a function that returns an output registry.
var outputRegistry = regexp.MustCompile(`^(results\.)?Outputs\[`)

// checkOutputList: every registry of output formats is declared in a file the list names; every
// format of a replay report is in the --format list of docs/configuration.md and in the names
// TestReportFormats holds.
func checkOutputList(c changeList) {
	registries := 0
	for _, dir := range []string{"results", "results/budget", "cmd/cli"} {
		files, _ := filepath.Glob(filepath.Join(c.root, filepath.FromSlash(dir), "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				c.t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
			if err != nil {
				c.t.Fatal(err)
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
					continue
				}
				res := fd.Type.Results.List[0].Type
				if outputRegistry.Match(src[res.Pos()-f.FileStart : res.End()-f.FileStart]) {
					registries++
					c.holds("the output registry "+fd.Name.Name, filepath.ToSlash(filepath.Join(dir, filepath.Base(path))))
				}
			}
		}
	}
	if registries < 6 {
		c.t.Errorf("%s: found %d output registries, want the six of the docs", c.title, registries)
	}
	names := results.ReportFormats().Names()
	if !strings.Contains(c.read("docs/configuration.md"), "`--format "+strings.Join(names, "|")+"`") {
		c.t.Errorf("%s: docs/configuration.md does not give the --format list %s", c.title, strings.Join(names, "|"))
	}
	if !strings.Contains(c.read("results/output_test.go"), strconv.Quote(results.ReportFormats().List())) {
		c.t.Errorf("%s: results/output_test.go does not hold the names %q", c.title, results.ReportFormats().List())
	}
}

// checkProtocolList: every protocol of --api is declared, with its body and answer parser, in
// files the list names, with its counting calls and its server probe, and has its --api section
// in docs/engines.md.
func checkProtocolList(c changeList) {
	decls := declarations(c.t, c.root, "engine")
	c.holds("protocols", decls["protocols"])
	var types []string
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(c.root, filepath.FromSlash(decls["protocols"])), nil, parser.SkipObjectResolution)
	if err != nil {
		c.t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "protocols" || len(vs.Values) != 1 {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.CompositeLit); ok {
			for _, e := range lit.Elts {
				if el, ok := e.(*ast.CompositeLit); ok {
					if id, ok := el.Type.(*ast.Ident); ok {
						types = append(types, id.Name)
					}
				}
			}
		}
		return false
	})
	if names := engine.ProtocolNames(); len(types) != len(names) {
		c.t.Fatalf("%s: read %d protocol types from protocols, --api has %d", c.title, len(types), len(names))
	}
	engines := c.read("docs/engines.md")
	for i, name := range engine.ProtocolNames() {
		for _, m := range []string{"Body", "ParseAnswer", "CountMethods", "CountCall", "Probe"} {
			c.holds(types[i]+"."+m, decls[types[i]+"."+m])
		}
		if !strings.Contains(engines, "--api "+name) {
			c.t.Errorf("%s: docs/engines.md does not say --api %s", c.title, name)
		}
	}
}

// checkArmOptionList: records.Settings and validateArm are in files the list names, and every
// setting has its row in the settings tables of docs/arms.md and docs/pipeline.md §2.3.
func checkArmOptionList(c changeList) {
	c.holds("records.Settings", declarations(c.t, c.root, "records")["Settings"])
	c.holds("validateArm", declarations(c.t, c.root, "replay")["validateArm"])
	arms := tableRows(c.read("docs/arms.md"))
	pipeline, _, _ := strings.Cut(c.read("docs/pipeline.md")[strings.Index(c.read("docs/pipeline.md"), "### 2.3 "):], "\n### ")
	section := tableRows(pipeline)
	st := reflect.TypeFor[records.Settings]()
	for i := range st.NumField() {
		key, _, _ := strings.Cut(st.Field(i).Tag.Get("yaml"), ",")
		if key == "" {
			continue
		}
		for page, rows := range map[string]string{"docs/arms.md": arms, "docs/pipeline.md §2.3": section} {
			if !strings.Contains(rows, "`"+key+"`") {
				c.t.Errorf("%s: %s has no row of the setting %s", c.title, page, key)
			}
		}
	}
}

// tableRows keeps the first cells of a page's table rows, one a line.
func tableRows(page string) string {
	var b bytes.Buffer
	for _, line := range strings.Split(page, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.HasPrefix(line, "|") {
			b.WriteString(cells[1] + "\n")
		}
	}
	return b.String()
}
