// Package cli holds the cobra commands of strata-eval: one file per command, each with an
// Options struct and a RunE that calls runX(ctx, opts).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/strata-eval/strata-eval/internal/suggest"
	"github.com/strata-eval/strata-eval/measure/imagerows"
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
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return Run(ctx, os.Args[1:], SystemStreams())
}

// softMemoryLimit is the Go heap size past which the collector works harder (GOMEMLIMIT sets
// another): a replay of a long session whose heap is mostly garbage between collections stays
// within 512 MB of RSS (docs/performance.md, bench-agent-session).
const softMemoryLimit = 400 << 20

// Run runs strata-eval with args on the given streams and returns the exit code.
func Run(ctx context.Context, args []string, io *IOStreams) int {
	root := NewRootCmd(io)
	root.SetArgs(args)
	err := unknownCommand(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err != nil {
		fmt.Fprintf(io.ErrOut, "strata-eval: %v%s\n", err, errorHint(err))
	}
	return exitCode(err)
}

// unknownCommand is the usage error of a command line whose command is not one: a word after
// strata-eval, or after a command that only groups others (corpus, results, bench, budget),
// that names none of its commands. It names the closest commands and the help that lists them.
func unknownCommand(root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil // shell completion, which cobra answers itself
	}
	root.InitDefaultHelpCmd() // cobra adds help and completion as it executes
	root.InitDefaultCompletionCmd(args...)
	c, rest, err := root.Find(args)
	if err == nil && (c.Runnable() || !c.HasAvailableSubCommands()) {
		return nil
	}
	if c == nil {
		c = root
	}
	word := ""
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") {
			word = a
			break
		}
	}
	if word == "" {
		return nil
	}
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return usageErrorf("unknown command %q for %q%s (see '%s --help')", word, c.CommandPath(), suggest.DidYouMean(word, names), c.CommandPath())
}

// flagError is the usage error of a bad flag; an unknown one names the closest flags the
// command has.
func flagError(c *cobra.Command, err error) error {
	hint := ""
	if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, "--"+f.Name)
			}
		})
		hint = suggest.DidYouMean("--"+name, names)
	}
	return usageErrorf("%v%s (see '%s --help')", err, hint, c.CommandPath())
}

// errorHint is what an error's line adds to tell where the fix is: the command that lists every
// vision family, for a family that is not one.
func errorHint(err error) string {
	var family *imagerows.UnknownFamilyError
	if errors.As(err, &family) {
		return "; 'strata-eval rows --vision all 1x1' lists every family"
	}
	return ""
}

// NewRootCmd builds the strata-eval command tree.
func NewRootCmd(io *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:     "strata-eval",
		Example: examples("# the embedded sample corpus, the summary last", "strata-eval replay", "strata-eval replay --summary corpora/samples", "strata-eval rows 1280x800"),
		Short:   "Replay recorded conversations and measure what pictures in tool results cost",
		Long: `strata-eval replays recorded conversations (Chatbox backups, MCP transcripts, OpenAI and
Anthropic request logs) through a before and an after pipeline and measures prompt tokens,
image rows per picture, context-window verdicts and scan latency.

` + exitSection(ExitInputs, ExitBudget, ExitRegression),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newVersionCmd(io), newCorpusCmd(io), newReplayCmd(io), newCountCmd(io), newRowsCmd(io), newResultsCmd(io), newBenchCmd(io), newBudgetCmd(io), newCompareCmd(io), newRescoreCmd(io), newRecordCmd(io), newCacheCmd(io))
	return root
}

// examples is the Example section of a command's help: command lines that run as shown from
// the repository's root, one after the other (TestHelpExamplesRun runs them), and "# " comments.
func examples(lines ...string) string {
	return "  " + strings.Join(lines, "\n  ")
}

// wrapArgs turns cobra's positional-argument errors into usage errors that show the command's
// usage line.
func wrapArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageErrorf("%v (usage: %s)", err, cmd.UseLine())
		}
		return nil
	}
}

// helpWithExit appends the EXIT STATUS section to a command's long help: 0, 1 and 2, then the
// codes the command gives besides.
func helpWithExit(long string, codes ...int) string {
	return strings.TrimSpace(long) + "\n\n" + exitSection(codes...)
}
