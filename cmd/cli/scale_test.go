package cli

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/strata-eval/strata-eval/internal/gencorpus"
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
