// Command hugeline writes a recording (-format: a format of gencorpus.HugeLineFormats, from
// mcp-jsonl to cline) whose tool result is one JSON line carrying a PNG of at least
// -picture-bytes bytes (package gencorpus, HugeLine), as `make bench-hugeline` replays.
//
//	go run ./internal/testkit/gencorpus/cmd/hugeline -format anthropic -out FILE -picture-bytes 805306368
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
)

func main() {
	out := flag.String("out", "", "file to write (required)")
	size := flag.Int64("picture-bytes", 37<<20, "size of the PNG in bytes (its base64 is 4/3 of it)")
	seed := flag.Int64("seed", 1, "seed of the noise")
	name := flag.String("format", "mcp-jsonl", "recording format")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "hugeline: -out is required")
		os.Exit(2)
	}
	format, err := gencorpus.HugeLineFormatNamed(*name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hugeline: %v\n", err)
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err == nil {
		_, err = gencorpus.HugeLine(f, format, *size, *seed)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hugeline: %v\n", err)
		os.Exit(1)
	}
}
