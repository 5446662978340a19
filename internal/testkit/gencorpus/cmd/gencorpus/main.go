// Command gencorpus writes the synthetic scale corpus of package gencorpus into a folder.
//
//	go run ./internal/testkit/gencorpus/cmd/gencorpus -out DIR -bytes 1073741824 -seed 1
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
)

func main() {
	var cfg gencorpus.Config
	out := flag.String("out", "", "folder to write the corpus into (required)")
	flag.Int64Var(&cfg.TotalBytes, "bytes", 1<<30, "size of the corpus in bytes")
	flag.Int64Var(&cfg.Seed, "seed", 1, "seed")
	flag.Int64Var(&cfg.FileBytes, "file-bytes", 64<<20, "size of one file")
	flag.IntVar(&cfg.ToolMessageBytes, "tool-bytes", 2<<20, "size of a large tool message")
	flag.IntVar(&cfg.ToolTurns, "turns", 3, "tool calls per conversation")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := gencorpus.Generate(ctx, *out, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gencorpus: %v\n", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(st)
}
