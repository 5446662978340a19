package results

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/olekukonko/tablewriter/pkg/twcache"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Write renders a report in a format of ReportFormats, tables fitted to DefaultWidth.
func Write(w io.Writer, r *Report, format string) error {
	return WriteWith(w, r, format, WriteOptions{})
}

// WriteWith renders a report in a format of ReportFormats with options: the text forms (table,
// markdown) start with the run's header and, with Summary, keep only the summary tables;
// terminal tables are fitted to Width. The other formats keep every detail.
func WriteWith(w io.Writer, r *Report, format string, o WriteOptions) error {
	return ReportFormats().Write(w, format, r, o)
}

// WriteTables renders tables as terminal text or as Markdown pipe tables, each under its title.
func WriteTables(w io.Writer, ts []Table, markdown bool) error {
	var tbl *tablewriter.Table
	for i, t := range ts {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		title := t.Title
		if markdown {
			title = "### " + title
		}
		if _, err := fmt.Fprintf(w, "%s\n", title); err != nil {
			return err
		}
		if markdown {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if tbl == nil {
			tbl = newTableWriter(w, markdown)
		}
		if err := writeTable(tbl, t); err != nil {
			return err
		}
	}
	return nil
}

// newTableWriter returns the tablewriter table that WriteTables renders its tables with, one
// after the other. tablewriter keeps a cache for cells that are not strings, which plain string
// cells never use; by default it is a map of 10,240 entries (about 400 KB) made anew by NewTable
// and by every Reset, which for the tables of a large replay cost a tenth of a second of CPU:
// the table's cache holds one entry.
func newTableWriter(w io.Writer, markdown bool) *tablewriter.Table {
	opts := []tablewriter.Option{tablewriter.WithStringerCacheCustom(twcache.NewLRU[reflect.Type, reflect.Value](1))}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	return tablewriter.NewTable(w, opts...)
}

// writeTable renders t with tbl, reset first.
func writeTable(tbl *tablewriter.Table, t Table) error {
	align := make(tw.Alignment, len(t.Header))
	for i := range align {
		align[i] = tw.AlignLeft
		if i < len(t.Right) && t.Right[i] {
			align[i] = tw.AlignRight
		}
	}
	cfg := tablewriter.Config{
		Header: tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off}, Alignment: tw.CellAlignment{PerColumn: align}},
		Row:    tw.CellConfig{Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone}, Alignment: tw.CellAlignment{PerColumn: align}},
	}
	tbl.Reset()
	tbl.Options(tablewriter.WithConfig(cfg))
	tbl.Header(t.Header)
	if err := tbl.Bulk(t.Rows); err != nil {
		return err
	}
	return tbl.Render()
}

// CSVHeader is the header of the flat CSV: one row per case and arm.
var csvHeader = []string{"case", "file", "format", "conversation", "request", "arm", "tool_chars", "tool_pictures",
	"text_tokens", "image_rows", "prompt_tokens", "text_source", "rows_source", "context", "fits", "sees_picture", "pictures", "verdict",
	"computed_prompt_tokens", "count_diff", "count_method", "answer", "correct", "divergence", "gate"}

// WriteCSV writes one row per case and arm.
func WriteCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, c := range r.Cases {
		for _, a := range c.Arms {
			rec := []string{c.ID, c.File, c.Format, c.Conversation, strconv.Itoa(c.Request), a.Arm,
				strconv.Itoa(a.ToolChars), strconv.Itoa(a.ToolPictures), strconv.Itoa(a.TextTokens),
				strconv.Itoa(a.ImageRows), strconv.Itoa(a.PromptTokens), a.TextSource, a.RowsSource,
				strconv.Itoa(a.Context), strconv.FormatBool(a.Fits), strconv.FormatBool(a.SeesPicture),
				strconv.Itoa(len(a.Pictures)), a.Verdict}
			rec = append(rec, liveColumns(a)...)
			rec = append(rec, gateColumn(a))
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// gateColumn is the lane a gate arm's gate chose and why ("text: image_input_mode auto and …"),
// empty for the other arms.
func gateColumn(a ArmCase) string {
	if a.Gate == nil {
		return ""
	}
	return a.Gate.Lane + ": " + a.Gate.Reason
}

// WriteJSON writes the report as indented JSON, a case at a time.
func WriteJSON(w io.Writer, r *Report) error { return writeReportJSON(w, r) }

// WriteIndentedJSON writes v as the JSON of every output: indented by two spaces, <, > and &
// left as they are.
func WriteIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// liveColumns are the CSV columns a live engine fills: the computed count and the difference,
// the counting method, the answer, the scorer's verdict and the divergence (empty otherwise).
func liveColumns(a ArmCase) []string {
	cols := make([]string, 6)
	if a.Computed != nil {
		cols[0] = strconv.Itoa(a.Computed.PromptTokens)
	}
	if a.CountDiff != nil {
		cols[1] = strconv.Itoa(*a.CountDiff)
	}
	cols[2], cols[3] = a.CountMethod, a.Answer
	if a.Correct != nil {
		cols[4] = strconv.FormatBool(*a.Correct)
	}
	if a.Divergence != nil {
		cols[5] = strconv.Itoa(a.Divergence.Diff)
		if a.Divergence.Diverges {
			cols[5] += " diverges"
		}
	}
	return cols
}
