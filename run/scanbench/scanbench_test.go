package scanbench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
	"github.com/strata-eval/strata-eval/run"
)

// fakeCounters are a clock that advances by 1ms at every reading (a run of n ops lasts 1ms
// whatever n is) and a counter of 5 allocations of 4,096 bytes between two readings.
func fakeCounters(cfg *Config) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	cfg.Clock = func() time.Time { now = now.Add(time.Millisecond); return now }
	var m, b uint64
	cfg.MemStats = func() (uint64, uint64) { m += 5; b += 5 * 4096; return m, b }
}

func TestRunReport(t *testing.T) {
	cfg := Config{Sizes: []string{"png=120KB", "base64=50KB", "json=50KB", "small=2KB"}, Seed: 7, Count: 3, Benchtime: "4x"}
	fakeCounters(&cfg)
	r, load, err := Run(context.Background(), cfg)
	if err != nil || load != nil {
		t.Fatal(err, load)
	}
	if r.Schema != results.BenchSchema || r.Config.Seed != 7 || r.Config.Count != 3 || r.Config.Operation != Operation {
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

// TestCalibrate: with a duration as benchtime, a run takes as many ops as fill it (a little
// more, as go test does), and a fixed count is taken as it is.
func TestCalibrate(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	op := func() { now = now.Add(time.Millisecond) } // each op lasts 1ms on the clock
	b := &bencher{clock: func() time.Time { return now }, memStats: func() (uint64, uint64) { return 0, 0 }}
	b.bt = benchtime{d: 10 * time.Millisecond}
	if n := b.calibrate(op); n < 10 || n > 20 {
		t.Errorf("%d ops per run of 10ms at 1ms per op", n)
	}
	b.bt = benchtime{n: 7}
	if n := b.calibrate(op); n != 7 {
		t.Errorf("%d ops per run of 7x", n)
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"bad class", Config{Sizes: []string{"gif=1MB"}, Count: 1, Benchtime: "1x"}, "CLASS one of png, base64, json, small"},
		{"bad benchtime", Config{Count: 1, Benchtime: "fast"}, `--benchtime "fast"`},
		{"zero count", Config{Count: 0, Benchtime: "1x"}, "--count must be at least 1"},
		{"negative warmup", Config{Count: 1, Warmup: -1, Benchtime: "1x"}, "--warmup must not be negative"},
		{"size with corpus", Config{Count: 1, Benchtime: "1x", SampleCorpus: true, Sizes: []string{"png=1MB"}}, "--size applies to generated payloads"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Run(context.Background(), tt.cfg)
			var usage *run.UsageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a usage error with %q", err, tt.want)
			}
		})
	}
}

// TestWritePayloads: the files hold the payloads' texts byte for byte, so another
// implementation times the same bytes.
func TestWritePayloads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "payloads")
	cfg := Config{Sizes: []string{"png=30KB", "base64=3KB", "json=3KB", "small=1KB"}, Seed: 5, Count: 1, Benchtime: "1x", PayloadDir: dir}
	if _, _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	ps, err := GeneratedPayloads(cfg.Sizes, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		got, err := os.ReadFile(filepath.Join(dir, p.Name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != p.Texts[0] {
			t.Errorf("%s.txt: %d bytes, not the payload's %d", p.Name, len(got), len(p.Texts[0]))
		}
	}
}

func TestCorpusPayloads(t *testing.T) {
	ps, load, err := CorpusPayloads(context.Background(), nil, nil)
	if err != nil || load.Err() != nil {
		t.Fatal(err, load.Err())
	}
	found := false
	for _, p := range ps {
		if p.Class != "corpus" || strings.Contains(p.Name, " ") {
			t.Errorf("payload %q class %q", p.Name, p.Class)
		}
		if p.Name == "openai-chat-chatbox-screenshot.json_m5" && p.Bytes() == 2_038_152 {
			found = true
		}
	}
	if !found {
		t.Errorf("the sample corpus's screenshot tool message is not among %d payloads", len(ps))
	}
}

func TestPayloadsAreReproducible(t *testing.T) {
	a, err := GeneratedPayloads([]string{"png=60KB", "base64=10KB", "json=10KB", "small=1KB"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GeneratedPayloads([]string{"png=60KB", "base64=10KB", "json=10KB", "small=1KB"}, 3)
	c, _ := GeneratedPayloads([]string{"png=60KB", "base64=10KB", "json=10KB", "small=1KB"}, 4)
	for i := range a {
		if a[i].Texts[0] != b[i].Texts[0] {
			t.Errorf("%s differs between two runs with the same seed", a[i].Name)
		}
		if a[i].Texts[0] == c[i].Texts[0] {
			t.Errorf("%s is the same under another seed", a[i].Name)
		}
	}
	png := a[0].Texts[0]
	if !strings.HasPrefix(png, `[{"type":"text","text":"Captured`) || !strings.Contains(png, `{"type":"image-data","data":"iVBORw0KGgo`) {
		t.Errorf("png payload is not the Chatbox stringified shape: %.120s", png)
	}
	plan := replay.NewLifter(replay.Settings{}).Plan(png)
	if len(plan.Pictures) != 1 || plan.Pictures[0].Outcome != replay.OutcomeLifted || plan.Pictures[0].Type != "image/png" {
		t.Errorf("png payload: %+v", plan.Pictures)
	}
	for _, p := range a[1:] {
		if n := len(replay.NewLifter(replay.Settings{}).Plan(p.Texts[0]).Pictures); n != 0 {
			t.Errorf("%s: %d pictures, want none", p.Name, n)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{{"2MB", 2_000_000}, {"20KB", 20_000}, {"1500B", 1500}, {"123", 123}, {"1.5MB", 1_500_000}, {"1MiB", 1 << 20}} {
		got, err := ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "-1KB", "MB", "3GB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// BenchmarkScanOp is the op of bench scan on the default payloads, for go test -bench.
func BenchmarkScanOp(b *testing.B) {
	ps, err := GeneratedPayloads(nil, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range ps {
		b.Run(p.Name, func(b *testing.B) {
			b.SetBytes(p.Bytes())
			b.ReportAllocs()
			var sc Scanner
			for b.Loop() {
				if _, _, err := sc.Scan(p.Texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
