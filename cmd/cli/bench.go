package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run/scanbench"
)

// BenchScanOptions are the flags and streams of `bench scan`.
type BenchScanOptions struct {
	IO *IOStreams
	// Config holds what to bench and how (Clock and MemStats: tests inject fakes).
	scanbench.Config
	// Format is table, gobench or json (--json is --format json).
	Format string
	JSON   bool
}

func newBenchCmd(io *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:     "bench",
		Example: examples("strata-eval bench scan --count 3 --benchtime 10x"),
		Short:   "Time parts of the pipeline",
		Long:    helpWithExit(`Benchmarks of the pipeline's hot paths, outside go test.`, ExitInputs),
	}
	c.AddCommand(newBenchScanCmd(io))
	return c
}

func newBenchScanCmd(io *IOStreams) *cobra.Command {
	opts := &BenchScanOptions{IO: io}
	var classHelp strings.Builder
	for _, c := range scanbench.Classes {
		fmt.Fprintf(&classHelp, "  %-7s %-5s %s\n", c.Name, c.Size, c.Help)
	}
	c := &cobra.Command{
		Use:     "scan",
		Example: examples("strata-eval bench scan --count 3 --benchtime 10x", "strata-eval bench scan --sample-corpus --count 1 --benchtime 1x", "strata-eval bench scan --size png=1MB --count 2 --benchtime 2x --format gobench"),
		Short:   "Time the scan and lift of tool messages against a plain read of the same bytes",
		Long: helpWithExit(`Times what the server-side lift does per tool message (replay.NewLifter(settings).Plan, then the
decode of every lifted picture into a buffer kept from message to message) on payloads generated from --seed, or on the tool messages of a
corpus (--corpus PATH, --sample-corpus). Per payload it reports ns/op (min, median, p95 over
--count runs), MB/s, allocs/op, B/op and the pictures found, and, in the same run and on the same
buffer, a bandwidth reference: a plain read of every byte (strings.Count of a zero byte, the
runtime's vectorised loop). scan/read is
the scan's time as a multiple of that read, a figure that travels between machines better than
nanoseconds do (budget: scan_over_read{payload:json_2MB}: p(50) < 2).

Payload classes (--size CLASS=SIZE, sizes in B, KB, MB; 1 MB = 10⁶ bytes):
`+classHelp.String()+`
--format gobench prints Go benchmark lines (BenchmarkScan/<payload>, BenchmarkRead/<payload>);
--json is --format json. --write-payloads DIR writes each payload's text to DIR/<payload>.txt
before timing it, to time another implementation on the same bytes.

`+formatSection(results.BenchFormats()), ExitInputs),
		Args: wrapArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchScan(cmd.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringSliceVar(&opts.Sizes, "size", nil, "payload size as CLASS=SIZE (repeatable, e.g. png=4MB,small=1KB)")
	f.Int64Var(&opts.Seed, "seed", 1, "seed of the generated payloads")
	f.StringArrayVar(&opts.Corpus, "corpus", nil, "bench the tool messages of this corpus file or folder (repeatable)")
	f.BoolVar(&opts.SampleCorpus, "sample-corpus", false, "bench the tool messages of the embedded sample corpus")
	f.IntVar(&opts.Count, "count", 10, "runs per payload")
	f.StringVar(&opts.Benchtime, "benchtime", "100ms", "duration of one run, or a fixed number of ops as Nx")
	f.IntVar(&opts.Warmup, "warmup", 3, "untimed ops per payload before the runs")
	f.StringVar(&opts.PayloadDir, "write-payloads", "", "write the text of each payload to this folder as <payload>.txt")
	addFormatFlag(f, &opts.Format, results.BenchFormats(), "output")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON (same as --format json)")
	return c
}

func runBenchScan(ctx context.Context, opts *BenchScanOptions) error {
	if opts.JSON {
		opts.Format = results.FormatJSON
	}
	if err := checkFormat(results.BenchFormats(), opts.Format); err != nil {
		return err
	}
	cfg := opts.Config
	cfg.ToolVersion, cfg.Notes = Version, opts.IO.ErrOut
	report, load, err := scanbench.Run(ctx, cfg)
	if errors.Is(err, scanbench.ErrNoPayloads) {
		return withExitCode(ExitInputs, err)
	}
	if err != nil {
		return err
	}
	if err := results.BenchFormats().Write(opts.IO.Out, opts.Format, report, results.WriteOptions{}); err != nil {
		return err
	}
	if load != nil {
		for _, p := range load.Problems {
			fmt.Fprintf(opts.IO.ErrOut, "strata-eval: %v\n", p)
		}
		return load.Err()
	}
	return nil
}
