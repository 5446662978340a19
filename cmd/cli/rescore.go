package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/measure/score"
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
--out DIR writes `+outFiles()+`.

`+formatSection(results.ReportFormats()), ExitInputs),
		Args: wrapArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Results = args[0]
			return runRescore(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Expect, "expect", "", "expectations sidecar (JSON or YAML) that replaces the recorded ones")
	f.StringVar(&opts.Out, "out", "", "folder for "+outFiles())
	addFormatFlag(f, &opts.Format, results.ReportFormats(), "stdout format")
	return c
}

func runRescore(ctx context.Context, opts *RescoreOptions) error {
	if err := checkFormat(results.ReportFormats(), opts.Format); err != nil {
		return err
	}
	var expect map[string]corpora.Expectation
	if opts.Expect != "" {
		var err error
		if expect, err = score.LoadExpectations(opts.Expect); err != nil {
			return usageError(err)
		}
	}
	rep, err := readReportFile(opts.Results)
	if err != nil {
		return err
	}
	scored := 0
	for i := range rep.Cases {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := &rep.Cases[i]
		exp, ok := score.ExpectationFor(expect, c.ID, c.Conversation)
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
	fmt.Fprintf(opts.IO.ErrOut, "strata-eval: rescored %d of %d case(s) from %s\n", scored, len(rep.Cases), results.ResultsPath(opts.Results))
	if err := results.Write(opts.IO.Out, rep, opts.Format); err != nil {
		return err
	}
	if opts.Out == "" {
		return nil
	}
	return results.ReportFormats().WriteFiles(opts.Out, rep)
}
