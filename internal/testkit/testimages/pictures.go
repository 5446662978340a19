// Package testimages makes reproducible test pictures in code: patterned, solid-colour,
// labelled (a short text drawn with a tiny built-in bitmap font that a vision model can
// read) and screenshot-like noisy pictures of a requested encoded size, and encodes them as
// PNG, JPEG, GIF (also animated), BMP and lossless WebP.
//
// Everything is deterministic: the same arguments give the same bytes (for a given Go
// toolchain, since PNG, JPEG and GIF use the standard library encoders).
package testimages

import (
	"image"
	"image/color"

	"github.com/strata-eval/strata-eval/internal/synthimage"
)

// MaxSide is the largest width or height a picture of this package can have; larger requests
// are clamped to it, and sides below 1 become 1.
const MaxSide = synthimage.MaxSide

// Named colours with unambiguous names, for pictures whose colour is the expected answer.
var (
	Red    = synthimage.Red
	Green  = color.RGBA{R: 0x2E, G: 0xA0, B: 0x43, A: 0xFF}
	Blue   = color.RGBA{R: 0x1C, G: 0x5F, B: 0xD8, A: 0xFF}
	Yellow = color.RGBA{R: 0xF5, G: 0xD0, B: 0x16, A: 0xFF}
	Orange = color.RGBA{R: 0xF2, G: 0x7A, B: 0x12, A: 0xFF}
	Purple = color.RGBA{R: 0x7B, G: 0x2F, B: 0xBE, A: 0xFF}
	Black  = synthimage.Black
	White  = synthimage.White
	Gray   = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xFF}
)

// Option changes what a picture shows or how it is encoded.
type Option func(*settings)

type settings struct {
	solid   *color.RGBA
	square  *color.RGBA
	text    string
	ink     *color.RGBA
	quality int
	grain   int
}

// WithSolid fills the whole picture with c instead of the seeded pattern.
func WithSolid(c color.RGBA) Option { return func(s *settings) { s.solid = &c } }

// WithSquare draws a filled square of colour c in the middle of the picture (half of its
// shorter side), on a light background.
func WithSquare(c color.RGBA) Option { return func(s *settings) { s.square = &c } }

// WithText draws text (upper-case letters, digits, a little punctuation; '\n' breaks lines)
// as large as fits, centred.
func WithText(text string) Option { return func(s *settings) { s.text = text } }

// WithInk sets the colour of the text; by default black or white, whichever contrasts more.
func WithInk(c color.RGBA) Option { return func(s *settings) { s.ink = &c } }

// WithGrain adds reproducible noise of ±amount (0–127) to every pixel of the background,
// as a camera would; the square and the text stay clean. Grain makes encoded pictures larger.
func WithGrain(amount int) Option { return func(s *settings) { s.grain = max(0, min(127, amount)) } }

// WithQuality sets the JPEG quality (1–100, default 85); other encoders ignore it.
func WithQuality(q int) Option { return func(s *settings) { s.quality = q } }

func collect(opts []Option) settings {
	s := settings{quality: 85}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	if s.quality < 1 || s.quality > 100 {
		s.quality = 85
	}
	return s
}

// Picture draws a w×h picture: the seeded pattern (a soft gradient with a few shapes) or a
// solid colour, then the optional square and text.
func Picture(w, h int, seed int64, opts ...Option) *image.RGBA {
	w, h = synthimage.ClampSide(w), synthimage.ClampSide(h)
	s := collect(opts)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	background := color.RGBA{R: 0xF4, G: 0xF4, B: 0xF0, A: 0xFF}
	switch {
	case s.solid != nil:
		background = *s.solid
		synthimage.FillRect(img, img.Bounds(), background)
	case s.square != nil:
		synthimage.FillRect(img, img.Bounds(), background)
	default:
		background = drawPattern(img, seed)
	}
	x, y, scale := textLayout(img.Bounds(), s.text)
	if s.text != "" && s.solid == nil {
		// A light plate keeps the text readable over the pattern.
		tw, th := synthimage.TextSize(s.text, scale)
		synthimage.FillRect(img, image.Rect(x-2*scale, y-2*scale, x+tw+2*scale, y+th+2*scale), color.RGBA{R: 0xF8, G: 0xF8, B: 0xF4, A: 0xFF})
	}
	if s.grain > 0 {
		addGrain(img, seed, s.grain)
	}
	if s.square != nil {
		side := min(w, h) / 2
		if side < 1 {
			side = 1
		}
		x0, y0 := (w-side)/2, (h-side)/2
		synthimage.FillRect(img, image.Rect(x0, y0, x0+side, y0+side), *s.square)
	}
	if s.text != "" {
		ink := contrasting(background)
		if s.solid == nil {
			ink = Black // on the light plate
		}
		if s.ink != nil {
			ink = *s.ink
		}
		synthimage.DrawText(img, x, y, scale, s.text, ink)
	}
	return img
}

// addGrain adds noise of ±amount to every pixel of img.
func addGrain(img *image.RGBA, seed int64, amount int) {
	span := uint64(2*amount + 1)
	base := synthimage.Mix64(uint64(seed) ^ 0x6A09E667F3BCC908)
	for i := 0; i+3 < len(img.Pix); i += 4 {
		z := synthimage.Mix64(base + uint64(i))
		for c := 0; c < 3; c++ {
			v := int(img.Pix[i+c]) + int(z%span) - amount
			img.Pix[i+c] = uint8(max(0, min(255, v)))
			z >>= 16
		}
	}
}

// drawPattern paints the seeded pattern and returns its average background colour.
func drawPattern(img *image.RGBA, seed int64) color.RGBA {
	r := synthimage.NewRNG(seed)
	b := img.Bounds()
	from := color.RGBA{R: uint8(160 + r.Intn(96)), G: uint8(160 + r.Intn(96)), B: uint8(160 + r.Intn(96)), A: 0xFF}
	to := color.RGBA{R: uint8(160 + r.Intn(96)), G: uint8(160 + r.Intn(96)), B: uint8(160 + r.Intn(96)), A: 0xFF}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		c := synthimage.Lerp(from, to, y, b.Dy())
		synthimage.FillRect(img, image.Rect(b.Min.X, y, b.Max.X, y+1), c)
	}
	shapes := 3 + r.Intn(4)
	for i := 0; i < shapes; i++ {
		c := color.RGBA{R: uint8(r.Intn(256)), G: uint8(r.Intn(256)), B: uint8(r.Intn(256)), A: 0xFF}
		x0, y0 := r.Intn(b.Dx()), r.Intn(b.Dy())
		sw, sh := 1+r.Intn(max(1, b.Dx()/3)), 1+r.Intn(max(1, b.Dy()/3))
		if r.Intn(2) == 0 {
			synthimage.FillRect(img, image.Rect(x0, y0, x0+sw, y0+sh), c)
		} else {
			fillEllipse(img, image.Rect(x0, y0, x0+sw, y0+sh), c)
		}
	}
	return synthimage.Lerp(from, to, 1, 2)
}

func fillEllipse(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	cx, cy := float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2
	rx, ry := float64(r.Dx())/2, float64(r.Dy())/2
	if rx <= 0 || ry <= 0 {
		return
	}
	clip := r.Intersect(img.Bounds())
	for y := clip.Min.Y; y < clip.Max.Y; y++ {
		for x := clip.Min.X; x < clip.Max.X; x++ {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			if dx*dx+dy*dy <= 1 {
				img.SetRGBA(x, y, c)
			}
		}
	}
}

// contrasting returns black or white, whichever stands out more on bg.
func contrasting(bg color.RGBA) color.RGBA {
	luma := 299*int(bg.R) + 587*int(bg.G) + 114*int(bg.B)
	if luma > 128*1000 {
		return Black
	}
	return White
}

// textLayout places text as large as fits in 90% of area, centred: its top-left corner and
// scale.
func textLayout(area image.Rectangle, text string) (x, y, scale int) {
	tw, th := synthimage.TextSize(text, 1)
	if tw == 0 {
		return area.Min.X, area.Min.Y, 1
	}
	scale = max(1, min(area.Dx()*9/10/tw, area.Dy()*9/10/th))
	tw, th = synthimage.TextSize(text, scale)
	return area.Min.X + (area.Dx()-tw)/2, area.Min.Y + (area.Dy()-th)/2, scale
}
