package cli

import (
	"bytes"
	"context"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/run/scanbench"
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
	opts.Clock, opts.MemStats = fakeClock(time.Millisecond), fakeMem()
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
		{"sample corpus", BenchScanOptions{Config: scanbench.Config{SampleCorpus: true, Count: 2}, Format: "table"}, "bench_corpus.txt"},
		{"generated gobench", BenchScanOptions{Config: scanbench.Config{Sizes: []string{"png=120KB", "base64=50KB", "json=50KB", "small=2KB"}, Seed: 7, Count: 3}, Format: "gobench"}, "bench_generated.txt"},
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

func TestBenchScanUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		opts BenchScanOptions
		want string
	}{
		{"bad format", BenchScanOptions{Config: scanbench.Config{Count: 1}, Format: "csv"}, "--format must be table, gobench or json"},
		// The settings scanbench refuses (its tests hold every case) exit as usage errors.
		{"bad class", BenchScanOptions{Config: scanbench.Config{Sizes: []string{"gif=1MB"}, Count: 1}, Format: "table"}, "CLASS one of png, base64, json, small"},
		{"png too small", BenchScanOptions{Config: scanbench.Config{Sizes: []string{"png=200B"}, Count: 1}, Format: "table"}, "too small for a picture"},
		{"zero count", BenchScanOptions{Config: scanbench.Config{Count: 0}, Format: "table"}, "--count must be at least 1"},
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

var cpuSuffix = regexp.MustCompile(`(Benchmark\S+?)-\d+\t`)

func goos() string   { return runtime.GOOS }
func goarch() string { return runtime.GOARCH }
