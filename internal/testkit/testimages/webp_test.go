package testimages

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"golang.org/x/image/webp"

	"github.com/strata-eval/strata-eval/internal/synthimage"
)

// decodeNRGBA decodes a WebP with golang.org/x/image/webp and returns its pixels as NRGBA.
func decodeNRGBA(t testing.TB, data []byte) *image.NRGBA {
	t.Helper()
	m, err := webp.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode webp: %v", err)
	}
	b := m.Bounds()
	out := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(x, y, color.NRGBAModel.Convert(m.At(x, y)))
		}
	}
	return out
}

func toNRGBA(m image.Image) *image.NRGBA {
	b := m.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(x-b.Min.X, y-b.Min.Y, color.NRGBAModel.Convert(m.At(x, y)))
		}
	}
	return out
}

func noisyNRGBA(w, h int, seed int64, alpha bool) *image.NRGBA {
	r := synthimage.NewRNG(seed)
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = uint8(r.Next())
		if !alpha && i%4 == 3 {
			m.Pix[i] = 0xFF
		}
	}
	return m
}

func twoColours(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if (x+y)%2 == 0 {
				m.SetNRGBA(x, y, color.NRGBA{R: 10, G: 200, B: 30, A: 255})
			} else {
				m.SetNRGBA(x, y, color.NRGBA{R: 250, G: 3, B: 130, A: 255})
			}
		}
	}
	return m
}

func TestEncodeWebPRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		img  image.Image
	}{
		{"one pixel", image.NewNRGBA(image.Rect(0, 0, 1, 1))},
		{"solid red", Picture(37, 21, 1, WithSolid(Red))},
		{"two colours", twoColours(9, 7)},
		{"pattern with text", Picture(160, 90, 7, WithText("7B"))},
		{"square", Picture(64, 48, 3, WithSquare(Blue))},
		{"noise opaque", noisyNRGBA(50, 33, 11, false)},
		{"noise with alpha", noisyNRGBA(31, 64, 12, true)},
		{"wide strip", Picture(1000, 2, 5)},
		{"offset bounds", Picture(40, 40, 9).SubImage(image.Rect(5, 7, 33, 29))},
		{"gradient alpha", func() image.Image {
			m := image.NewNRGBA(image.Rect(0, 0, 256, 4))
			for x := 0; x < 256; x++ {
				for y := 0; y < 4; y++ {
					m.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(255 - x), B: uint8(x * 7), A: uint8(x)})
				}
			}
			return m
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := EncodeWebP(tt.img)
			if err != nil {
				t.Fatal(err)
			}
			if string(data[:4]) != "RIFF" || string(data[8:16]) != "WEBPVP8L" || len(data)%2 != 0 {
				t.Fatalf("bad container header % x", data[:16])
			}
			got := decodeNRGBA(t, data)
			want := toNRGBA(tt.img)
			if got.Bounds().Size() != want.Bounds().Size() {
				t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
			}
			for y := 0; y < want.Bounds().Dy(); y++ {
				for x := 0; x < want.Bounds().Dx(); x++ {
					g, w := got.NRGBAAt(x, y), want.NRGBAAt(x, y)
					if w.A == 0 {
						g.R, g.G, g.B, w.R, w.G, w.B = 0, 0, 0, 0, 0, 0
					}
					if g != w {
						t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, g, w)
					}
				}
			}
			info, err := Inspect(data)
			if err != nil || info.Type != "image/webp" || info.Width != want.Bounds().Dx() || info.Height != want.Bounds().Dy() {
				t.Fatalf("Inspect = %+v, %v", info, err)
			}
		})
	}
}

func TestEncodeWebPRejectsBadSizes(t *testing.T) {
	for _, r := range []image.Rectangle{image.Rect(0, 0, 0, 5), image.Rect(0, 0, vp8lMaxSide+1, 1)} {
		if _, err := EncodeWebP(image.NewNRGBA(r)); err == nil {
			t.Errorf("EncodeWebP(%v) gave no error", r)
		}
	}
}

func TestLimitedLengthsRespectsLimit(t *testing.T) {
	// Fibonacci counts make the deepest possible optimal tree.
	hist := make([]uint32, 40)
	a, b := uint32(1), uint32(1)
	for i := range hist {
		hist[i] = a
		a, b = b, a+b
	}
	for _, limit := range []int{7, 15} {
		lengths := limitedLengths(hist, limit)
		kraft := 0.0
		for _, l := range lengths {
			if int(l) > limit || l == 0 {
				t.Fatalf("limit %d: length %d", limit, l)
			}
			kraft += 1 / float64(uint64(1)<<l)
		}
		if kraft != 1 {
			t.Errorf("limit %d: Kraft sum %v, want a complete code", limit, kraft)
		}
	}
}

func FuzzEncodeWebP(f *testing.F) {
	f.Add(uint8(3), uint8(2), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(uint8(1), uint8(1), []byte{0, 0, 0, 0})
	f.Add(uint8(17), uint8(5), bytes.Repeat([]byte{9, 200}, 90))
	f.Fuzz(func(t *testing.T, w, h uint8, pix []byte) {
		if w == 0 || h == 0 {
			return
		}
		m := image.NewNRGBA(image.Rect(0, 0, int(w), int(h)))
		for i := range m.Pix {
			if len(pix) > 0 {
				m.Pix[i] = pix[i%len(pix)]
			}
		}
		data, err := EncodeWebP(m)
		if err != nil {
			t.Fatal(err)
		}
		got := decodeNRGBA(t, data)
		for i := 0; i < len(m.Pix); i += 4 {
			g, w := got.Pix[i:i+4], m.Pix[i:i+4]
			if w[3] == 0 {
				if g[3] != 0 {
					t.Fatalf("pixel %d alpha %d, want 0", i/4, g[3])
				}
				continue
			}
			if !bytes.Equal(g, w) {
				t.Fatalf("pixel %d = %v, want %v", i/4, g, w)
			}
		}
	})
}
