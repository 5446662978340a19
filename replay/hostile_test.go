package replay

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testimages"
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

func claimingJPEG(w, h uint16) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1}
	binary.BigEndian.PutUint16(b[7:], h)
	binary.BigEndian.PutUint16(b[9:], w)
	return append(b, 0xFF, 0xD9)
}

func claimingGIF(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	b = append(b, 0x00, 0, 0)                               // no global colour table
	b = append(b, 0x2C, 0, 0, 0, 0)                         // image descriptor at 0,0
	b = binary.LittleEndian.AppendUint16(b, w)              // frame as large as the screen
	b = binary.LittleEndian.AppendUint16(b, h)              //
	b = append(b, 0x80, 0, 0, 0, 0, 0, 2, 2, 0x4C, 0x01, 0) // local table, tiny LZW data
	return append(b, 0x3B)
}

func claimingBMP(w, h int32) []byte {
	b := make([]byte, 54)
	copy(b, "BM")
	binary.LittleEndian.PutUint32(b[2:], 54+16)
	binary.LittleEndian.PutUint32(b[10:], 54)
	binary.LittleEndian.PutUint32(b[14:], 40)
	binary.LittleEndian.PutUint32(b[18:], uint32(w))
	binary.LittleEndian.PutUint32(b[22:], uint32(h))
	binary.LittleEndian.PutUint16(b[26:], 1)
	binary.LittleEndian.PutUint16(b[28:], 24)
	return append(b, make([]byte, 16)...)
}

func claimingWebP(w, h int) []byte {
	vp8x := make([]byte, 10)
	put24 := func(b []byte, v int) { b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16) }
	put24(vp8x[4:], w-1)
	put24(vp8x[7:], h-1)
	var b []byte
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(4+8+len(vp8x)))
	b = append(b, "WEBPVP8X"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vp8x)))
	return append(b, vp8x...)
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
		{"png claims 100000x100000", claimingPNG(100000, 100000), true},
		{"jpeg claims 65500x65500", claimingJPEG(65500, 65500), true},
		{"gif claims 65535x65535", claimingGIF(65535, 65535), true},
		{"bmp claims 100000x100000", claimingBMP(100000, 100000), true},
		{"bmp claims 100000x-100000 (top-down)", claimingBMP(100000, -100000), true},
		{"webp claims 100000x100000", claimingWebP(100000, 100000), true},
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
