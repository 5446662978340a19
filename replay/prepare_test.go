package replay

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/image/bmp"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// gradientImage draws a smooth RGBA picture of w×h (compresses well, like a screenshot).
func gradientImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x*255/w), uint8(y*255/h), 128, 255
		}
	}
	return img
}

// noiseImage draws a picture that compresses badly (deterministic pseudo-random pixels).
func noiseImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	state := uint32(2463534242)
	for i := range img.Pix {
		state ^= state << 13
		state ^= state >> 17
		state ^= state << 5
		img.Pix[i] = uint8(state)
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func animatedGIF(t testing.TB, frames, w, h int) []byte {
	t.Helper()
	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{}
	for i := 0; i < frames; i++ {
		m := image.NewPaletted(image.Rect(0, 0, w, h), pal)
		m.Pix[i%len(m.Pix)] = 1
		g.Image = append(g.Image, m)
		g.Delay = append(g.Delay, 1)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPrepareDownscale3000x2000(t *testing.T) {
	data := encodePNG(t, gradientImage(3000, 2000))
	p, err := PreparePicture(context.Background(), data, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Width != 1500 || p.Height != 1000 || p.MimeType != "image/jpeg" || p.Kept {
		t.Fatalf("got %dx%d %s kept=%v, want 1500x1000 image/jpeg re-encoded", p.Width, p.Height, p.MimeType, p.Kept)
	}
	if p.DataURLLen > DefaultEmbedTargetBytes || p.DataURLLen != DataURLLen("image/jpeg", len(p.Data)) {
		t.Errorf("data URL length %d (budget %d)", p.DataURLLen, DefaultEmbedTargetBytes)
	}
	want := "Image downscaled from 3000x2000 to 1500x1000 for vision; multiply any coordinates you report by 2.00 to map back to the original image."
	if p.ScaleNote != want {
		t.Errorf("scale note\n got %q\nwant %q", p.ScaleNote, want)
	}
	if p.Quality != 85 {
		t.Errorf("quality %d, want 85 (a smooth picture fits at the first quality)", p.Quality)
	}
	got, err := jpeg.DecodeConfig(bytes.NewReader(p.Data))
	if err != nil || got.Width != 1500 || got.Height != 1000 {
		t.Errorf("prepared bytes decode to %dx%d, %v", got.Width, got.Height, err)
	}
}

func TestPrepareLadderSizes(t *testing.T) {
	// 1600×1200 → 800×600: no "exactly 1568" step.
	p, err := PreparePicture(context.Background(), encodePNG(t, gradientImage(1600, 1200)), PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Width != 800 || p.Height != 600 {
		t.Errorf("1600x1200 → %dx%d, want 800x600", p.Width, p.Height)
	}
	// Noise that fits nowhere at full size goes down the ladder until a quality fits.
	p, err = PreparePicture(context.Background(), encodePNG(t, noiseImage(1024, 768)), PrepareOptions{EmbedTargetBytes: 65536})
	if err != nil {
		t.Fatal(err)
	}
	if p.Width >= 1024 || p.DataURLLen > 65536 {
		t.Errorf("noise 1024x768 at 64 KiB → %dx%d (%d chars)", p.Width, p.Height, p.DataURLLen)
	}
	if !strings.Contains(p.ScaleNote, "from 1024x768 to ") {
		t.Errorf("scale note %q", p.ScaleNote)
	}
}

func TestHalveDims(t *testing.T) {
	tests := []struct{ w, h, nw, nh int }{
		{3000, 2000, 1500, 1000},
		{1600, 1200, 800, 600},
		{60000, 64, 60000, 64}, // the short side is on the floor: the long side is recomputed unchanged
		{200, 100, 128, 64},
		{100, 200, 64, 128},
		{129, 129, 64, 64},
		{64, 64, 64, 64},
		{3001, 1999, 1500, 999},
	}
	for _, tt := range tests {
		if nw, nh := halveDims(tt.w, tt.h); nw != tt.nw || nh != tt.nh {
			t.Errorf("halveDims(%d, %d) = %d, %d; want %d, %d", tt.w, tt.h, nw, nh, tt.nw, tt.nh)
		}
	}
}

func TestScaleNote(t *testing.T) {
	if got, want := ScaleNote(2000, 1000, 1000, 500), "Image downscaled from 2000x1000 to 1000x500 for vision; multiply any coordinates you report by 2.00 to map back to the original image."; got != want {
		t.Errorf("uniform: %q", got)
	}
	if got, want := ScaleNote(3000, 1000, 1000, 500), "Image downscaled from 3000x1000 to 1000x500 for vision; multiply any x coordinates you report by 3.00 and any y coordinates by 2.00 to map back to the original image."; got != want {
		t.Errorf("non-uniform: %q", got)
	}
	// 3001/1500 = 2.0007 and 1999/999 = 2.001 both format as 2.00: one factor.
	if got := ScaleNote(3001, 1999, 1500, 999); !strings.Contains(got, "multiply any coordinates you report by 2.00 ") {
		t.Errorf("near-uniform: %q", got)
	}
}

// TestPrepareStripRejected: a 60000×64 strip is rejected because the 64 px floor stops the
// halving (its short side is already 64, so the proportional recomputation keeps the long side
// at 60000) and the post-check refuses a long edge over 1568 px.
func TestPrepareStripRejected(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 60000, 64))
	_, err := PreparePicture(context.Background(), encodePNG(t, img), PrepareOptions{})
	if !errors.Is(err, ErrEdgeTooLong) {
		t.Fatalf("err = %v, want ErrEdgeTooLong", err)
	}
	if !strings.Contains(err.Error(), "60000x64") {
		t.Errorf("error %q does not name the size", err)
	}
}

func TestPrepareGiantHeaderNoAllocation(t *testing.T) {
	data := testimages.ClaimingPNG(100000, 100000)
	ctx := context.Background()
	if _, err := PreparePicture(ctx, data, PrepareOptions{}); !errors.Is(err, ErrTooManyPixels) {
		t.Fatalf("err = %v, want ErrTooManyPixels", err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const runs = 20
	for i := 0; i < runs; i++ {
		_, _ = PreparePicture(ctx, data, PrepareOptions{})
	}
	runtime.ReadMemStats(&after)
	perRun := (after.TotalAlloc - before.TotalAlloc) / runs
	if perRun > 16<<10 {
		t.Errorf("rejecting a 100000x100000 header allocated %d bytes per call", perRun)
	}
	allocs := testing.AllocsPerRun(10, func() { _, _ = PreparePicture(ctx, data, PrepareOptions{}) })
	if allocs > 50 {
		t.Errorf("%v allocations per rejection", allocs)
	}
	// Within the pixel limit but without the data to fill it: rejected as truncated, still
	// before allocating its pixels.
	_, err := PreparePicture(ctx, testimages.ClaimingPNG(9000, 9000), PrepareOptions{})
	if !errors.Is(err, ErrUndecodable) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("9000x9000 claim: %v", err)
	}
}

func TestPrepareFrameLimit(t *testing.T) {
	ctx := context.Background()
	_, err := PreparePicture(ctx, animatedGIF(t, 101, 4, 4), PrepareOptions{})
	if !errors.Is(err, ErrTooManyFrames) || !strings.Contains(err.Error(), "101 frames") {
		t.Fatalf("101 frames: %v", err)
	}
	p, err := PreparePicture(ctx, animatedGIF(t, 100, 4, 4), PrepareOptions{})
	if err != nil {
		t.Fatalf("100 frames: %v", err)
	}
	if !p.Kept || p.MimeType != "image/gif" || p.Frames != 100 {
		t.Errorf("a small animated GIF stays as it is: kept=%v %s frames=%d", p.Kept, p.MimeType, p.Frames)
	}
	// Aggregate pixels count every frame: 3 frames of 6000×6000 is 108,000,000 pixels.
	_, err = PreparePicture(ctx, animatedGIF(t, 3, 6000, 6000), PrepareOptions{})
	if !errors.Is(err, ErrTooManyPixels) {
		t.Errorf("3 × 6000x6000: %v", err)
	}
}

func TestPrepareKeepsOriginalBytes(t *testing.T) {
	data := encodePNG(t, gradientImage(100, 80))
	p, err := PreparePicture(context.Background(), data, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Kept || !bytes.Equal(p.Data, data) || p.MimeType != "image/png" || p.ScaleNote != "" || p.Width != 100 {
		t.Errorf("kept=%v same=%v %s note=%q", p.Kept, bytes.Equal(p.Data, data), p.MimeType, p.ScaleNote)
	}
	// JPEG within budget stays JPEG.
	jdata := encodeJPEG(t, gradientImage(640, 480))
	p, err = PreparePicture(context.Background(), jdata, PrepareOptions{})
	if err != nil || !p.Kept || !bytes.Equal(p.Data, jdata) {
		t.Errorf("JPEG: kept=%v err=%v", p != nil && p.Kept, err)
	}
}

func TestPrepareDropsAlpha(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 2000, 100))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 200, 10, 10, 0 // invisible red
	}
	p, err := PreparePicture(context.Background(), encodePNG(t, img), PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.MimeType != "image/jpeg" || p.Width != 1280 || p.Height != 64 {
		t.Fatalf("got %s %dx%d, want image/jpeg 1280x64", p.MimeType, p.Width, p.Height)
	}
	out, err := jpeg.Decode(bytes.NewReader(p.Data))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := out.At(640, 32).RGBA()
	if r>>8 < 180 || g>>8 > 40 || b>>8 > 40 {
		t.Errorf("pixel = %d,%d,%d; want about 200,10,10 (alpha dropped, colour kept, no compositing)", r>>8, g>>8, b>>8)
	}
}

func TestPrepareFormats(t *testing.T) {
	ctx := context.Background()
	var bmpBuf bytes.Buffer
	if err := bmp.Encode(&bmpBuf, gradientImage(50, 40)); err != nil {
		t.Fatal(err)
	}
	p, err := PreparePicture(ctx, bmpBuf.Bytes(), PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.SourceType != "image/bmp" || p.MimeType != "image/png" || p.Width != 50 || p.Height != 40 {
		t.Errorf("BMP: %s → %s %dx%d, want image/png 50x40", p.SourceType, p.MimeType, p.Width, p.Height)
	}
	if _, err := png.Decode(bytes.NewReader(p.Data)); err != nil {
		t.Errorf("BMP normalised bytes are not PNG: %v", err)
	}

	jdata := encodeJPEG(t, gradientImage(300, 200))
	if _, err := PreparePicture(ctx, jdata[:len(jdata)/2], PrepareOptions{}); !errors.Is(err, ErrUndecodable) {
		t.Errorf("truncated JPEG: %v", err)
	}
	if _, err := PreparePicture(ctx, []byte("<html>not a picture</html>"), PrepareOptions{}); !errors.Is(err, ErrNotPicture) {
		t.Errorf("HTML: %v", err)
	}
	heic := append([]byte{0, 0, 0, 24}, []byte("ftypheic\x00\x00\x00\x00mif1heic")...)
	if _, err := PreparePicture(ctx, heic, PrepareOptions{}); !errors.Is(err, ErrNoDecoder) {
		t.Errorf("HEIC: %v", err)
	}
	// WebP: only the signature and header path are covered here; no WebP encoder is at hand to
	// make a real file (decode tests skipped on purpose).
	if got := sniffPictureType([]byte("RIFF\x10\x00\x00\x00WEBPVP8L")); got != "image/webp" {
		t.Errorf("WebP sniff: %q", got)
	}
	// A picture whose every frame must load: a GIF truncated inside its frame data fails.
	g := animatedGIF(t, 1, 64, 64)
	if _, err := PreparePicture(ctx, g[:len(g)-6], PrepareOptions{}); err == nil {
		t.Error("truncated GIF accepted")
	}
}

func TestPrepareAttachmentsFourOfSixteen(t *testing.T) {
	good := encodePNG(t, gradientImage(32, 32))
	bad := []byte("GIF89a broken")
	pictures := make([][]byte, 20)
	for i := range pictures {
		pictures[i] = good
	}
	pictures[0], pictures[1], pictures[3] = bad, bad, bad
	out := PrepareAttachments(context.Background(), pictures, PrepareOptions{})
	var attached []int
	for i, o := range out {
		if o.Attached {
			attached = append(attached, i)
			if o.Prepared == nil || o.Err != nil {
				t.Errorf("picture %d attached without a prepared picture", i)
			}
		} else if o.Err == nil {
			t.Errorf("picture %d neither attached nor explained", i)
		}
	}
	if want := []int{2, 4, 5, 6}; !equalInts(attached, want) {
		t.Errorf("attached %v, want %v", attached, want)
	}
	if !strings.Contains(out[7].Err.Error(), "already attached") || !strings.Contains(out[17].Err.Error(), "first 16") {
		t.Errorf("reasons: %v / %v", out[7].Err, out[17].Err)
	}
	// Pictures 16..19 are never candidates, even when every earlier one fails.
	for i := 0; i < 16; i++ {
		pictures[i] = bad
	}
	out = PrepareAttachments(context.Background(), pictures, PrepareOptions{})
	for i, o := range out {
		if o.Attached {
			t.Errorf("picture %d attached; only the first 16 are candidates", i)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPrepareContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := PreparePicture(ctx, encodePNG(t, gradientImage(3000, 2000)), PrepareOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func FuzzPrepare(f *testing.F) {
	f.Add(encodePNG(f, gradientImage(20, 10)))
	f.Add(encodeJPEG(f, gradientImage(20, 10)))
	f.Add(animatedGIF(f, 3, 8, 8))
	f.Add(testimages.ClaimingPNG(5000, 5000))
	var bmpBuf bytes.Buffer
	_ = bmp.Encode(&bmpBuf, gradientImage(9, 7))
	f.Add(bmpBuf.Bytes())
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"))
	opts := PrepareOptions{MaxPixels: 1 << 22, EmbedTargetBytes: 65536}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p, err := PreparePicture(context.Background(), data, opts)
		runtime.ReadMemStats(&after)
		if used := after.TotalAlloc - before.TotalAlloc; used > 512<<20 {
			t.Fatalf("%d bytes allocated for a %d-byte input", used, len(data))
		}
		if err == nil {
			if p == nil || len(p.Data) == 0 || p.DataURLLen > 65536 || max(p.Width, p.Height) > DefaultMaxLongEdge {
				t.Fatalf("accepted picture breaks the limits: %+v", p)
			}
		}
	})
}

func BenchmarkPreparePicture3000x2000(b *testing.B) {
	data := encodePNG(b, gradientImage(3000, 2000))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := PreparePicture(context.Background(), data, PrepareOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPreparePictureKept(b *testing.B) {
	data := encodePNG(b, gradientImage(400, 300))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := PreparePicture(context.Background(), data, PrepareOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
