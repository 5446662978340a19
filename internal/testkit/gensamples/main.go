// Command gensamples writes the embedded sample corpus of strata-eval (corpora/samples):
// recorded conversations in every supported format, as each producer writes them, carrying
// pictures made by code (PNG, JPEG, GIF, BMP, WebP), plus expectations.json (a question with a
// checkable answer per conversation) and manifest.json (for every file: format, number of
// conversations, and every embedded payload with its sha256, type, size and place).
//
// It is run by `go generate ./corpora/`; the output is byte-identical on every run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "", "directory to write the sample corpus to (required; go generate passes corpora/samples)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gensamples: -out is required")
		os.Exit(2)
	}
	if err := generate(context.Background(), *out); err != nil {
		fmt.Fprintln(os.Stderr, "gensamples:", err)
		os.Exit(1)
	}
}
