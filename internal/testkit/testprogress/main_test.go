package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRunShowsEachPackage: a real `go test -json` stream of a passing and a failing package
// gives a line per package as it ends, the failed test's output, and exit 1.
func TestRunShowsEachPackage(t *testing.T) {
	stream := strings.Join([]string{
		`{"Action":"start","Package":"example.com/a"}`,
		`{"Action":"run","Package":"example.com/a","Test":"TestA"}`,
		`{"Action":"output","Package":"example.com/a","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"example.com/a","Test":"TestA","Elapsed":0.1}`,
		`{"Action":"pass","Package":"example.com/a","Elapsed":1.5}`,
		`{"Action":"start","Package":"example.com/b"}`,
		`{"Action":"output","Package":"example.com/b","Test":"TestB","Output":"    b_test.go:9: want 2, got 3\n"}`,
		`{"Action":"fail","Package":"example.com/b","Test":"TestB","Elapsed":0.2}`,
		`{"Action":"fail","Package":"example.com/b","Elapsed":2.25}`,
	}, "\n")
	var out bytes.Buffer
	if code := run(strings.NewReader(stream), &out, time.Hour); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"ok   example.com/a", "1.5s", "b_test.go:9: want 2, got 3", "FAIL example.com/b", "FAIL: 1 of 2 packages: example.com/b"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "=== RUN   TestA") {
		t.Errorf("the output of a passing test is shown:\n%s", out.String())
	}
}

// TestRunOnGoTest runs it on the real go test -json of this package's own helpers: one ok line.
func TestRunOnGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	cmd := exec.Command("go", "test", "-json", "-run", "^$", "github.com/strata-eval/strata-eval/internal/suggest")
	stream, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run(bytes.NewReader(stream), &out, time.Hour); code != 0 || !strings.Contains(out.String(), "ok   github.com/strata-eval/strata-eval/internal/suggest") {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
}
