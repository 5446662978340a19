package testimages

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"sort"

	"golang.org/x/image/bmp"
	_ "golang.org/x/image/webp" // registers the WebP decoder for Inspect

	"github.com/strata-eval/strata-eval/internal/synthimage"
)

// PNG returns a w×h PNG of Picture(w, h, seed, opts...).
func PNG(w, h int, seed int64, opts ...Option) []byte {
	return mustEncode(synthimage.EncodePNG(Picture(w, h, seed, opts...)))
}

// JPEG returns a w×h baseline JPEG of Picture(w, h, seed, opts...) (see WithQuality).
func JPEG(w, h int, seed int64, opts ...Option) []byte {
	s := collect(opts)
	return mustEncode(EncodeJPEG(Picture(w, h, seed, opts...), s.quality))
}

// GIF returns a w×h single-frame GIF of Picture(w, h, seed, opts...).
func GIF(w, h int, seed int64, opts ...Option) []byte {
	return mustEncode(EncodeGIF([]image.Image{Picture(w, h, seed, opts...)}, 0))
}

// AnimatedGIF returns a w×h looping GIF with one frame per label, each frame
// Picture(w, h, seed+i, opts..., WithText(label)), shown for half a second.
func AnimatedGIF(w, h int, seed int64, labels []string, opts ...Option) []byte {
	frames := make([]image.Image, 0, len(labels))
	for i, label := range labels {
		frames = append(frames, Picture(w, h, seed+int64(i), append(append([]Option(nil), opts...), WithText(label))...))
	}
	return mustEncode(EncodeGIF(frames, 50))
}

// BMP returns a w×h 24-bit BMP of Picture(w, h, seed, opts...).
func BMP(w, h int, seed int64, opts ...Option) []byte {
	return mustEncode(EncodeBMP(Picture(w, h, seed, opts...)))
}

// WebP returns a w×h lossless WebP of Picture(w, h, seed, opts...).
func WebP(w, h int, seed int64, opts ...Option) []byte {
	return mustEncode(EncodeWebP(Picture(w, h, seed, opts...)))
}

// mustEncode drops the error of an encoder that cannot fail on the pictures of this
// package (an in-memory RGBA of sane size); it returns nil rather than panicking.
func mustEncode(b []byte, err error) []byte {
	if err != nil {
		return nil
	}
	return b
}

// EncodeJPEG encodes m as a baseline JPEG of the given quality.
func EncodeJPEG(m image.Image, quality int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

// EncodeBMP encodes m as BMP (24-bit when m is opaque) with golang.org/x/image/bmp.
func EncodeBMP(m image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := bmp.Encode(&buf, m); err != nil {
		return nil, fmt.Errorf("encode bmp: %w", err)
	}
	return buf.Bytes(), nil
}

// EncodeGIF encodes frames as a GIF (animated, looping forever, when there is more than one
// frame; delay is in hundredths of a second). Each frame keeps its exact colours when it has
// at most 256 of them; otherwise it is mapped to the web-safe palette without dithering.
func EncodeGIF(frames []image.Image, delay int) ([]byte, error) {
	if len(frames) == 0 {
		return nil, errors.New("encode gif: no frames")
	}
	anim := &gif.GIF{}
	for _, f := range frames {
		anim.Image = append(anim.Image, toPaletted(f))
		anim.Delay = append(anim.Delay, delay)
	}
	b := frames[0].Bounds()
	anim.Config = image.Config{ColorModel: anim.Image[0].Palette, Width: b.Dx(), Height: b.Dy()}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		return nil, fmt.Errorf("encode gif: %w", err)
	}
	return buf.Bytes(), nil
}

// toPaletted converts m to a paletted image, exactly when it has 256 colours or fewer.
func toPaletted(m image.Image) *image.Paletted {
	b := m.Bounds()
	seen := map[color.RGBA]bool{}
	for y := b.Min.Y; y < b.Max.Y && len(seen) <= 256; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			seen[color.RGBAModel.Convert(m.At(x, y)).(color.RGBA)] = true
			if len(seen) > 256 {
				break
			}
		}
	}
	var pal color.Palette
	if len(seen) <= 256 {
		keys := make([]color.RGBA, 0, len(seen))
		for c := range seen {
			keys = append(keys, c)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, c := keys[i], keys[j]
			return uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A) <
				uint32(c.R)<<24|uint32(c.G)<<16|uint32(c.B)<<8|uint32(c.A)
		})
		for _, c := range keys {
			pal = append(pal, c)
		}
	} else {
		pal = palette.WebSafe
	}
	p := image.NewPaletted(b, pal)
	draw.Draw(p, b, m, b.Min, draw.Src)
	return p
}

// Info describes an encoded picture.
type Info struct {
	Type   string // MIME type: image/png, image/jpeg, image/gif, image/bmp, image/webp
	Width  int
	Height int
}

// Inspect reads the type and size of an encoded picture from its header.
func Inspect(data []byte) (Info, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Info{}, fmt.Errorf("inspect picture: %w", err)
	}
	return Info{Type: "image/" + format, Width: cfg.Width, Height: cfg.Height}, nil
}
