package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/results/budget"
)

// CompareOptions are the flags and streams of `compare`.
type CompareOptions struct {
	IO       *IOStreams
	Old, New string
	Alpha    float64
	// Format is table, markdown or json.
	Format string
	// Budgets, when set, is evaluated against NEW with OLD as the baseline.
	Budgets string
}

func newCompareCmd(io *IOStreams) *cobra.Command {
	opts := &CompareOptions{IO: io}
	c := &cobra.Command{
		Use:     "compare OLD NEW",
		Example: examples("strata-eval replay --summary --out old corpora/samples/openai-chat-chatbox-screenshot.json", "strata-eval replay --summary --out new --config examples/arms.yaml corpora/samples/openai-chat-chatbox-screenshot.json", "strata-eval compare old/results.json new/results.json", "# a run's --out folder stands for its results.json", "strata-eval compare --format markdown old new"),
		Short:   "Compare two results files case by case, with significance tests",
		Long: helpWithExit(`Pairs the cases of two results files of replay by case id (or the payloads of two bench scan
reports by name) and prints, per arm and figure, the old value, the new value and the delta, then
every case whose figures changed. Repeated timings are compared with the Mann-Whitney U test
(shown as ~ when the difference is not significant at --alpha), paired pass/fail verdicts with
McNemar's test. Cases present in only one file are named on stderr. A folder (a run's --out)
stands for the results.json in it. --format markdown suits a
pull-request comment. Exits 5 when correctness regressed significantly, 4 when --budgets is given
and a budget is crossed (evaluated on NEW, with OLD as the baseline of delta).

`+formatSection(compareFormats()), ExitInputs, ExitBudget, ExitRegression),
		Args: wrapArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Old, opts.New = args[0], args[1]
			return runCompare(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.Float64Var(&opts.Alpha, "alpha", 0.05, "significance level of the tests")
	addFormatFlag(f, &opts.Format, compareFormats(), "output")
	f.StringVar(&opts.Budgets, "budgets", "", "budgets file to evaluate on NEW (OLD is the baseline)")
	return c
}

// compareOutput is the JSON of compare: the comparison and, with --budgets, the verdict.
type compareOutput struct {
	*results.Comparison
	Budget *budget.Verdict `json:"budget,omitempty"`
	// old and new name the two files (in the Markdown heading).
	oldName, newName string
}

func runCompare(ctx context.Context, opts *CompareOptions) error {
	if err := checkFormat(compareFormats(), opts.Format); err != nil {
		return err
	}
	if !(opts.Alpha > 0 && opts.Alpha < 1) {
		return usageErrorf("--alpha must be between 0 and 1, not %v", opts.Alpha)
	}
	var file *budget.File
	if opts.Budgets != "" {
		var err error
		if file, err = readBudgets(opts.Budgets); err != nil {
			return err
		}
	}
	files, err := readResultsFiles(ctx, []string{opts.Old, opts.New})
	if err != nil {
		return err
	}
	old, new := files[0], files[1]
	cmp, err := results.Compare(old, new, results.CompareOptions{Alpha: opts.Alpha})
	if err != nil {
		return usageErrorf("%s and %s: %v", opts.Old, opts.New, err)
	}
	out := compareOutput{Comparison: cmp, oldName: opts.Old, newName: opts.New}
	if file != nil {
		v := budget.Evaluate(file, budget.Inputs{Names: []string{opts.New}, Results: []*results.Results{new},
			BaselineNames: []string{opts.Old}, Baseline: []*results.Results{old}})
		out.Budget = &v
	}
	for _, w := range results.CompareWarnings(cmp) {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	if err := compareFormats().Write(opts.IO.Out, opts.Format, out, results.WriteOptions{}); err != nil {
		return err
	}
	if cmp.Regressed() {
		return withExitCode(ExitRegression, errors.New("correctness regressed significantly"))
	}
	if out.Budget != nil {
		return verdictError(*out.Budget)
	}
	return nil
}

// compareFormats are the output formats of compare.
func compareFormats() results.Outputs[compareOutput] {
	return results.Outputs[compareOutput]{
		{Name: results.FormatTable, Help: "the figures per arm, then the changed cases", Write: func(w io.Writer, out compareOutput, _ results.WriteOptions) error {
			return writeComparison(w, out, false)
		}},
		{Name: results.FormatMarkdown, Help: "the same as Markdown, for a pull-request comment", Write: func(w io.Writer, out compareOutput, _ results.WriteOptions) error {
			return writeComparison(w, out, true)
		}},
		{Name: results.FormatJSON, Help: "the comparison (" + results.CompareSchema + ")", Write: func(w io.Writer, out compareOutput, _ results.WriteOptions) error {
			return results.WriteIndentedJSON(w, out)
		}},
	}
}

// writeComparison prints the comparison's tables (as Markdown, under a heading naming the two
// files and the warnings, for a pull-request comment) and the verdict of --budgets.
func writeComparison(w io.Writer, out compareOutput, markdown bool) error {
	if markdown {
		fmt.Fprintf(w, "## strata-eval compare\n\n`%s` → `%s`\n\n", out.oldName, out.newName)
		if ws := results.CompareWarnings(out.Comparison); len(ws) > 0 {
			for _, line := range ws {
				fmt.Fprintf(w, "> ⚠ %s\n", line)
			}
			fmt.Fprintln(w)
		}
	}
	if err := results.WriteTables(w, results.CompareTables(out.Comparison), markdown); err != nil {
		return err
	}
	if out.Budget == nil {
		return nil
	}
	format := results.FormatTable
	if markdown {
		format = results.FormatMarkdown
	}
	fmt.Fprintln(w)
	return budget.VerdictFormats().Write(w, format, *out.Budget, results.WriteOptions{})
}
