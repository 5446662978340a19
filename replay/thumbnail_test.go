package replay

import (
	"bytes"
	"image"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testimages"
	"github.com/strata-eval/strata-eval/records"
)

// TestMakeThumbnail: every picture type becomes a JPEG or PNG at most ThumbnailEdge pixels on
// its long edge, its aspect kept, that decodes to the size it declares; a picture already that
// small keeps its size.
func TestMakeThumbnail(t *testing.T) {
	for name, tt := range map[string]struct {
		data          []byte
		width, height int
	}{
		"png 1280×800":  {testimages.PNG(1280, 800, 1), 160, 100},
		"jpeg 640×480":  {testimages.JPEG(640, 480, 2), 160, 120},
		"gif 300×600":   {testimages.GIF(300, 600, 3), 80, 160},
		"bmp 400×100":   {testimages.BMP(400, 100, 4), 160, 40},
		"webp 320×200":  {testimages.WebP(320, 200, 5), 160, 100},
		"png 64×48":     {testimages.PNG(64, 48, 6), 64, 48},
		"png 2000×1":    {testimages.PNG(2000, 1, 7), 160, 1},
		"animated gif":  {testimages.AnimatedGIF(200, 100, 8, []string{"1", "2", "3"}), 160, 80},
		"grey png bomb": {testimages.PNGBomb(4000, 3000), 160, 120},
	} {
		t.Run(name, func(t *testing.T) {
			th, err := MakeThumbnail(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if th.Width != tt.width || th.Height != tt.height {
				t.Errorf("thumbnail %d×%d, want %d×%d", th.Width, th.Height, tt.width, tt.height)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(th.Data))
			if err != nil {
				t.Fatalf("the thumbnail does not decode: %v", err)
			}
			if "image/"+format != th.Type || cfg.Width != th.Width || cfg.Height != th.Height {
				t.Errorf("the thumbnail is a %s of %d×%d, it says %s of %d×%d", format, cfg.Width, cfg.Height, th.Type, th.Width, th.Height)
			}
			if max(th.Width, th.Height) > records.ThumbnailEdge || len(th.Data) > 40<<10 {
				t.Errorf("a thumbnail of %d bytes", len(th.Data))
			}
		})
	}
}

// TestMakeThumbnailHostile: a picture the picture check refuses, or one whose pixels would
// take more than DefaultDecodeMemory, gets no thumbnail, within a small time and memory budget.
func TestMakeThumbnailHostile(t *testing.T) {
	for name, tt := range map[string]struct {
		data []byte
		want string
	}{
		"png claims 100000×100000": {testimages.ClaimingPNG(100000, 100000), "more than the limit"},
		"jpeg claims 65500×65500":  {testimages.ClaimingJPEG(65500, 65500), "more than the limit"},
		"webp claims 100000²":      {testimages.ClaimingWebP(100000, 100000), "more than the limit"},
		"png bomb 9,000×9,000":     {testimages.PNGBomb(9000, 9000), "too large to decode for a thumbnail"},
		"garbage jpeg":             {testimages.GarbageJPEG(4096, 1), ""},
		"not a picture":            {[]byte(strings.Repeat("text ", 100)), "not a picture"},
	} {
		t.Run(name, func(t *testing.T) {
			var err error
			hostileBudget(t, 5*time.Second, 16<<20, func() { _, err = MakeThumbnail(tt.data) })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestDownscaleAreaMatchesPerChannelSum: the RGBA path of downscaleArea (sumRowRGB) gives the
// bytes of the plain per-channel sum, in the same order, on random pictures and sizes; and an
// opaque RGBA picture is flattened to the same pixels as a copy would give.
func TestDownscaleAreaMatchesPerChannelSum(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 40 {
		sw, sh := 1+rng.Intn(300), 1+rng.Intn(200)
		src := image.NewRGBA(image.Rect(0, 0, sw, sh))
		rng.Read(src.Pix)
		for i := 3; i < len(src.Pix); i += 4 {
			src.Pix[i] = 0xFF
		}
		w, h := 1+rng.Intn(sw), 1+rng.Intn(sh)
		got := downscaleArea(src, w, h).(*image.RGBA)
		want := downscalePerChannel(src, w, h)
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Fatalf("%d×%d → %d×%d: the RGBA path differs from the per-channel sum", sw, sh, w, h)
		}
		if flat := flattenForJPEG(src).(*image.RGBA); !bytes.Equal(flat.Pix, src.Pix) {
			t.Fatalf("%d×%d: an opaque RGBA picture flattens to other pixels", sw, sh)
		}
	}
	translucent := image.NewRGBA(image.Rect(0, 0, 2, 1))
	copy(translucent.Pix, []uint8{10, 20, 30, 40, 1, 2, 3, 255})
	if flat := flattenForJPEG(translucent).(*image.RGBA); !bytes.Equal(flat.Pix, []uint8{10, 20, 30, 255, 1, 2, 3, 255}) || flat == translucent {
		t.Errorf("a translucent RGBA picture flattens to %v", flat.Pix)
	}
}

// downscalePerChannel is area averaging written plainly, channel by channel: the oracle of
// downscaleArea's RGBA path.
func downscalePerChannel(src *image.RGBA, w, h int) *image.RGBA {
	hx, vy := areaContribs(src.Bounds().Dx(), w), areaContribs(src.Bounds().Dy(), h)
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			for c := range 3 {
				var acc float32
				for _, cy := range vy[y] {
					var row float32
					for _, cx := range hx[x] {
						row += float32(src.Pix[cy.index*src.Stride+cx.index*4+c]) * cx.weight
					}
					acc += row * cy.weight
				}
				out.Pix[y*out.Stride+x*4+c] = uint8(min(max(acc+0.5, 0), 255))
			}
			out.Pix[y*out.Stride+x*4+3] = 0xFF
		}
	}
	return out
}

// BenchmarkMakeThumbnail: the thumbnail of a 1920×1200 PNG screenshot of 1.2 MB, as the report
// makes one for each distinct picture.
func BenchmarkMakeThumbnail(b *testing.B) {
	data, err := testimages.ScreenshotPNG(1920, 1200, 1, 1200<<10)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MakeThumbnail(data); err != nil {
			b.Fatal(err)
		}
	}
}
