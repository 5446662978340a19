package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the most lines (from `func` to its closing brace) a hand-written function may
// span: a longer one does several things, each of which wants a name.
const maxFuncLines = 80

// dataTables names the functions allowed past maxFuncLines because their body is a data table
// (a literal of values with no logic in it), keyed "folder.Func" or "folder.Type.Method" (the
// package's folder, whose name stays when the folder moves), with the reason; a table reads
// best whole.
var dataTables = map[string]string{
	"tinyproj.Configs": "one literal per projector type of the test mmproj files, each a list of tensor shapes",
}

// TestNoLongFunctions fails on a non-test, non-generated function of the module longer than
// maxFuncLines, unless dataTables names it; it also fails on a dataTables entry that is no
// longer long, so that the list stays true.
func TestNoLongFunctions(t *testing.T) {
	long := longFunctions(t)
	for _, name := range sortedKeys(long) {
		if dataTables[name] == "" {
			t.Errorf("%s is %d lines (more than %d): split it into functions named for what each does", name, long[name], maxFuncLines)
		}
	}
	for name := range dataTables {
		if _, ok := long[name]; !ok {
			t.Errorf("dataTables names %s, which is not a function over %d lines: remove it", name, maxFuncLines)
		}
	}
}

// longFunctions maps each function over maxFuncLines in the module's non-test, non-generated Go
// files to its length in lines.
func longFunctions(t *testing.T) map[string]int {
	t.Helper()
	root := filepath.Join("..", "..")
	long := map[string]int{}
	files := 0
	err := walkGoFiles(root, func(path string, src []byte) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines {
				long[funcName(filepath.Base(filepath.Dir(path)), fn)] = lines
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d Go files: is the walk rooted at the module?", files)
	}
	return long
}

// funcName names a function declaration of the package in folder dir "dir.Func" or
// "dir.Type.Method", which stays the same when its file or folder moves.
func funcName(dir string, fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return dir + "." + fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		}
		break
	}
	name := fmt.Sprintf("%T", typ)
	if id, ok := typ.(*ast.Ident); ok {
		name = id.Name
	}
	return dir + "." + name + "." + fn.Name.Name
}

// sortedKeys lists a map's keys in order, for stable messages.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// walkGoFiles calls fn with each Go file of the tree below root and its text, skipping testdata
// and hidden folders.
func walkGoFiles(root string, fn func(path string, src []byte) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return fn(path, src)
	})
}
