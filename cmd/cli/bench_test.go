package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// fakeClock advances by step at every reading, so a run of n ops lasts step whatever n is.
func fakeClock(step time.Duration) func() time.Time {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	return func() time.Time { now = now.Add(step); return now }
}

// fakeMem counts 5 allocations of 4,096 bytes between two readings.
func fakeMem() func() (uint64, uint64) {
	var m, b uint64
	return func() (uint64, uint64) { m += 5; b += 5 * 4096; return m, b }
}

func runBenchFake(t *testing.T, opts BenchScanOptions) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	opts.IO = &IOStreams{Out: &out, ErrOut: &errOut}
	opts.clock, opts.memStats = fakeClock(time.Millisecond), fakeMem()
	if opts.Benchtime == "" {
		opts.Benchtime = "10x"
	}
	err := runBenchScan(context.Background(), &opts)
	return out.String(), errOut.String(), err
}

// TestBenchScanGolden benches the tool messages of the sample corpus and small generated
// payloads with a fake clock: the golden files hold the payloads, their sizes, the pictures
// found and the layout of the table and of the Go benchmark lines.
func TestBenchScanGolden(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   BenchScanOptions
		golden string
	}{
		{"sample corpus", BenchScanOptions{SampleCorpus: true, Count: 2, Format: "table"}, "bench_corpus.txt"},
		{"generated gobench", BenchScanOptions{Sizes: []string{"png=120KB", "base64=50KB", "json=50KB", "small=2KB"}, Seed: 7, Count: 3, Format: "gobench"}, "bench_generated.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runBenchFake(t, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			out = strings.NewReplacer("goarch: "+goarch(), "goarch: ARCH", "goos: "+goos(), "goos: OS").Replace(out)
			out = cpuSuffix.ReplaceAllString(out, "$1\t")
			golden(t, tt.golden, []byte(out))
		})
	}
}

func TestBenchScanReport(t *testing.T) {
	out, _, err := runBenchFake(t, BenchScanOptions{Sizes: []string{"png=120KB", "base64=50KB", "json=50KB", "small=2KB"}, Seed: 7, Count: 3, Format: "json", Benchtime: "4x"})
	if err != nil {
		t.Fatal(err)
	}
	var r results.BenchReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Schema != results.BenchSchema || r.Config.Seed != 7 || r.Config.Count != 3 {
		t.Fatalf("config %+v", r.Config)
	}
	want := []struct {
		name            string
		minB, maxB      int64
		pictures, lifed int
	}{
		{"png_120KB", 119_000, 120_000, 1, 1},
		{"base64_50KB", 50_000, 50_000, 0, 0},
		{"json_50KB", 50_000, 50_000, 0, 0},
		{"small_2KB", 2_000, 2_000, 0, 0},
	}
	if len(r.Payloads) != len(want) {
		t.Fatalf("%d payloads", len(r.Payloads))
	}
	for i, w := range want {
		p := r.Payloads[i]
		if p.Name != w.name || p.Bytes < w.minB || p.Bytes > w.maxB || p.Pictures != w.pictures || p.Lifted != w.lifed {
			t.Errorf("payload %d = %s %d bytes %d pictures %d lifted; want %+v", i, p.Name, p.Bytes, p.Pictures, p.Lifted, w)
		}
		// The fake clock makes every run of 4 ops last 1ms: 250µs/op for scan and read alike.
		if len(p.Runs) != 3 || len(p.Read) != 3 || p.Scan.MedianNs != 250_000 || p.ReadStats.MedianNs != 250_000 || p.ScanOverRead != 1 {
			t.Errorf("%s: runs %d/%d, median %v/%v, scan/read %v", p.Name, len(p.Runs), len(p.Read), p.Scan.MedianNs, p.ReadStats.MedianNs, p.ScanOverRead)
		}
		// 5 allocations of 4 KiB per run of 4 ops: 1 alloc and 5,120 B per op.
		if p.Scan.AllocsPerOp != 1 || p.Scan.BytesPerOp != 5120 {
			t.Errorf("%s: %d allocs/op, %d B/op", p.Name, p.Scan.AllocsPerOp, p.Scan.BytesPerOp)
		}
	}
}

func TestBenchPayloadsAreReproducible(t *testing.T) {
	a, err := generatedPayloads([]string{"png=60KB", "base64=10KB", "json=10KB", "small=1KB"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := generatedPayloads([]string{"png=60KB", "base64=10KB", "json=10KB", "small=1KB"}, 3)
	c, _ := generatedPayloads([]string{"png=60KB", "base64=10KB", "json=10KB", "small=1KB"}, 4)
	for i := range a {
		if a[i].texts[0] != b[i].texts[0] {
			t.Errorf("%s differs between two runs with the same seed", a[i].name)
		}
		if a[i].texts[0] == c[i].texts[0] {
			t.Errorf("%s is the same under another seed", a[i].name)
		}
	}
	png := a[0].texts[0]
	if !strings.HasPrefix(png, `[{"type":"text","text":"Captured`) || !strings.Contains(png, `{"type":"image-data","data":"iVBORw0KGgo`) {
		t.Errorf("png payload is not the Chatbox stringified shape: %.120s", png)
	}
	plan := replay.NewLifter(replay.Settings{}).Plan(png)
	if len(plan.Pictures) != 1 || plan.Pictures[0].Outcome != replay.OutcomeLifted || plan.Pictures[0].Type != "image/png" {
		t.Errorf("png payload: %+v", plan.Pictures)
	}
	for _, p := range a[1:] {
		if n := len(replay.NewLifter(replay.Settings{}).Plan(p.texts[0]).Pictures); n != 0 {
			t.Errorf("%s: %d pictures, want none", p.name, n)
		}
	}
}

func TestBenchScanUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		opts BenchScanOptions
		want string
	}{
		{"bad class", BenchScanOptions{Sizes: []string{"gif=1MB"}, Count: 1, Format: "table"}, "CLASS one of png, base64, json, small"},
		{"bad size", BenchScanOptions{Sizes: []string{"json=lots"}, Count: 1, Format: "table"}, `size "lots"`},
		{"png too small", BenchScanOptions{Sizes: []string{"png=200B"}, Count: 1, Format: "table"}, "too small for a picture"},
		{"bad benchtime", BenchScanOptions{Count: 1, Format: "table", Benchtime: "fast"}, `--benchtime "fast"`},
		{"zero count", BenchScanOptions{Count: 0, Format: "table"}, "--count must be at least 1"},
		{"bad format", BenchScanOptions{Count: 1, Format: "csv"}, "--format must be table, gobench or json"},
		{"size with corpus", BenchScanOptions{Count: 1, Format: "table", SampleCorpus: true, Sizes: []string{"png=1MB"}}, "--size applies to generated payloads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runBenchFake(t, tt.opts)
			if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v (exit %d), want a usage error with %q", err, exitCode(err), tt.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{{"2MB", 2_000_000}, {"20KB", 20_000}, {"1500B", 1500}, {"123", 123}, {"1.5MB", 1_500_000}, {"1MiB", 1 << 20}} {
		got, err := parseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "-1KB", "MB", "3GB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

// BenchmarkScanOp is the op of bench scan on the headline-sized payload, for go test -bench.
func BenchmarkScanOp(b *testing.B) {
	ps, err := generatedPayloads(nil, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range ps {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(p.bytes())
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := scanOp(p.texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var cpuSuffix = regexp.MustCompile(`(Benchmark\S+?)-\d+\t`)

func goos() string   { return runtime.GOOS }
func goarch() string { return runtime.GOARCH }
