package testimages

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"testing"
)

func TestEncodersMakeDecodablePicturesOfTheRightSize(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		wantType string
		w, h     int
	}{
		{"png pattern", PNG(64, 48, 1), "image/png", 64, 48},
		{"png solid", PNG(16, 16, 1, WithSolid(Blue)), "image/png", 16, 16},
		{"jpeg", JPEG(320, 200, 2, WithSquare(Green)), "image/jpeg", 320, 200},
		{"gif", GIF(40, 30, 3, WithText("42")), "image/gif", 40, 30},
		{"animated gif", AnimatedGIF(60, 40, 4, []string{"1", "2", "3"}), "image/gif", 60, 40},
		{"bmp", BMP(64, 48, 5, WithSolid(Yellow)), "image/bmp", 64, 48},
		{"webp", WebP(96, 64, 6, WithText("7B")), "image/webp", 96, 64},
		{"clamped sides", PNG(0, -5, 1), "image/png", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.data) == 0 {
				t.Fatal("no bytes")
			}
			info, err := Inspect(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if info != (Info{Type: tt.wantType, Width: tt.w, Height: tt.h}) {
				t.Fatalf("Inspect = %+v, want %s %dx%d", info, tt.wantType, tt.w, tt.h)
			}
			m, _, err := image.Decode(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if m.Bounds().Dx() != tt.w || m.Bounds().Dy() != tt.h {
				t.Fatalf("decoded size %v", m.Bounds())
			}
		})
	}
}

func TestPicturesAreDeterministic(t *testing.T) {
	makers := map[string]func() []byte{
		"png":  func() []byte { return PNG(50, 40, 9, WithText("AB12")) },
		"jpeg": func() []byte { return JPEG(50, 40, 9) },
		"gif":  func() []byte { return AnimatedGIF(30, 20, 9, []string{"X", "Y"}) },
		"bmp":  func() []byte { return BMP(50, 40, 9) },
		"webp": func() []byte { return WebP(50, 40, 9) },
	}
	for name, make := range makers {
		a, b := make(), make()
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two calls gave different bytes", name)
		}
	}
	if bytes.Equal(PNG(50, 40, 1), PNG(50, 40, 2)) {
		t.Error("different seeds gave the same picture")
	}
}

func TestSolidAndSquareColours(t *testing.T) {
	tests := []struct {
		name string
		img  *image.RGBA
		at   image.Point
		want color.RGBA
	}{
		{"solid red corner", Picture(20, 10, 1, WithSolid(Red)), image.Pt(0, 0), Red},
		{"solid red far corner", Picture(20, 10, 1, WithSolid(Red)), image.Pt(19, 9), Red},
		{"square centre", Picture(100, 80, 1, WithSquare(Green)), image.Pt(50, 40), Green},
		{"square leaves the border light", Picture(100, 80, 1, WithSquare(Green)), image.Pt(2, 2), color.RGBA{R: 0xF4, G: 0xF4, B: 0xF0, A: 0xFF}},
		{"screenshot square", Screenshot(1280, 800, 1, 0), image.Pt(350, 220), Red},
		{"screenshot square colour option", Screenshot(1280, 800, 1, 0, WithSquare(Blue)), image.Pt(350, 220), Blue},
	}
	for _, tt := range tests {
		if got := tt.img.RGBAAt(tt.at.X, tt.at.Y); got != tt.want {
			t.Errorf("%s: pixel %v = %v, want %v", tt.name, tt.at, got, tt.want)
		}
	}
}

func TestAnimatedGIFHasOneFramePerLabel(t *testing.T) {
	data := AnimatedGIF(32, 24, 1, []string{"A", "B", "C", "D"})
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 4 || g.Delay[0] != 50 {
		t.Fatalf("frames %d delay %v", len(g.Image), g.Delay)
	}
}

func BenchmarkEncodeWebP(b *testing.B) {
	img := Picture(256, 256, 1, WithText("BENCH"))
	b.ReportAllocs()
	b.SetBytes(256 * 256 * 4)
	for b.Loop() {
		if _, err := EncodeWebP(img); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWithGrainKeepsSquareCleanAndGrowsThePicture(t *testing.T) {
	plain := PNG(96, 96, 1, WithSquare(Purple))
	grainy := PNG(96, 96, 1, WithSquare(Purple), WithGrain(8))
	if len(grainy) <= 2*len(plain) {
		t.Fatalf("grain did not grow the PNG: %d vs %d bytes", len(grainy), len(plain))
	}
	img := Picture(96, 96, 1, WithSquare(Purple), WithGrain(8))
	if got := img.RGBAAt(48, 48); got != Purple {
		t.Fatalf("square pixel %v, want %v", got, Purple)
	}
	if got := img.RGBAAt(2, 2); got == (color.RGBA{R: 0xF4, G: 0xF4, B: 0xF0, A: 0xFF}) {
		t.Log("corner pixel happens to equal the background; checking another")
		if img.RGBAAt(3, 2) == img.RGBAAt(2, 2) && img.RGBAAt(4, 2) == img.RGBAAt(2, 2) {
			t.Fatal("background has no grain")
		}
	}
}
