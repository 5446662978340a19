package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
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
    prompt_tokens{arm:after}: sum <= 32488
    refused{arm:before}: sum == 2
    pictures{arm:after,outcome:lifted}: sum == 13
    scan_over_read{payload:json_2MB}: p(50) < 2
    image_rows{arm:after}: delta <= 0          # against --baseline

An expression is an aggregation (count, sum, min, max, avg, med, rate, value, p(N), delta,
delta(AGG)), an operator (<, <=, >, >=, ==, !=) and a number with an optional unit (ns, µs, ms,
s, %). A malformed budget exits 2 naming its line and column; a crossed budget exits 4.

Metrics [filter keys]:
`+metricsHelp()+"\n"+formatSection(budget.VerdictFormats()), ExitInputs, ExitBudget),
		Args: wrapArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Results = args
			return runBudgetCheck(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Budgets, "budgets", "budgets.yaml", "budgets file (YAML)")
	f.StringArrayVar(&opts.Baseline, "baseline", nil, "results file of the baseline run, for delta (repeatable)")
	addFormatFlag(f, &opts.Format, budget.VerdictFormats(), "output")
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
	if err := checkFormat(budget.VerdictFormats(), opts.Format); err != nil {
		return err
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
	if err := budget.VerdictFormats().Write(opts.IO.Out, opts.Format, v, results.WriteOptions{}); err != nil {
		return err
	}
	return verdictError(v)
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
