package results

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/strata-eval/strata-eval/internal/fsutil"
)

// Output formats. A command takes the formats of the registry of what it writes: ReportFormats
// (replay, rescore, results merge), budget.VerdictFormats (budget check) and the comparison's
// (compare).
const (
	FormatTable    = "table"
	FormatMarkdown = "markdown"
	FormatCSV      = "csv"
	FormatJSON     = "json"
	FormatHTML     = "html"
	FormatJUnit    = "junit"
)

// Output is one output format of a kind of document T: its name (the value of --format), the
// file it is written to under --out (empty: stdout only), what it is when the name does not say
// (for help texts) and its writer.
type Output[T any] struct {
	Name  string
	File  string
	Help  string
	Write func(w io.Writer, doc T, o WriteOptions) error
}

// Outputs is the registry of the output formats of a kind of document, in the order --out
// writes their files and help lists them. The first is the default.
type Outputs[T any] []Output[T]

// Names are the formats' names, in registry order.
func (outs Outputs[T]) Names() []string {
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.Name
	}
	return names
}

// List is the names as a help text says them: "table, markdown or json".
func (outs Outputs[T]) List() string { return JoinWords(outs.Names(), "or") }

// JoinWords joins words as prose does: "a, b and c" (conjunction "and").
func JoinWords(words []string, conjunction string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conjunction + " " + words[len(words)-1]
}

// Files are the file names under --out, in the order they are written.
func (outs Outputs[T]) Files() []string {
	var files []string
	for _, o := range outs {
		if o.File != "" {
			files = append(files, o.File)
		}
	}
	return files
}

// Lookup returns the format called name (the default for ""); an unknown name is an error
// that lists the registry's names.
func (outs Outputs[T]) Lookup(name string) (Output[T], error) {
	if name == "" && len(outs) > 0 {
		return outs[0], nil
	}
	for _, o := range outs {
		if o.Name == name {
			return o, nil
		}
	}
	return Output[T]{}, fmt.Errorf("--format must be %s, not %q", outs.List(), name)
}

// Write writes doc in the format called name.
func (outs Outputs[T]) Write(w io.Writer, name string, doc T, o WriteOptions) error {
	f, err := outs.Lookup(name)
	if err != nil {
		return err
	}
	return f.Write(w, doc, o)
}

// WriteFiles writes doc under dir (created when absent) in every format that has a file, in
// registry order, each file atomically, with the default options (every table, every detail).
func (outs Outputs[T]) WriteFiles(dir string, doc T) error {
	if err := fsutil.MkdirAll(dir); err != nil {
		return err
	}
	for _, f := range outs {
		if f.File == "" {
			continue
		}
		if err := fsutil.WriteAtomic(filepath.Join(dir, f.File), func(w io.Writer) error {
			return f.Write(w, doc, WriteOptions{})
		}); err != nil {
			return err
		}
	}
	return nil
}

// ReportFormats are the output formats of a replay report (replay, rescore, results merge):
// stdout takes any of them; --out receives every one that has a file.
func ReportFormats() Outputs[*Report] {
	return Outputs[*Report]{
		{Name: FormatTable, Help: "the tables, fitted to the terminal", Write: func(w io.Writer, r *Report, o WriteOptions) error { return writeText(w, r, o, false) }},
		{Name: FormatMarkdown, File: "results.md", Help: "the tables as Markdown, the summary first", Write: func(w io.Writer, r *Report, o WriteOptions) error { return writeText(w, r, o, true) }},
		{Name: FormatCSV, File: "results.csv", Help: "one row per case and arm", Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteCSV(w, r) }},
		{Name: FormatJSON, File: "results.json", Help: "every detail (" + Schema + ")", Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteJSON(w, r) }},
		{Name: FormatHTML, File: "report.html", Help: "one self-contained page: the summary, charts, every picture", Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteHTML(w, r) }},
		{Name: FormatJUnit, Help: "JUnit XML for CI: a testcase per case and arm, failing on an error or a prompt over the context", Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteJUnit(w, r) }},
	}
}
