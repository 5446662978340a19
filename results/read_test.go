package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrictDecodeTrailingData: the strict decoder takes one JSON value and white space after
// it, and names the byte where anything else starts.
func TestStrictDecodeTrailingData(t *testing.T) {
	var r Report
	if err := strictDecode([]byte("{\"schema\":\"s\"}\n\t "), &r); err != nil || r.Schema != "s" {
		t.Fatalf("white space after the value: %v (schema %q)", err, r.Schema)
	}
	err := strictDecode([]byte(`{"schema":"s"}  []`), &r)
	if err == nil || err.Error() != "byte 16: data after the end of the JSON value" {
		t.Errorf("data after the value: %v", err)
	}
}

// TestReadResults: the one reader of results.json takes a file or a folder holding one, and
// each error is one line that starts with the file.
func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	good := `{"schema":"strata-eval/results/v1","cases":[{"id":"a","arms":[{"arm":"after"}]}]}`
	bench := `{"schema":"strata-eval/bench/v1","payloads":[{"name":"p"}]}`
	for name, text := range map[string]string{"results.json": good, "bench.json": bench, "cut.json": good[:40]} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := ReadReport(dir)
	if err != nil || len(r.Cases) != 1 {
		t.Fatalf("a folder holding results.json: %v", err)
	}
	for _, tt := range []struct{ path, err string }{
		{"missing.json", "missing.json: no such file or directory"},
		{"cut.json", "cut.json: byte 40: unexpected end of JSON input"},
		{"bench.json", `bench.json: /schema: "strata-eval/bench/v1", not the results of replay`},
	} {
		_, err := ReadReport(filepath.Join(dir, tt.path))
		if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tt.err)) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line %q", tt.path, err, tt.err)
		}
	}
	if b, err := ReadResults(filepath.Join(dir, "bench.json")); err != nil || b.Bench == nil {
		t.Errorf("ReadResults of a bench report: %v", err)
	}
}
