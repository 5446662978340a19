package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/gencorpus"
)

// BenchmarkHugeLine replays, in every format the readers take (a sub-benchmark each:
// BenchmarkHugeLine/openai-chat), a recording whose tool result is one JSON line carrying one
// PNG where the format puts a tool's picture (gencorpus.HugeLine; by default a 37 MB picture
// in a line of about 49 MB, HUGELINE_PICTURE_BYTES sets another size: `make bench-hugeline`
// runs it at 780 MB too, a line of about 1.04 GB), with the built binary as a child process,
// and reports its peak RSS (rusage Maxrss) and wall time per run.
func BenchmarkHugeLine(b *testing.B) {
	size := int64(37_000_000)
	if s := os.Getenv("HUGELINE_PICTURE_BYTES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			b.Fatalf("HUGELINE_PICTURE_BYTES: %v", err)
		}
		size = n
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "strata-eval")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/strata-eval/strata-eval/cmd/strata-eval").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for _, format := range gencorpus.HugeLineFormats {
		b.Run(format.Name, func(b *testing.B) {
			file := filepath.Join(dir, format.File)
			defer os.Remove(file)
			f, err := os.Create(file)
			if err != nil {
				b.Fatal(err)
			}
			n, err := gencorpus.HugeLine(f, format, size, 1)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n)
			var peak int64
			for b.Loop() {
				cmd := exec.Command(bin, "replay", "--no-timings", "--input-format", format.Name, "--format", "csv", "--out", filepath.Join(dir, "out"), file)
				// exit 3 is expected when a picture fails the check (a 1 GB picture claims too many pixels)
				if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != ExitInputs {
					b.Fatalf("replay: %v", err)
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peak = max(peak, ru.Maxrss) // kilobytes on Linux
				}
			}
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
			b.ReportMetric(float64(n)/1e6, "line-MB")
		})
	}
}
