// Package scanbench times the scan and lift of tool messages (what `bench scan` reports):
// payloads generated from a seed or taken from a corpus, a calibrated number of ops per run,
// and beside each run a plain read of the same bytes as the bandwidth reference.
package scanbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run"
)

// Config is what one benchmark measures and how.
type Config struct {
	// ToolVersion is recorded in the report.
	ToolVersion string
	// Sizes override the payload sizes, as CLASS=SIZE (png=2MB, base64=2MB, json=2MB, small=20KB).
	Sizes []string
	Seed  int64
	// Corpus benches the tool messages of these files instead of generated payloads;
	// SampleCorpus those of the embedded sample corpus.
	Corpus       []string
	SampleCorpus bool
	// Count is the number of runs per payload, Benchtime the length of one ("100ms" or "50x"),
	// Warmup the untimed ops before them.
	Count     int
	Benchtime string
	Warmup    int
	// PayloadDir, when set, receives the text of every payload before it is timed
	// (WritePayloads), so that another implementation can be timed on the same bytes.
	PayloadDir string
	// Notes receives the notes of loading a corpus.
	Notes io.Writer
	// Clock and MemStats are the time and the allocation counters (nil: the runtime's);
	// tests inject fakes.
	Clock    func() time.Time
	MemStats func() (mallocs, bytes uint64)
}

// Operation and Reference say in the report what one op of the scan and of the reference is.
const (
	Operation = "replay.NewLifter(defaults).Plan(text) and the decode of every lifted picture into a buffer kept from message to message, per tool message"
	Reference = "strings.Count(text, \"\\x00\"): a vectorised read of every byte of the same text"
)

// ErrNoPayloads says that the corpus has no tool message with text to bench.
var ErrNoPayloads = fmt.Errorf("no tool message with text to bench")

// Payloads are the payloads cfg names: generated from its sizes and seed, or the tool
// messages of its corpus. The load result is nil for generated payloads; its problems are the
// corpus files that could not be read (the others are benched).
func Payloads(ctx context.Context, cfg Config) ([]Payload, *run.LoadResult, error) {
	if len(cfg.Corpus) == 0 && !cfg.SampleCorpus {
		ps, err := GeneratedPayloads(cfg.Sizes, cfg.Seed)
		return ps, nil, err
	}
	if len(cfg.Sizes) > 0 {
		return nil, nil, usageErrorf("--size applies to generated payloads, not to --corpus")
	}
	paths := cfg.Corpus
	if cfg.SampleCorpus {
		paths = nil
	}
	return CorpusPayloads(ctx, paths, cfg.Notes)
}

// Run benches the payloads of cfg. With a corpus, the load result lists the files that could
// not be read (the report holds the others). A bad setting is a *run.UsageError; a corpus
// without tool text is ErrNoPayloads.
func Run(ctx context.Context, cfg Config) (*results.BenchReport, *run.LoadResult, error) {
	if cfg.Count < 1 {
		return nil, nil, usageErrorf("--count must be at least 1")
	}
	if cfg.Warmup < 0 {
		return nil, nil, usageErrorf("--warmup must not be negative")
	}
	bt, err := parseBenchtime(cfg.Benchtime)
	if err != nil {
		return nil, nil, err
	}
	payloads, load, err := Payloads(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	report := &results.BenchReport{Schema: results.BenchSchema, Config: results.BenchConfig{
		ToolVersion: cfg.ToolVersion, GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		CPUs: runtime.GOMAXPROCS(0), Seed: cfg.Seed, Count: cfg.Count, Benchtime: cfg.Benchtime, Warmup: cfg.Warmup,
		Operation: Operation, Reference: Reference,
	}}
	switch {
	case cfg.SampleCorpus:
		report.Config.Corpus = "(embedded sample corpus)"
	case len(cfg.Corpus) > 0:
		report.Config.Corpus = strings.Join(cfg.Corpus, ",")
	}
	if len(payloads) == 0 {
		return nil, load, ErrNoPayloads
	}
	if cfg.PayloadDir != "" {
		if _, err := WritePayloads(cfg.PayloadDir, payloads); err != nil {
			return nil, load, err
		}
	}
	b := &bencher{clock: cfg.Clock, memStats: cfg.MemStats, bt: bt, warmup: cfg.Warmup, count: cfg.Count}
	if b.clock == nil {
		b.clock = time.Now
	}
	if b.memStats == nil {
		b.memStats = readMemStats
	}
	for _, p := range payloads {
		if err := ctx.Err(); err != nil {
			return nil, load, err
		}
		bp, err := b.measure(p)
		if err != nil {
			return nil, load, err
		}
		report.Payloads = append(report.Payloads, bp)
	}
	return report, load, nil
}

// usageErrorf returns a *run.UsageError.
func usageErrorf(format string, args ...any) error {
	return &run.UsageError{Err: fmt.Errorf(format, args...)}
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

func readMemStats() (uint64, uint64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs, m.TotalAlloc
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

// Scanner does what the server does per tool message: one Lifter, then Plan and the decode of
// the lifted pictures of each text, into one buffer kept from message to message as a server's
// worker keeps it (the decoded bytes live until the encoder has read them).
type Scanner struct{ buf []byte }

// Scan scans and lifts the texts of one tool message.
func (s *Scanner) Scan(texts []string) (pictures, lifted int, err error) {
	l := replay.NewLifter(replay.Settings{})
	for _, t := range texts {
		plan := l.Plan(t)
		if s.buf, err = plan.DecodeInto(t, s.buf); err != nil {
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

func (b *bencher) measure(p Payload) (results.BenchPayload, error) {
	out := results.BenchPayload{Name: p.Name, Class: p.Class, Bytes: p.Bytes()}
	var opErr error
	var sc Scanner
	pictures, lifted, err := sc.Scan(p.Texts)
	if err != nil {
		return out, fmt.Errorf("bench %s: %w", p.Name, err)
	}
	out.Pictures, out.Lifted = pictures, lifted
	scan := func() {
		if _, _, err := sc.Scan(p.Texts); err != nil && opErr == nil {
			opErr = err
		}
	}
	read := func() { b.sink += readOp(p.Texts) }
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
		return out, fmt.Errorf("bench %s: %w", p.Name, opErr)
	}
	out.Summarize()
	return out, nil
}

func benchRun(d time.Duration, mallocs, bytes uint64, n int64) results.BenchRun {
	return results.BenchRun{N: n, NsPerOp: float64(d.Nanoseconds()) / float64(n),
		AllocsPerOp: int64(mallocs) / n, BytesPerOp: int64(bytes) / n}
}
