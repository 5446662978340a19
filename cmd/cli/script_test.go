package cli

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain registers strata-eval as an in-process command for the txtar scripts.
func TestMain(m *testing.M) {
	testscript.Main(withoutColumns{m}, map[string]func(){
		"strata-eval":        func() { os.Exit(Run(context.Background(), os.Args[1:], SystemStreams())) },
		"mcp-picture-server": func() { os.Exit(mcpPictureServer()) },
	})
}

// withoutColumns runs the tests without the $COLUMNS of the shell that started go test, so that
// a test that names no width gets tables at results.DefaultWidth, as in CI; a test or script
// that wants a width sets OutWidth or $COLUMNS itself.
type withoutColumns struct{ m *testing.M }

func (w withoutColumns) Run() int {
	os.Unsetenv("COLUMNS")
	return w.m.Run()
}

// TestScripts runs the end-to-end CLI scripts in testdata/script through the binary.
// $SAMPLE_CASES is the number of cases of the sample corpus.
func TestScripts(t *testing.T) {
	cases := strconv.Itoa(sampleCases(t))
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Setup: func(env *testscript.Env) error {
		env.Setenv("SAMPLE_CASES", cases)
		return nil
	}})
}
