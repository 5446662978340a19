package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/fsutil"
	"github.com/strata-eval/strata-eval/measure"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run"
)

// RescoreOptions are the flags and streams of `rescore`.
type RescoreOptions struct {
	IO      *IOStreams
	Results string
	Expect  string
	Out     string
	Format  string
}

func newRescoreCmd(io *IOStreams) *cobra.Command {
	opts := &RescoreOptions{IO: io}
	c := &cobra.Command{
		Use:     "rescore RESULTS",
		Example: examples("strata-eval replay --summary --out out corpora/samples/openai-chat-tiny-png.json", "strata-eval rescore out/results.json"),
		Short:   "Score the answers of an earlier replay again, without calling the model",
		Long: helpWithExit(`Reads the results of a replay run with --answer (results.json, or the --out folder holding
it), judges every recorded answer again with the case's expectation — the one recorded with the
case, or the entry of --expect (case id or conversation id → {question, scorer, answer}) — and
prints the report again with the new verdicts and correctness rates. The model is never called.
--out DIR writes results.json, results.md and results.csv.`, ExitInputs),
		Args: wrapArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Results = args[0]
			return runRescore(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Expect, "expect", "", "expectations sidecar (JSON or YAML) that replaces the recorded ones")
	f.StringVar(&opts.Out, "out", "", "folder for results.json, results.md and results.csv")
	f.StringVar(&opts.Format, "format", "table", "stdout format: table, markdown, csv or json")
	return c
}

func runRescore(ctx context.Context, opts *RescoreOptions) error {
	switch opts.Format {
	case results.FormatTable, results.FormatMarkdown, results.FormatCSV, results.FormatJSON:
	default:
		return usageErrorf("--format must be table, markdown, csv or json, not %q", opts.Format)
	}
	var expect map[string]corpora.Expectation
	if opts.Expect != "" {
		var err error
		if expect, err = measure.LoadExpectations(opts.Expect); err != nil {
			return usageError(err)
		}
	}
	path := resultsPath(opts.Results)
	data, err := os.ReadFile(path)
	if err != nil {
		return withExitCode(ExitInputs, fmt.Errorf("rescore: %w", err))
	}
	var rep results.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return withExitCode(ExitInputs, fmt.Errorf("rescore: %s: %w", path, err))
	}
	if rep.Schema != results.Schema {
		return withExitCode(ExitInputs, fmt.Errorf("rescore: %s: schema %q, want %q", path, rep.Schema, results.Schema))
	}
	scored := 0
	for i := range rep.Cases {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := &rep.Cases[i]
		exp, ok := measure.ExpectationFor(expect, c.ID, c.Conversation)
		if !ok {
			if c.Expected == "" {
				continue
			}
			exp = corpora.Expectation{Question: c.Question, Scorer: c.Scorer, Answer: c.Expected}
		}
		c.Question, c.Expected, c.Scorer = exp.Question, exp.Answer, exp.Scorer
		if err := run.ScoreArms(c, exp); err != nil {
			return usageError(err)
		}
		scored++
	}
	var names []string
	for _, s := range rep.Summary {
		names = append(names, s.Arm)
	}
	rep.Summary = results.Summarize(rep.Cases, names)
	fmt.Fprintf(opts.IO.ErrOut, "strata-eval: rescored %d of %d case(s) from %s\n", scored, len(rep.Cases), path)
	if err := results.Write(opts.IO.Out, &rep, opts.Format); err != nil {
		return err
	}
	if opts.Out == "" {
		return nil
	}
	if err := fsutil.MkdirAll(opts.Out); err != nil {
		return err
	}
	for name, format := range map[string]string{"results.json": results.FormatJSON, "results.md": results.FormatMarkdown, "results.csv": results.FormatCSV} {
		if err := fsutil.WriteAtomic(filepath.Join(opts.Out, name), func(w io.Writer) error {
			return results.Write(w, &rep, format)
		}); err != nil {
			return err
		}
	}
	return fsutil.WriteAtomic(filepath.Join(opts.Out, "report.html"), func(w io.Writer) error { return results.WriteHTML(w, &rep) })
}
