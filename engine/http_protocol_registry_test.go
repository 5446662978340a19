package engine

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

// TestProtocolRegistry: every protocol of --api is found by its name, and the http engine
// speaking it posts its body to its completion path with its headers and reads its answer; an
// unknown name is refused with the names the registry holds.
func TestProtocolRegistry(t *testing.T) {
	answers := map[string]string{
		APIOpenAI:    string(readResponse(t, "llamacpp-chat.json")), // prompt_tokens 1807
		APIAnthropic: `{"model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1807,"output_tokens":1}}`,
		APIOllama:    `{"model":"tiny","message":{"role":"assistant","content":"ok"},"done_reason":"stop","prompt_eval_count":1807,"eval_count":1}`,
	}
	if names := ProtocolNames(); len(names) != len(answers) || names[0] != APIOpenAI {
		t.Fatalf("protocols %q: each needs an answer here, and openai is the default", names)
	}
	req := Request{Messages: []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hi"}}}}}
	for _, name := range ProtocolNames() {
		t.Run(name, func(t *testing.T) {
			p, err := ProtocolNamed(name)
			if err != nil || p.Name() != name || !strings.Contains(ProtocolHelp(), name+" (") {
				t.Fatalf("ProtocolNamed(%q) = %v, %v; help %q", name, p, err, ProtocolHelp())
			}
			var paths []string
			var header http.Header
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				paths, header = append(paths, r.URL.Path), r.Header.Clone()
				if !json.Valid(body) {
					t.Errorf("%s: a body that is not JSON: %s", r.URL.Path, body)
				}
				_, _ = io.WriteString(w, answers[name])
			}))
			defer srv.Close()
			h, err := NewHTTP(HTTPConfig{Endpoints: []string{srv.URL}, API: name, Model: "m", Count: CountUsage, NoRowSplit: true,
				Getenv: func(string) string { return "sk-test" }})
			if err != nil {
				t.Fatal(err)
			}
			c, err := h.Count(context.Background(), req.Messages, nil)
			if err != nil || c.PromptTokens != 1807 {
				t.Fatalf("count %d, %v: want the answer's 1807", c.PromptTokens, err)
			}
			if !slices.Equal(paths, []string{p.CompletionPath()}) || h.API() != name {
				t.Errorf("posted to %q, want %s", paths, p.CompletionPath())
			}
			want := http.Header{}
			p.SetHeaders(want, "sk-test")
			for k := range want {
				if header.Get(k) != want.Get(k) {
					t.Errorf("header %s = %q, want %q", k, header.Get(k), want.Get(k))
				}
			}
		})
	}
	_, err := NewHTTP(HTTPConfig{Endpoints: []string{"http://127.0.0.1:1"}, API: "grpc"})
	if err == nil || !strings.Contains(err.Error(), `unknown API "grpc" (known: `+strings.Join(ProtocolNames(), ", ")+")") {
		t.Errorf("unknown API: %v", err)
	}
}

// The engine's servers are asked what they run through the protocol spoken.
var _ ServerProber = (*HTTP)(nil)

// TestProtocolIsOneFile: a protocol is one file, http_<name>.go, that declares its type, its
// methods and its name's constant, which no other file of the engine uses; the registry
// names it on one line.
func TestProtocolIsOneFile(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]string{}  // type or constant → file
	methods := map[string][]string{} // receiver type → files of its methods
	uses := map[string][]string{}    // identifier → files using it
	for _, file := range names {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared[s.Name.Name] = file
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared[n.Name] = file
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil {
					if id, ok := d.Recv.List[0].Type.(*ast.Ident); ok {
						methods[id.Name] = append(methods[id.Name], file)
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				uses[id.Name] = append(uses[id.Name], file)
			}
			return true
		})
	}
	for _, p := range protocols {
		want := "http_" + p.Name() + ".go"
		typ := reflect.TypeOf(p).Name()
		if declared[typ] != want {
			t.Errorf("protocol %s: its type %s is declared in %q, want %s", p.Name(), typ, declared[typ], want)
		}
		for _, f := range methods[typ] {
			if f != want {
				t.Errorf("protocol %s: a method of %s is in %s, want %s", p.Name(), typ, f, want)
			}
		}
		for name, file := range declared {
			if file != want || !strings.HasPrefix(name, "API") {
				continue
			}
			for _, f := range uses[name] {
				if f != want {
					t.Errorf("protocol %s: its name %s is used in %s: a name is compared only in its own file", p.Name(), name, f)
				}
			}
		}
	}
}
