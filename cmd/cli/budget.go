package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/results/budget"
)

// BudgetCheckOptions are the flags and streams of `budget check`.
type BudgetCheckOptions struct {
	IO       *IOStreams
	Budgets  string
	Baseline []string
	Results  []string
	// Format is table, markdown or json (--json is --format json).
	Format string
	JSON   bool
}

func newBudgetCmd(io *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:     "budget",
		Example: examples("strata-eval replay --summary --out out", "strata-eval budget check out/results.json"),
		Short:   "Hold measured figures to budgets (CI)",
		Long:    helpWithExit(`Commands that hold the figures of results files to the budgets of a YAML file.`, ExitInputs, ExitBudget),
	}
	c.AddCommand(newBudgetCheckCmd(io))
	return c
}

func newBudgetCheckCmd(io *IOStreams) *cobra.Command {
	opts := &BudgetCheckOptions{IO: io}
	c := &cobra.Command{
		Use:     "check --budgets FILE RESULTS...",
		Example: examples("strata-eval replay --summary --out out", "strata-eval budget check --budgets budgets.yaml out/results.json", "strata-eval budget check --baseline out --format markdown out"),
		Short:   "Evaluate budgets against results files of replay and bench scan",
		Long: helpWithExit(`Reads one or more results files (results.json of replay, the JSON of bench scan --json;
several are combined, e.g. shards; a folder, a run's --out, stands for its results.json) and
evaluates every budget of the budgets file:

  budgets:
    prompt_tokens{arm:after}: sum <= 30942
    refused{arm:before}: sum == 2
    pictures{arm:after,outcome:lifted}: sum == 7
    scan_over_read{payload:json_2MB}: p(50) < 2
    image_rows{arm:after}: delta <= 0          # against --baseline

An expression is an aggregation (count, sum, min, max, avg, med, rate, value, p(N), delta,
delta(AGG)), an operator (<, <=, >, >=, ==, !=) and a number with an optional unit (ns, µs, ms,
s, %). A malformed budget exits 2 naming its line and column; a crossed budget exits 4.

Metrics [filter keys]:
`+metricsHelp(), ExitInputs, ExitBudget),
		Args: wrapArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Results = args
			return runBudgetCheck(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Budgets, "budgets", "budgets.yaml", "budgets file (YAML)")
	f.StringArrayVar(&opts.Baseline, "baseline", nil, "results file of the baseline run, for delta (repeatable)")
	f.StringVar(&opts.Format, "format", "table", "output: table, markdown or json")
	f.BoolVar(&opts.JSON, "json", false, "print the verdict as JSON (same as --format json)")
	return c
}

func metricsHelp() string {
	h := budget.MetricHelp()
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-15s %s\n", n, h[n])
	}
	return b.String()
}

func runBudgetCheck(ctx context.Context, opts *BudgetCheckOptions) error {
	if opts.JSON {
		opts.Format = results.FormatJSON
	}
	switch opts.Format {
	case results.FormatTable, results.FormatMarkdown, results.FormatJSON:
	default:
		return usageErrorf("--format must be table, markdown or json, not %q", opts.Format)
	}
	file, err := readBudgets(opts.Budgets)
	if err != nil {
		return err
	}
	current, err := readResultsFiles(ctx, opts.Results)
	if err != nil {
		return err
	}
	base, err := readResultsFiles(ctx, opts.Baseline)
	if err != nil {
		return err
	}
	v := budget.Evaluate(file, budget.Inputs{Names: opts.Results, Results: current, BaselineNames: opts.Baseline, Baseline: base})
	if err := writeVerdict(opts.IO, v, opts.Format); err != nil {
		return err
	}
	return verdictError(v)
}

// resultsPath is path, or the results.json inside it when it is a folder (a run's --out), as
// every command that reads results takes them.
func resultsPath(path string) string {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return filepath.Join(path, "results.json")
	}
	return path
}

// readBudgets parses a budgets file; a malformed one is a usage error (exit 2).
func readBudgets(path string) (*budget.File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError(fmt.Errorf("budgets: %w", err))
	}
	f, err := budget.Parse(path, data)
	if err != nil {
		return nil, usageError(err)
	}
	return f, nil
}

// readResultsFiles reads results files; one that cannot be read stops the command (exit 3),
// since budgets on part of a run could pass by accident.
func readResultsFiles(ctx context.Context, paths []string) ([]*results.Results, error) {
	var out []*results.Results
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := readResultsFile(p)
		if err != nil {
			return nil, withExitCode(ExitInputs, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// readResultsFile reads a results.json, or the results.json inside a folder (a run's --out).
func readResultsFile(path string) (*results.Results, error) {
	path = resultsPath(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := results.DecodeResults(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// writeVerdict prints the verdict: a table (or Markdown) and its summary line, or JSON.
func writeVerdict(io *IOStreams, v budget.Verdict, format string) error {
	if format == results.FormatJSON {
		return v.WriteJSON(io.Out)
	}
	if err := results.WriteTables(io.Out, []results.Table{v.Table()}, format == results.FormatMarkdown); err != nil {
		return err
	}
	_, err := fmt.Fprintf(io.Out, "\n%s\n", v.Summary())
	return err
}

// verdictError is the exit status of a verdict: nil when it passed, exit 4 otherwise.
func verdictError(v budget.Verdict) error {
	if v.Passed {
		return nil
	}
	return withExitCode(ExitBudget, errors.New(countNoun(v.Crossed, "budget", "budgets")+" crossed"))
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
