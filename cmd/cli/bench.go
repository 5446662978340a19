package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/fsutil"
	"github.com/strata-eval/strata-eval/internal/synthimage"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run"
)

// BenchScanOptions are the flags and streams of `bench scan`.
type BenchScanOptions struct {
	IO *IOStreams
	// Sizes override the payload sizes, as CLASS=SIZE (png=2MB, base64=2MB, json=2MB, small=20KB).
	Sizes []string
	Seed  int64
	// Corpus benches the tool messages of these files instead of generated payloads;
	// SampleCorpus those of the embedded sample corpus.
	Corpus       []string
	SampleCorpus bool
	Count        int
	Benchtime    string
	Warmup       int
	// Format is table, gobench or json (--json is --format json).
	Format string
	JSON   bool

	// clock and memStats are the time and allocation counters (tests inject fakes).
	clock    func() time.Time
	memStats func() (mallocs, bytes uint64)
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

// Payload classes of bench scan, in the order they run, with their default sizes.
var benchClasses = []struct{ class, size, help string }{
	{"png", "2MB", "a Chatbox tool message (AI SDK parts stringified) carrying a screenshot PNG of about 3/4 of the size"},
	{"base64", "2MB", "JSON carrying one long base64 run that is not a picture"},
	{"json", "2MB", "ordinary JSON text (search results)"},
	{"small", "20KB", "a small ordinary JSON tool result"},
}

func newBenchScanCmd(io *IOStreams) *cobra.Command {
	opts := &BenchScanOptions{IO: io}
	var classHelp strings.Builder
	for _, c := range benchClasses {
		fmt.Fprintf(&classHelp, "  %-7s %-5s %s\n", c.class, c.size, c.help)
	}
	c := &cobra.Command{
		Use:     "scan",
		Example: examples("strata-eval bench scan --count 3 --benchtime 10x", "strata-eval bench scan --sample-corpus --count 1 --benchtime 1x", "strata-eval bench scan --size png=1MB --count 2 --benchtime 2x --format gobench"),
		Short:   "Time the scan and lift of tool messages against a plain read of the same bytes",
		Long: helpWithExit(`Times what the server-side lift does per tool message (replay.NewLifter(settings).Plan, then the
decode of every lifted picture) on payloads generated from --seed, or on the tool messages of a
corpus (--corpus PATH, --sample-corpus). Per payload it reports ns/op (min, median, p95 over
--count runs), MB/s, allocs/op, B/op and the pictures found, and, in the same run and on the same
buffer, a bandwidth reference: a plain read of every byte (strings.Count of a zero byte, the
runtime's vectorised loop). scan/read is
the scan's time as a multiple of that read, a figure that travels between machines better than
nanoseconds do (budget: scan_over_read{payload:json_2MB}: p(50) < 2).

Payload classes (--size CLASS=SIZE, sizes in B, KB, MB; 1 MB = 10⁶ bytes):
`+classHelp.String()+`
--format gobench prints Go benchmark lines (BenchmarkScan/<payload>, BenchmarkRead/<payload>)
for benchstat old.txt new.txt; --json prints the report (schema strata-eval/bench/v1) for
budget check and compare.`, ExitInputs),
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
	f.StringVar(&opts.Format, "format", "table", "output: table, gobench or json")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON (same as --format json)")
	return c
}

// benchPayload is a payload under test: the texts of one tool message.
type benchPayload struct {
	name, class string
	texts       []string
}

func (p benchPayload) bytes() int64 {
	var n int64
	for _, t := range p.texts {
		n += int64(len(t))
	}
	return n
}

// benchtime is a run's target: a duration or a fixed number of ops.
type benchtime struct {
	d time.Duration
	n int64
}

func parseBenchtime(s string) (benchtime, error) {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v < 1 {
			return benchtime{}, usageErrorf("--benchtime %q: want a duration such as 100ms or a count such as 50x", s)
		}
		return benchtime{n: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return benchtime{}, usageErrorf("--benchtime %q: want a duration such as 100ms or a count such as 50x", s)
	}
	return benchtime{d: d}, nil
}

// parseSize reads 2MB, 20KB, 1500B or 123 (bytes); 1 KB = 1000 bytes.
func parseSize(s string) (int, error) {
	num, mult := s, 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"B", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = v, u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v <= 0 || v*mult > 1<<31 {
		return 0, fmt.Errorf("size %q: want a positive size such as 2MB, 20KB or 1500B (at most 2 GB)", s)
	}
	return int(v * mult), nil
}

func runBenchScan(ctx context.Context, opts *BenchScanOptions) error {
	if opts.JSON {
		opts.Format = results.FormatJSON
	}
	switch opts.Format {
	case results.FormatTable, "gobench", results.FormatJSON:
	default:
		return usageErrorf("--format must be table, gobench or json, not %q", opts.Format)
	}
	if opts.Count < 1 {
		return usageErrorf("--count must be at least 1")
	}
	if opts.Warmup < 0 {
		return usageErrorf("--warmup must not be negative")
	}
	bt, err := parseBenchtime(opts.Benchtime)
	if err != nil {
		return err
	}
	if opts.clock == nil {
		opts.clock = time.Now
	}
	if opts.memStats == nil {
		opts.memStats = readMemStats
	}
	report := &results.BenchReport{Schema: results.BenchSchema, Config: results.BenchConfig{
		ToolVersion: Version, GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		CPUs: runtime.GOMAXPROCS(0), Seed: opts.Seed, Count: opts.Count, Benchtime: opts.Benchtime, Warmup: opts.Warmup,
		Operation: "replay.NewLifter(defaults).Plan(text) and the decode of every lifted picture, per tool message",
		Reference: "strings.Count(text, \"\\x00\"): a vectorised read of every byte of the same text",
	}}
	var payloads []benchPayload
	var load *run.LoadResult
	if len(opts.Corpus) > 0 || opts.SampleCorpus {
		if len(opts.Sizes) > 0 {
			return usageErrorf("--size applies to generated payloads, not to --corpus")
		}
		paths := opts.Corpus
		report.Config.Corpus = strings.Join(paths, ",")
		if opts.SampleCorpus {
			paths = nil
			report.Config.Corpus = "(embedded sample corpus)"
		}
		if payloads, load, err = corpusPayloads(ctx, paths, opts.IO.ErrOut); err != nil {
			return err
		}
	} else if payloads, err = generatedPayloads(opts.Sizes, opts.Seed); err != nil {
		return err
	}
	if len(payloads) == 0 {
		return withExitCode(ExitInputs, fmt.Errorf("no tool message with text to bench"))
	}
	b := &bencher{clock: opts.clock, memStats: opts.memStats, bt: bt, warmup: opts.Warmup, count: opts.Count}
	for _, p := range payloads {
		if err := ctx.Err(); err != nil {
			return err
		}
		bp, err := b.measure(p)
		if err != nil {
			return err
		}
		report.Payloads = append(report.Payloads, bp)
	}
	if err := writeBenchReport(opts, report); err != nil {
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

func writeBenchReport(opts *BenchScanOptions, r *results.BenchReport) error {
	switch opts.Format {
	case "gobench":
		return results.WriteGoBench(opts.IO.Out, r)
	case results.FormatJSON:
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	}
	return results.WriteTables(opts.IO.Out, []results.Table{results.BenchTable(r)}, false)
}

func readMemStats() (uint64, uint64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs, m.TotalAlloc
}

// generatedPayloads makes the four payload classes at their sizes (defaults overridden by
// CLASS=SIZE), reproducibly from seed.
func generatedPayloads(sizes []string, seed int64) ([]benchPayload, error) {
	chosen := map[string]string{}
	for _, c := range benchClasses {
		chosen[c.class] = c.size
	}
	for _, s := range sizes {
		class, size, ok := strings.Cut(s, "=")
		if _, known := chosen[class]; !ok || !known {
			return nil, usageErrorf("--size %q: want CLASS=SIZE with CLASS one of png, base64, json, small", s)
		}
		chosen[class] = size
	}
	var out []benchPayload
	for _, c := range benchClasses {
		n, err := parseSize(chosen[c.class])
		if err != nil {
			return nil, usageErrorf("--size %s: %v", c.class, err)
		}
		var text string
		switch c.class {
		case "png":
			text, err = pngToolMessage(n, seed)
		case "base64":
			text = base64Payload(n, seed)
		default:
			text = jsonPayload(n, seed)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, benchPayload{name: c.class + "_" + chosen[c.class], class: c.class, texts: []string{text}})
	}
	return out, nil
}

// aiSDKPart is one part of an AI SDK tool output as Chatbox stringifies it.
type aiSDKPart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Data      string `json:"data,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
}

const benchCaption = "Captured the viewport of https://shop.example.test/admin/orders as a PNG and saved it to /tmp/page.png"

// pngToolMessage is a Chatbox tool message of about n bytes: the stringified AI SDK parts
// with a caption and a screenshot PNG whose base64 fills the rest.
func pngToolMessage(n int, seed int64) (string, error) {
	overhead := len(stringifyParts([]aiSDKPart{{Type: "text", Text: benchCaption}, {Type: "image-data", Data: "A", MediaType: "image/png"}})) - 1
	pngBytes := (n - overhead) / 4 * 3
	if pngBytes < 1024 {
		return "", usageErrorf("--size png=%d: too small for a picture (at least %d bytes)", n, overhead+1400)
	}
	// Start from the headline's 1280×800 for ~1.5 MB and scale the sides with the square root.
	scale := math.Sqrt(float64(pngBytes) / 1_528_438)
	w, h := max(32, int(1280*scale)), max(20, int(800*scale))
	var lastErr error
	for try := 0; try < 6; try++ {
		png, err := synthimage.ScreenshotPNG(w, h, seed, pngBytes, synthimage.Look{})
		if err == nil {
			return stringifyParts([]aiSDKPart{{Type: "text", Text: benchCaption},
				{Type: "image-data", Data: base64.StdEncoding.EncodeToString(png), MediaType: "image/png"}}), nil
		}
		lastErr = err
		if strings.Contains(err.Error(), "without noise") {
			w, h = max(8, w*2/3), max(8, h*2/3)
		} else {
			w, h = w*3/2, h*3/2
		}
	}
	return "", fmt.Errorf("png payload of %d bytes: %w", n, lastErr)
}

func stringifyParts(parts []aiSDKPart) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(parts) // strings only: cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// base64Payload is about n bytes of JSON holding one base64 run that decodes to no picture.
func base64Payload(n int, seed int64) string {
	r := rand.New(rand.NewPCG(uint64(seed), 0xb64))
	head, tail := `{"name":"model.bin","encoding":"base64","blob":"`, `"}`
	chars := max(0, n-len(head)-len(tail))
	raw := make([]byte, chars*3/4+3)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	raw[0] = 'x' // no picture signature starts with x
	return head + base64.StdEncoding.EncodeToString(raw)[:chars] + tail
}

// jsonPayload is about n bytes of ordinary JSON: search results made from seeded words.
func jsonPayload(n int, seed int64) string {
	r := rand.New(rand.NewPCG(uint64(seed), 0x150))
	words := strings.Fields("quarterly report revenue northern region costs product line growth table breakdown " +
		"customer order shipping invoice total margin forecast budget review summary detail analysis")
	phrase := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := 0; b.Len() < n-2; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"title":%q,"link":"https://example.com/reports/%d/%s","snippet":%q,"score":%.4f}`,
			phrase(5), 2000+r.IntN(30), strings.ReplaceAll(phrase(2), " ", "-"), phrase(18), r.Float64())
	}
	b.WriteString(`]}`)
	s := b.String()
	if len(s) > n && n > 0 {
		// Keep it valid-looking but exact in size: trim inside the last record's snippet.
		s = s[:n]
	}
	return s
}

// corpusPayloads lists the tool messages of a corpus (the embedded samples when paths is
// empty), each with the texts the server scans.
func corpusPayloads(ctx context.Context, paths []string, notes io.Writer) ([]benchPayload, *run.LoadResult, error) {
	var out []benchPayload
	seen := map[string]int{}
	load, err := run.Load(ctx, paths, "", notes, func(c *corpora.Conversation) error {
		for i := range c.Messages {
			m := &c.Messages[i]
			if m.Role != corpora.RoleTool {
				continue
			}
			texts := toolTexts(m)
			if len(texts) == 0 {
				continue
			}
			name := fsutil.SafeName(filepath.Base(c.Source.File)) + "_m" + strconv.Itoa(i)
			seen[name]++
			if k := seen[name]; k > 1 {
				name += "_" + strconv.Itoa(k)
			}
			out = append(out, benchPayload{name: name, class: "corpus", texts: texts})
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, load, nil
}

// toolTexts are the texts of a tool message that the server-side lift scans.
func toolTexts(m *corpora.Message) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case corpora.PartText:
			add(p.Text)
		case corpora.PartToolResult:
			tr := p.ToolResult
			switch {
			case tr == nil:
			case tr.MCP != nil && !replay.HasPictureBlocks(tr.MCP):
				add(replay.RenderMCPLegacy(tr.MCP, replay.Settings{}, replay.MCPRenderOptions{ToolName: tr.Name}).Text())
			case tr.MCP != nil:
				// Picture blocks take the structured path: no text is scanned.
			case tr.Parts != nil:
				for _, q := range tr.Parts {
					if q.Kind == corpora.PartText {
						add(q.Text)
					}
				}
			default:
				add(tr.Text)
			}
		}
	}
	return out
}

// bencher times ops with an injectable clock and allocation counter.
type bencher struct {
	clock    func() time.Time
	memStats func() (uint64, uint64)
	bt       benchtime
	warmup   int
	count    int
	sink     uint64
}

// scanOp is what the server does per tool message: one Lifter, Plan and decode of each text.
func scanOp(texts []string) (pictures, lifted int, err error) {
	l := replay.NewLifter(replay.Settings{})
	for _, t := range texts {
		plan := l.Plan(t)
		if err := plan.Decode(t); err != nil {
			return 0, 0, err
		}
		pictures += len(plan.Pictures)
	}
	return pictures, l.Lifted(), nil
}

// readOp reads every byte of the texts: the bandwidth reference. strings.Count of one byte
// is the runtime's vectorised loop over the whole buffer, as fast as the machine reads memory.
func readOp(texts []string) uint64 {
	var n uint64
	for _, s := range texts {
		n += uint64(strings.Count(s, "\x00"))
	}
	return n
}

// timed runs op n times and returns the elapsed time and the allocations.
func (b *bencher) timed(op func(), n int64) (time.Duration, uint64, uint64) {
	m0, a0 := b.memStats()
	start := b.clock()
	for i := int64(0); i < n; i++ {
		op()
	}
	elapsed := b.clock().Sub(start)
	m1, a1 := b.memStats()
	return elapsed, m1 - m0, a1 - a0
}

// calibrate finds the number of ops one run takes to reach the benchtime.
func (b *bencher) calibrate(op func()) int64 {
	if b.bt.n > 0 {
		return b.bt.n
	}
	n := int64(1)
	for {
		d, _, _ := b.timed(op, n)
		if d >= b.bt.d || n >= 1e9 {
			return n
		}
		next := int64(1.2 * float64(n) * float64(b.bt.d) / math.Max(1, float64(d)))
		n = min(max(next, n+1), 100*n, 1e9)
	}
}

func (b *bencher) measure(p benchPayload) (results.BenchPayload, error) {
	out := results.BenchPayload{Name: p.name, Class: p.class, Bytes: p.bytes()}
	var opErr error
	pictures, lifted, err := scanOp(p.texts)
	if err != nil {
		return out, fmt.Errorf("bench %s: %w", p.name, err)
	}
	out.Pictures, out.Lifted = pictures, lifted
	scan := func() {
		if _, _, err := scanOp(p.texts); err != nil && opErr == nil {
			opErr = err
		}
	}
	read := func() { b.sink += readOp(p.texts) }
	for i := 0; i < b.warmup; i++ {
		scan()
		read()
	}
	nScan, nRead := b.calibrate(scan), b.calibrate(read)
	for i := 0; i < b.count; i++ {
		d, mallocs, bytes := b.timed(scan, nScan)
		out.Runs = append(out.Runs, benchRun(d, mallocs, bytes, nScan))
		d, mallocs, bytes = b.timed(read, nRead)
		out.Read = append(out.Read, benchRun(d, mallocs, bytes, nRead))
	}
	if opErr != nil {
		return out, fmt.Errorf("bench %s: %w", p.name, opErr)
	}
	out.Summarize()
	return out, nil
}

func benchRun(d time.Duration, mallocs, bytes uint64, n int64) results.BenchRun {
	return results.BenchRun{N: n, NsPerOp: float64(d.Nanoseconds()) / float64(n),
		AllocsPerOp: int64(mallocs) / n, BytesPerOp: int64(bytes) / n}
}
