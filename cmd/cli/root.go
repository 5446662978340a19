// Package cli holds the cobra commands of strata-eval: one file per command, each with an
// Options struct and a RunE that calls runX(ctx, opts).
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/strata-eval/strata-eval/results"
)

// IOStreams are the streams a command reads and writes; tests inject buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrIsTerminal says whether ErrOut is a terminal (progress bars only then).
	ErrIsTerminal bool
	// OutWidth is the width of the terminal Out is, 0 when Out is not a terminal.
	OutWidth int
}

// SystemStreams returns the process's standard streams.
func SystemStreams() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrIsTerminal: term.IsTerminal(int(os.Stderr.Fd()))}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		s.OutWidth = w
	}
	return s
}

// TableWidth is the width tables are fitted to: the terminal's when Out is one, else $COLUMNS
// when it is a positive number, else results.DefaultWidth (docs/decisions.md).
func (s *IOStreams) TableWidth() int {
	if s.OutWidth > 0 {
		return s.OutWidth
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return results.DefaultWidth
}

// Main runs strata-eval with the process's arguments and streams and returns the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return Run(ctx, os.Args[1:], SystemStreams())
}

// Run runs strata-eval with args on the given streams and returns the exit code.
func Run(ctx context.Context, args []string, io *IOStreams) int {
	root := NewRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(io.ErrOut, "strata-eval: %v\n", err)
	}
	return exitCode(err)
}

// NewRootCmd builds the strata-eval command tree.
func NewRootCmd(io *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "strata-eval",
		Short: "Replay recorded conversations and measure what pictures in tool results cost",
		Long: `strata-eval replays recorded conversations (Chatbox backups, MCP transcripts, OpenAI and
Anthropic request logs) through a before and an after pipeline and measures prompt tokens,
image rows per picture, context-window verdicts and scan latency.

` + exitSection(ExitInputs, ExitBudget, ExitRegression),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newVersionCmd(io), newCorpusCmd(io), newReplayCmd(io), newCountCmd(io), newRowsCmd(io), newResultsCmd(io), newBenchCmd(io), newBudgetCmd(io), newCompareCmd(io), newRescoreCmd(io), newRecordCmd(io))
	return root
}

// wrapArgs turns cobra's positional-argument errors into usage errors.
func wrapArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageErrorf("%v", err)
		}
		return nil
	}
}

// helpWithExit appends the EXIT STATUS section to a command's long help: 0, 1 and 2, then the
// codes the command gives besides.
func helpWithExit(long string, codes ...int) string {
	return strings.TrimSpace(long) + "\n\n" + exitSection(codes...)
}
