package replay

import (
	"testing"
)

func TestSniffAndHeaderSize(t *testing.T) {
	webpLossy := []byte("RIFF\x00\x00\x00\x00WEBPVP8 \x00\x00\x00\x00\x10\x02\x00\x9d\x01\x2a\x40\x01\xf0\x00")
	webpExt := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x10\x00\x00\x00\x1f\x03\x00\xdf\x01\x00")
	bmpCore := append([]byte("BM"), make([]byte, 24)...)
	bmpCore[14] = 12
	bmpCore[18], bmpCore[19], bmpCore[20], bmpCore[21] = 0x20, 0x01, 0x10, 0x00 // 288×16
	tests := []struct {
		name     string
		data     []byte
		wantType string
		wantW    int
		wantH    int
		wantErr  bool
	}{
		{"png", fxPNG(t, 123, 45, false), MIMEPNG, 123, 45, false},
		{"jpeg", fxJPEG(t, 77, 31), MIMEJPEG, 77, 31, false},
		{"gif", fxGIF(t, 19, 7), MIMEGIF, 19, 7, false},
		{"bmp", fxBMP(t, 21, 13), MIMEBMP, 21, 13, false},
		{"bmp core header", bmpCore, MIMEBMP, 288, 16, false},
		{"webp lossless", fxWebPLossless(16383, 2, 40), MIMEWebP, 16383, 2, false},
		{"webp lossy", webpLossy, MIMEWebP, 320, 240, false},
		{"webp extended", webpExt, MIMEWebP, 800, 480, false},
		{"png truncated before IHDR", fxPNG(t, 5, 5, false)[:20], MIMEPNG, 0, 0, true},
		{"jpeg without frame", []byte{0xFF, 0xD8, 0xFF, 0xD9}, MIMEJPEG, 0, 0, true},
		{"riff that is not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), "", 0, 0, true},
		{"html error page", []byte("<!DOCTYPE html><html>"), "", 0, 0, true},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "", 0, 0, true},
		{"gif87a", []byte("GIF87a\x02\x00\x03\x00"), MIMEGIF, 2, 3, false},
		{"empty", nil, "", 0, 0, true},
		{"gigantic png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x7f\xff\xff\xff\x7f\xff\xff\xff"), MIMEPNG, 1<<31 - 1, 1<<31 - 1, false},
		{"zero-size gif", []byte("GIF89a\x00\x00\x05\x00"), MIMEGIF, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SniffImage(tt.data); got != tt.wantType {
				t.Errorf("SniffImage = %q, want %q", got, tt.wantType)
			}
			w, h, err := ImageHeaderSize(tt.data)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ImageHeaderSize error = %v, want error %v", err, tt.wantErr)
			}
			if w != tt.wantW || h != tt.wantH {
				t.Errorf("size %d×%d, want %d×%d", w, h, tt.wantW, tt.wantH)
			}
		})
	}
}

func FuzzImageHeaderSize(f *testing.F) {
	f.Add(fxPNG(f, 3, 3, false))
	f.Add(fxJPEG(f, 8, 8))
	f.Add(fxWebPLossless(5, 5, 30))
	f.Add([]byte("BM"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, h, err := ImageHeaderSize(data)
		if err == nil && (w <= 0 || h <= 0) {
			t.Errorf("size %d×%d without error", w, h)
		}
		if err == nil && SniffImage(data) == "" {
			t.Error("a size for bytes that are not a picture")
		}
	})
}
