package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/strata-eval/strata-eval/results"
)

// addFormatFlag registers --format over a registry of output formats: the first is the default
// and the help lists them all ("stdout format: table, markdown, csv, json, html or junit").
func addFormatFlag[T any](f *pflag.FlagSet, p *string, outs results.Outputs[T], help string) {
	f.StringVar(p, "format", outs.Names()[0], help+": "+outs.List())
}

// formatSection is the OUTPUT FORMATS section of a command's help: each format of the registry
// with what it is and the file --out writes it to, when it has one.
func formatSection[T any](outs results.Outputs[T]) string {
	var b strings.Builder
	b.WriteString("OUTPUT FORMATS (--format)")
	for _, o := range outs {
		fmt.Fprintf(&b, "\n  %-9s %s", o.Name, o.Help)
		if o.File != "" {
			fmt.Fprintf(&b, " (--out: %s)", o.File)
		}
	}
	return b.String()
}

// checkFormat is a usage error (exit 2) naming the registry's formats when name is not one.
func checkFormat[T any](outs results.Outputs[T], name string) error {
	_, err := outs.Lookup(name)
	return withExitCode(ExitUsage, err)
}

// readResultsFiles reads results files with the one reader of results.json; one that cannot be
// read stops the command with one line naming it (exit 3), since figures of part of a run could
// pass a check by accident.
func readResultsFiles(ctx context.Context, paths []string) ([]*results.Results, error) {
	var out []*results.Results
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := results.ReadResults(p)
		if err != nil {
			return nil, withExitCode(ExitInputs, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// readReportFile reads the results of a replay run (a results.json or a folder holding one)
// with the one reader of results.json; an unreadable one is exit 3.
func readReportFile(path string) (*results.Report, error) {
	r, err := results.ReadReport(path)
	return r, withExitCode(ExitInputs, err)
}

// outFiles names the files --out receives from replay, rescore and results merge, with extra
// ones of the command: "results.md, results.csv, results.json and report.html".
func outFiles(extra ...string) string {
	return results.JoinWords(append(results.ReportFormats().Files(), extra...), "and")
}
