package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
	"github.com/strata-eval/strata-eval/results"
)

// BenchmarkReplayScale replays a generated corpus offline (STRATA_SCALE_BYTES, default 32 MB;
// STRATA_SCALE_JOBS workers, default 2). `make bench-scale` measures the 1 GB run through the
// binary instead, for peak RSS.
func BenchmarkReplayScale(b *testing.B) {
	size := int64(32 << 20)
	if s, err := strconv.ParseInt(os.Getenv("STRATA_SCALE_BYTES"), 10, 64); err == nil && s > 0 {
		size = s
	}
	jobs := "2"
	if j := os.Getenv("STRATA_SCALE_JOBS"); j != "" {
		jobs = j
	}
	dir := os.Getenv("STRATA_SCALE_DIR") // a corpus generated beforehand, to profile the replay alone
	if dir == "" {
		dir = b.TempDir()
		if _, err := gencorpus.Generate(context.Background(), dir, gencorpus.Config{Seed: 1, TotalBytes: size}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(dirBytes(b, dir))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		streams := &IOStreams{In: nil, Out: io.Discard, ErrOut: io.Discard}
		if code := Run(context.Background(), []string{"replay", "-j", jobs, "--format", "csv", dir}, streams); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// dirBytes is the size of the regular files under dir.
func dirBytes(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// sameResults fails the test when two reports differ in anything but timings and the flags
// that name where they were written.
func sameResults(t *testing.T, got, want *results.Report) {
	t.Helper()
	if len(want.Cases) == 0 {
		t.Fatal("the reference run has no cases")
	}
	if !reflect.DeepEqual(got.Cases, want.Cases) {
		t.Errorf("cases differ: got %d, want %d", len(got.Cases), len(want.Cases))
		for i := range min(len(got.Cases), len(want.Cases)) {
			if !reflect.DeepEqual(got.Cases[i], want.Cases[i]) {
				t.Errorf("first difference at case %d: got %s, want %s", i, got.Cases[i].ID, want.Cases[i].ID)
				break
			}
		}
	}
	if !reflect.DeepEqual(got.Summary, want.Summary) {
		t.Errorf("summary differs:\n got %+v\nwant %+v", got.Summary, want.Summary)
	}
	if !reflect.DeepEqual(got.Problems, want.Problems) {
		t.Errorf("problems differ:\n got %+v\nwant %+v", got.Problems, want.Problems)
	}
	if !reflect.DeepEqual(got.Config.Inputs, want.Config.Inputs) {
		t.Errorf("inputs differ:\n got %+v\nwant %+v", got.Config.Inputs, want.Config.Inputs)
	}
}

func TestShardsMergeEqualSingleRun(t *testing.T) {
	tmp := t.TempDir()
	single := filepath.Join(tmp, "single")
	if code, _, stderr := runCLI(t, "replay", "--turns", "all", "--format", "csv", "--out", single); code != ExitOK {
		t.Fatalf("single run: exit %d: %s", code, stderr)
	}
	var shards []string
	for i := 0; i < 4; i++ {
		dir := filepath.Join(tmp, fmt.Sprintf("shard-%d", i))
		if code, _, stderr := runCLI(t, "replay", "--turns", "all", "--format", "csv", "--shard", fmt.Sprintf("%d/4", i), "--out", dir); code != ExitOK {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		shards = append(shards, dir)
	}
	want := readReport(t, single)
	var inShards int
	for _, s := range shards {
		n := len(readReport(t, s).Cases)
		if n == len(want.Cases) {
			t.Fatalf("shard %s holds every case: the split does nothing", s)
		}
		inShards += n
	}
	if inShards != len(want.Cases) {
		t.Fatalf("the shards hold %d cases, the single run %d", inShards, len(want.Cases))
	}
	merged := filepath.Join(tmp, "merged")
	// Shards given in another order merge to the same result.
	code, stdout, stderr := runCLI(t, "results", "merge", "-o", merged, "--format", "markdown", shards[2], shards[0], shards[3], filepath.Join(shards[1], "results.json"))
	if code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	got := readReport(t, merged)
	sameResults(t, got, want)
	if got.Config.Shard != "" {
		t.Errorf("merged report names shard %q", got.Config.Shard)
	}
	for _, name := range []string{"results.md", "results.csv", "report.html"} {
		if _, err := os.Stat(filepath.Join(merged, name)); err != nil {
			t.Errorf("merge did not write %s: %v", name, err)
		}
	}
	if !strings.Contains(stdout, "| before |") && !strings.Contains(stdout, "before") {
		t.Errorf("merge printed no summary table:\n%s", stdout)
	}

	// A missing shard fails the merge unless --partial.
	code, _, stderr = runCLI(t, "results", "merge", "-o", filepath.Join(tmp, "partial"), shards[0], shards[1], shards[3])
	if code != ExitError || !strings.Contains(stderr, "2/4") {
		t.Errorf("merge without shard 2: exit %d, stderr %q; want exit 1 naming 2/4", code, stderr)
	}
	if code, _, stderr = runCLI(t, "results", "merge", "--partial", "-o", filepath.Join(tmp, "partial"), shards[0], shards[1], shards[3]); code != ExitOK {
		t.Errorf("merge --partial: exit %d: %s", code, stderr)
	}
	// Usage errors.
	for _, args := range [][]string{
		{"results", "merge", shards[0]},
		{"results", "merge", "-o", merged},
	} {
		if code, _, _ := runCLI(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}

// buildBinary builds strata-eval into a temporary folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "strata-eval")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/strata-eval/strata-eval/cmd/strata-eval")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// countLines counts the whole lines of a file (0 when absent).
func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

func TestResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and replays a generated corpus")
	}
	bin := buildBinary(t)
	corpus := t.TempDir()
	st, err := gencorpus.Generate(context.Background(), corpus, gencorpus.Config{Seed: 5, TotalBytes: 12 << 20,
		FileBytes: 4 << 20, ToolMessageBytes: 160 << 10, ToolTurns: 3, Pictures: 2})
	if err != nil {
		t.Fatal(err)
	}
	args := func(out string, more ...string) []string {
		return append([]string{"replay", "-j", "1", "--turns", "all", "--format", "csv", "--out", out}, append(more, corpus)...)
	}
	full := filepath.Join(t.TempDir(), "full")
	if out, err := exec.Command(bin, args(full)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	want := readReport(t, full)
	if len(want.Cases) < 20 || len(want.Cases) != countLines(filepath.Join(full, "cases.jsonl")) {
		t.Fatalf("uninterrupted run: %d cases for %d requests", len(want.Cases), st.Requests)
	}
	for _, sig := range []os.Signal{os.Kill, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(bin, args(out)...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cases := filepath.Join(out, "cases.jsonl")
			deadline := time.Now().Add(60 * time.Second)
			for countLines(cases) < 3 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			before := countLines(cases)
			if before < 3 || before >= len(want.Cases) {
				t.Fatalf("killed with %d of %d cases written: not mid-run", before, len(want.Cases))
			}
			resume := exec.Command(bin, args(out, "--resume")...)
			var stderr bytes.Buffer
			resume.Stderr = &stderr
			if err := resume.Run(); err != nil {
				t.Fatalf("resume: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "resuming") {
				t.Errorf("resume did not say it resumed: %s", stderr.String())
			}
			got := readReport(t, out)
			sameResults(t, got, want)
			if n := countLines(cases); n != len(want.Cases) {
				t.Errorf("cases.jsonl has %d lines after resuming, want %d (no case twice)", n, len(want.Cases))
			}
			t.Logf("%v after %d of %d cases; resumed to the same results", sig, before, len(want.Cases))
		})
	}
}
