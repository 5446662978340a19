// Command agentsession writes a generated session file of a coding agent (package gencorpus,
// AgentSession) into a folder, named as the agent names its session files, and prints its path.
//
//	go run ./internal/testkit/gencorpus/cmd/agentsession -format codex -out DIR -bytes 1073741824
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
)

func main() {
	var cfg gencorpus.AgentSessionConfig
	out := flag.String("out", "", "folder to write the session file into (required)")
	flag.StringVar(&cfg.Format, "format", "claude-code", "claude-code, codex, gemini-cli, opencode or cline")
	flag.Int64Var(&cfg.Bytes, "bytes", 1<<30, "about how large the file is")
	flag.IntVar(&cfg.HugeLines, "huge-lines", 0, "huge lines (a tool result's base64 text) spread over the file (0: 2, or as many as carry the bytes of an agent that records no compaction)")
	flag.Int64Var(&cfg.HugeBytes, "huge-bytes", 150_000_000, "size of the PNG whose base64 each huge line carries")
	flag.IntVar(&cfg.CompactEvery, "compact-every", 8, "turns between two compactions of the context")
	flag.Int64Var(&cfg.Seed, "seed", 1, "seed")
	flag.Parse()
	if cfg.HugeLines == 0 {
		cfg.HugeLines = gencorpus.AgentSessionHugeLines(cfg.Format, cfg.Bytes, cfg.HugeBytes)
	}
	if err := run(*out, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "agentsession: %v\n", err)
		os.Exit(1)
	}
}

func run(out string, cfg gencorpus.AgentSessionConfig) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	var name string
	for _, f := range gencorpus.AgentSessionFormats {
		if f.Name == cfg.Format {
			name = f.File
		}
	}
	if name == "" {
		name = cfg.Format + ".jsonl" // AgentSession names the formats it writes
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, name)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := gencorpus.AgentSession(f, cfg); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}
