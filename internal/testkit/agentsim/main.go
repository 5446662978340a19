// Command agentsim makes real session files of coding agents offline: it runs an agent
// installed from npm (Claude Code, Codex CLI, Gemini CLI, Cline) against a scripted model server and an MCP
// server of its own, then keeps the agent's session files (home paths rewritten to /home/user)
// and the exact request bodies the model server received.
//
//	agentsim run -agent claude-code -bin PATH -out DIR   one agent, one case
//	agentsim mcp                                         the MCP server (stdio), as the agent starts it
//
// `make agent-sessions` installs the agents and runs every case; see docs/formats.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: agentsim run -agent NAME -bin PATH -out DIR | agentsim mcp")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "mcp":
		err = serveMCP(ctx, os.Args[2:])
	case "run":
		err = runCmd(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (run, mcp)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentsim:", err)
		os.Exit(1)
	}
}

// runCmd parses the flags of `agentsim run` and runs one case.
func runCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c Case
	fs.StringVar(&c.Agent, "agent", "", "the agent: "+agentList())
	fs.StringVar(&c.Bin, "bin", "", "the agent's executable")
	fs.StringVar(&c.Out, "out", "", "the folder to write the case to (replaced)")
	fs.IntVar(&c.ShotBytes, "shot-bytes", 24<<10, "size of the MCP tool's screenshot PNG")
	fs.IntVar(&c.ShotWidth, "shot-width", 0, "least width of the MCP tool's screenshot PNG")
	fs.BoolVar(&c.Subagent, "subagent", false, "the model has a sub-agent take the screenshot (Claude Code)")
	fs.IntVar(&c.FileWidth, "file-width", 0, "least width of the picture file the agent reads")
	fs.DurationVar(&c.Timeout, "timeout", 3*time.Minute, "how long the agent may run")
	fs.BoolVar(&c.KeepTemp, "keep-temp", false, "leave the temporary home in place")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.Agent == "" || c.Bin == "" || c.Out == "" {
		return fmt.Errorf("run: -agent, -bin and -out are required")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("run: finding agentsim itself for the MCP server: %w", err)
	}
	c.Self = self
	return runCase(ctx, c)
}
