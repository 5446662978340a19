package replay

import (
	"context"
	"encoding/base64"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// hostileBudget runs f and fails the test when it takes longer than d or allocates more than
// maxAlloc bytes: hostile input must be refused (or handled) in bounded time and memory.
func hostileBudget(t *testing.T, d time.Duration, maxAlloc uint64, f func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if elapsed > d {
		t.Errorf("took %v, budget %v", elapsed, d)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
		t.Errorf("allocated %d MB, budget %d MB", alloc>>20, maxAlloc>>20)
	}
}

func TestHostilePictures(t *testing.T) {
	valid := map[string][]byte{
		"png": testimages.PNG(64, 48, 1), "jpeg": testimages.JPEG(64, 48, 2), "gif": testimages.GIF(64, 48, 3),
		"bmp": testimages.BMP(64, 48, 4), "webp": testimages.WebP(64, 48, 5),
	}
	tests := []struct {
		name string
		data []byte
		// wantErr: the picture must be refused; otherwise an error or a result are both fine.
		wantErr bool
	}{
		{"png claims 100000x100000", testimages.ClaimingPNG(100000, 100000), true},
		{"jpeg claims 65500x65500", testimages.ClaimingJPEG(65500, 65500), true},
		{"gif claims 65535x65535", testimages.ClaimingGIF(65535, 65535), true},
		{"bmp claims 100000x100000", testimages.ClaimingBMP(100000, 100000), true},
		{"bmp claims 100000x-100000 (top-down)", testimages.ClaimingBMP(100000, -100000), true},
		{"webp claims 100000x100000", testimages.ClaimingWebP(100000, 100000), true},
		{"animated gif of 3000 frames", testimages.AnimatedGIF(4, 4, 6, make([]string, 3000)), false},
		{"empty", nil, true},
	}
	for name, b := range valid {
		for _, cut := range []int{1, 8, 16, 30, len(b) / 2, len(b) - 1} {
			if cut < len(b) {
				tests = append(tests, struct {
					name    string
					data    []byte
					wantErr bool
				}{name + " truncated at " + strconv.Itoa(cut), b[:cut], false})
			}
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			hostileBudget(t, 5*time.Second, 256<<20, func() {
				_, err = PreparePicture(context.Background(), tt.data, PrepareOptions{})
				_, _, _ = ImageHeaderSize(tt.data)
			})
			if tt.wantErr && err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestHostileToolText(t *testing.T) {
	png := testimages.PNG(40, 30, 7)
	b64 := base64.StdEncoding.EncodeToString(png)
	big := base64.StdEncoding.EncodeToString(testimages.PNG(400, 300, 8, testimages.WithGrain(60)))
	wrapped := func(s string, n int, sep string) string {
		var b strings.Builder
		for len(s) > n {
			b.WriteString(s[:n] + sep)
			s = s[n:]
		}
		return b.String() + s
	}
	tests := []struct {
		name     string
		text     string
		minLifts int // pictures that must be lifted
		maxLifts int
	}{
		{"clean picture", "shot: " + big + " done", 1, 1},
		{"NUL bytes around a picture", "\x00\x00" + big + "\x00", 1, 1},
		{"invalid UTF-8 around a picture", "\xff\xfe\xc3(" + big + "\xed\xa0\x80", 1, 1},
		{"truncated base64", big[:len(big)-5], 0, 1},
		{"base64 cut to length 4k+1", big[:len(big)/4*4-3], 0, 1},
		{"base64 with line breaks every 76", wrapped(big, 76, "\n"), 0, 1},
		{"base64 with CRLF every 64", wrapped(big, 64, "\r\n"), 0, 1},
		{"base64 with spaces", wrapped(big, 100, " "), 0, 1},
		{"small picture under min run", b64, 0, 1},
		{"only NUL bytes", strings.Repeat("\x00", 1<<20), 0, 0},
		{"only invalid UTF-8", strings.Repeat("\xff", 1<<20), 0, 0},
		{"4 MiB of one base64 letter", strings.Repeat("A", 4<<20), 0, 0},
		{"many short runs", strings.Repeat("QUJD/+== ", 200000), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lift TextLift
			var err error
			hostileBudget(t, 5*time.Second, 512<<20, func() {
				lift, err = NewLifter(Settings{}).Lift(tt.text)
			})
			if err != nil {
				t.Fatalf("Lift: %v", err)
			}
			n := len(lift.Images())
			if n < tt.minLifts || n > tt.maxLifts {
				t.Errorf("%d pictures lifted, want %d..%d", n, tt.minLifts, tt.maxLifts)
			}
			for _, img := range lift.Images() {
				if SniffImage(img.Data) == "" {
					t.Errorf("lifted bytes are not a picture: % x", img.Data[:min(8, len(img.Data))])
				}
			}
		})
	}
}
