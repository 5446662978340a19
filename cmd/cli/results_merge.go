package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/internal/fsutil"
	"github.com/strata-eval/strata-eval/results"
)

// MergeOptions are the flags and streams of `results merge`.
type MergeOptions struct {
	IO *IOStreams
	// Paths are results.json files, or folders holding one (a shard's --out).
	Paths []string
	// Out is the folder for the merged results.json, results.md and results.csv.
	Out    string
	Format string
	// Partial accepts shards i/n with some i absent.
	Partial bool
}

func newResultsCmd(io *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:     "results",
		Example: examples("strata-eval replay --summary --shard 0/2 --out shard-0 corpora/samples", "strata-eval replay --summary --shard 1/2 --out shard-1 corpora/samples", "strata-eval results merge -o merged shard-0 shard-1"),
		Short:   "Work with results files of replay runs",
		Long:    helpWithExit(`Commands that work with the results files of replay runs.`, ExitInputs),
	}
	c.AddCommand(newResultsMergeCmd(io))
	return c
}

func newResultsMergeCmd(io *IOStreams) *cobra.Command {
	opts := &MergeOptions{IO: io}
	c := &cobra.Command{
		Use:     "merge -o OUT FILE...",
		Example: examples("strata-eval replay --summary --shard 0/2 --out shard-0 corpora/samples", "strata-eval replay --summary --shard 1/2 --out shard-1 corpora/samples", "strata-eval results merge -o merged shard-0/results.json shard-1/results.json"),
		Short:   "Combine the results of shards (replay --shard i/n) into the results of a single run",
		Long: helpWithExit(`Reads the results.json of several runs of one configuration (each FILE a results.json or a
folder holding one, such as a shard's --out) and writes the results of a single run over the
same inputs: cases de-duplicated by id and put back in input order, problems united, the
summary recomputed; timings are kept per case and the wall time is the longest shard's.
The runs must agree on tokenizer, template, vision, context, turns, MCP delivery and arms, and
on the digest of every input they share. When the runs are shards i/n and a shard is missing
the merge fails unless --partial is given. OUT receives results.json, results.md and
results.csv (written atomically); the summary tables go to stdout.`, ExitInputs),
		Args: wrapArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			return runResultsMerge(cmd.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.Out, "out", "o", "", "folder for the merged results.json, results.md and results.csv (required)")
	c.Flags().StringVar(&opts.Format, "format", results.FormatTable, "stdout format: table, markdown, csv or json")
	c.Flags().BoolVar(&opts.Partial, "partial", false, "accept shards i/n with some i missing")
	return c
}

func runResultsMerge(ctx context.Context, opts *MergeOptions) error {
	if opts.Out == "" {
		return usageErrorf("results merge needs -o OUT")
	}
	switch opts.Format {
	case results.FormatTable, results.FormatMarkdown, results.FormatCSV, results.FormatJSON:
	default:
		return usageErrorf("--format must be table, markdown, csv or json, not %q", opts.Format)
	}
	var reports []*results.Report
	for _, p := range opts.Paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := readReportFile(p)
		if err != nil {
			return usageError(err)
		}
		reports = append(reports, r)
	}
	merged, err := results.Merge(reports)
	switch {
	case errors.Is(err, results.ErrMissingShards) && opts.Partial:
		fmt.Fprintf(opts.IO.ErrOut, "strata-eval: warning: %v\n", err)
	case err != nil:
		return err
	}
	if err := fsutil.MkdirAll(opts.Out); err != nil {
		return err
	}
	for _, f := range []struct{ name, format string }{
		{"results.json", results.FormatJSON}, {"results.md", results.FormatMarkdown}, {"results.csv", results.FormatCSV},
	} {
		if err := fsutil.WriteAtomic(filepath.Join(opts.Out, f.name), func(w io.Writer) error {
			return results.Write(w, merged, f.format)
		}); err != nil {
			return err
		}
	}
	if err := fsutil.WriteAtomic(filepath.Join(opts.Out, "report.html"), func(w io.Writer) error { return results.WriteHTML(w, merged) }); err != nil {
		return err
	}
	if err := results.Write(opts.IO.Out, merged, opts.Format); err != nil {
		return err
	}
	if len(merged.Problems) > 0 {
		return withExitCode(ExitInputs, fmt.Errorf("%d problem(s) in the merged runs; the rest was merged", len(merged.Problems)))
	}
	return nil
}

// readReportFile reads a results.json, or the results.json inside a folder.
func readReportFile(path string) (*results.Report, error) {
	path = resultsPath(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r results.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if r.Schema != results.Schema {
		return nil, fmt.Errorf("read %s: schema %q, want %q", path, r.Schema, results.Schema)
	}
	return &r, nil
}
