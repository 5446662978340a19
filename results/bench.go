package results

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/strata-eval/strata-eval/results/stats"
)

// BenchSchema is the version of the layout of `bench scan --json`.
const BenchSchema = "strata-eval/bench/v1"

// BenchReport is the result of `bench scan`: per payload, the time to scan and lift it and
// the time to read its bytes (the bandwidth reference), over Count runs.
type BenchReport struct {
	Schema string      `json:"schema"`
	Config BenchConfig `json:"config"`
	// Payloads are in the order they were measured.
	Payloads []BenchPayload `json:"payloads"`
}

// BenchConfig records what produced a bench report.
type BenchConfig struct {
	ToolVersion string `json:"tool_version"`
	GoVersion   string `json:"go_version"`
	GOOS        string `json:"goos"`
	GOARCH      string `json:"goarch"`
	CPUs        int    `json:"cpus"`
	// Seed generated the payloads; Corpus names the corpus whose tool messages were benched.
	Seed   int64  `json:"seed"`
	Corpus string `json:"corpus,omitempty"`
	Count  int    `json:"count"`
	// Benchtime is the target duration of one run ("100ms") or a fixed count ("50x").
	Benchtime string `json:"benchtime"`
	Warmup    int    `json:"warmup"`
	// Operation and Reference say what one op of the scan and of the reference is.
	Operation string `json:"operation"`
	Reference string `json:"reference"`
}

// BenchPayload is one payload's measurements.
type BenchPayload struct {
	// Name is unique in the report and has no spaces (it names the Go benchmark).
	Name string `json:"name"`
	// Class is png, base64, json, small or corpus.
	Class string `json:"class"`
	Bytes int64  `json:"bytes"`
	// Pictures is the number of pictures the scan finds in the payload; Lifted how many of them
	// it lifts.
	Pictures int `json:"pictures"`
	Lifted   int `json:"lifted"`
	// Runs are the scan's runs, one per --count; Read the reference's runs, interleaved with them.
	Runs []BenchRun `json:"runs"`
	Read []BenchRun `json:"read"`
	// Summary of the runs.
	Scan      BenchStats `json:"scan"`
	ReadStats BenchStats `json:"read_stats"`
	// ScanOverRead is the median over runs of the scan's ns/op divided by the reference's
	// ns/op of the same run: how many times a plain read of the bytes the scan costs.
	ScanOverRead float64 `json:"scan_over_read"`
}

// BenchRun is one timed run of N operations.
type BenchRun struct {
	N           int64   `json:"n"`
	NsPerOp     float64 `json:"ns_per_op"`
	AllocsPerOp int64   `json:"allocs_per_op"`
	BytesPerOp  int64   `json:"bytes_per_op"`
}

// BenchStats summarises the runs of one payload.
type BenchStats struct {
	MinNs       float64 `json:"min_ns_per_op"`
	MedianNs    float64 `json:"median_ns_per_op"`
	P95Ns       float64 `json:"p95_ns_per_op"`
	MBPerSec    float64 `json:"mb_per_s"` // at the median, 1 MB = 10⁶ bytes as in `go test`
	AllocsPerOp int64   `json:"allocs_per_op"`
	BytesPerOp  int64   `json:"bytes_per_op"`
}

// ScanOverReadRuns returns, per run, the scan's ns/op over the reference's ns/op.
func (p BenchPayload) ScanOverReadRuns() []float64 {
	var out []float64
	for i := range p.Runs {
		if i < len(p.Read) && p.Read[i].NsPerOp > 0 {
			out = append(out, p.Runs[i].NsPerOp/p.Read[i].NsPerOp)
		}
	}
	return out
}

// Summarize fills Scan, ReadStats and ScanOverRead from the runs.
func (p *BenchPayload) Summarize() {
	p.Scan = summarizeRuns(p.Runs, p.Bytes)
	p.ReadStats = summarizeRuns(p.Read, p.Bytes)
	p.ScanOverRead = 0
	if r := p.ScanOverReadRuns(); len(r) > 0 {
		p.ScanOverRead = stats.Median(r)
	}
}

func summarizeRuns(runs []BenchRun, bytes int64) BenchStats {
	if len(runs) == 0 {
		return BenchStats{}
	}
	ns := make([]float64, len(runs))
	allocs := make([]float64, len(runs))
	mem := make([]float64, len(runs))
	for i, r := range runs {
		ns[i], allocs[i], mem[i] = r.NsPerOp, float64(r.AllocsPerOp), float64(r.BytesPerOp)
	}
	s := BenchStats{MinNs: stats.Min(ns), MedianNs: stats.Median(ns), P95Ns: stats.Percentile(ns, 95),
		AllocsPerOp: int64(stats.Median(allocs)), BytesPerOp: int64(stats.Median(mem))}
	s.MBPerSec = mbPerSec(bytes, s.MedianNs)
	return s
}

// BenchTable is the people's table of a bench report: one row per payload.
func BenchTable(r *BenchReport) Table {
	t := Table{Title: "scan and lift per tool message (" + strconv.Itoa(r.Config.Count) + " runs)",
		Header: []string{"payload", "bytes", "pictures", "min", "median", "p95", "MB/s", "allocs/op", "B/op", "read MB/s", "scan/read"}}
	t.Right = []bool{false, true, true, true, true, true, true, true, true, true, true}
	var ns [][]float64
	for _, p := range r.Payloads {
		t.Rows = append(t.Rows, []string{p.Name, Thousands(p.Bytes), strconv.Itoa(p.Pictures), "", "", "",
			MBPerSecCell(p.Scan.MBPerSec), Thousands(p.Scan.AllocsPerOp), Thousands(p.Scan.BytesPerOp),
			MBPerSecCell(p.ReadStats.MBPerSec), fmt.Sprintf("%.2f×", p.ScanOverRead)})
		ns = append(ns, []float64{p.Scan.MinNs, p.Scan.MedianNs, p.Scan.P95Ns})
	}
	durationColumns(&t, []int{3, 4, 5}, ns)
	return t
}

// nsCell prints nanoseconds with three significant digits in the unit that suits the value (a
// cell of a column whose rows are different figures).
func nsCell(ns float64) string {
	name, scale := durationUnit(ns)
	return Significant(ns/scale) + " " + name
}

// FormatGoBench is the Go benchmark format of a bench report, for benchstat.
const FormatGoBench = "gobench"

// BenchFormats are the output formats of a bench report (bench scan).
func BenchFormats() Outputs[*BenchReport] {
	return Outputs[*BenchReport]{
		{Name: FormatTable, Help: "a row per payload", Write: func(w io.Writer, r *BenchReport, _ WriteOptions) error {
			return WriteTables(w, []Table{BenchTable(r)}, false)
		}},
		{Name: FormatGoBench, Help: "Go benchmark lines, for benchstat old.txt new.txt", Write: func(w io.Writer, r *BenchReport, _ WriteOptions) error { return WriteGoBench(w, r) }},
		{Name: FormatJSON, Help: "the report (" + BenchSchema + "), for budget check and compare", Write: func(w io.Writer, r *BenchReport, _ WriteOptions) error { return WriteIndentedJSON(w, r) }},
	}
}

// WriteGoBench writes a bench report in the Go benchmark format, one line per run, so that
// `benchstat old.txt new.txt` compares two builds. The scan is BenchmarkScan/<payload> and the
// reference BenchmarkRead/<payload>; the pictures found are a custom pictures/op metric.
func WriteGoBench(w io.Writer, r *BenchReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "goos: %s\ngoarch: %s\npkg: github.com/strata-eval/strata-eval/replay\n", r.Config.GOOS, r.Config.GOARCH)
	fmt.Fprintf(&b, "seed: %d\n", r.Config.Seed)
	if r.Config.Corpus != "" {
		fmt.Fprintf(&b, "corpus: %s\n", r.Config.Corpus)
	}
	suffix := ""
	if r.Config.CPUs > 1 {
		suffix = "-" + strconv.Itoa(r.Config.CPUs)
	}
	line := func(name string, p BenchPayload, run BenchRun, pictures bool) {
		fmt.Fprintf(&b, "%s%s\t%d\t%.1f ns/op\t%.2f MB/s\t%d B/op\t%d allocs/op", name, suffix, run.N, run.NsPerOp,
			mbPerSec(p.Bytes, run.NsPerOp), run.BytesPerOp, run.AllocsPerOp)
		if pictures {
			fmt.Fprintf(&b, "\t%d pictures/op", p.Pictures)
		}
		b.WriteByte('\n')
	}
	for _, p := range r.Payloads {
		for _, run := range p.Runs {
			line("BenchmarkScan/"+p.Name, p, run, true)
		}
		for _, run := range p.Read {
			line("BenchmarkRead/"+p.Name, p, run, false)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mbPerSec is bytes per op over ns per op in 10⁶ bytes per second; 0 when ns is not positive.
func mbPerSec(bytes int64, ns float64) float64 {
	if ns <= 0 {
		return 0
	}
	return float64(bytes) / ns * 1e3
}

// MBPerSec is exported for the commands that summarise runs: bytes per op at ns per op, in MB/s.
func MBPerSec(bytes int64, ns float64) float64 { return mbPerSec(bytes, ns) }
