package cli

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain registers strata-eval as an in-process command for the txtar scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"strata-eval": func() { os.Exit(Run(context.Background(), os.Args[1:], SystemStreams())) },
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script through the binary.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
