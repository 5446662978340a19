// Package synthimage draws pictures by code for the shipped bench and the generators: a 5×7
// font, a splitmix64 generator, and a desktop screenshot of an exact PNG size. It is not test
// code; internal/testkit/testimages builds its test pictures (and the hostile ones) on it.
package synthimage

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// MaxSide is the largest width or height a picture drawn here can have; larger requests are
// clamped to it, and sides below 1 become 1.
const MaxSide = 4096

// Colours the screenshot uses (internal/testkit/testimages names more).
var (
	Red   = color.RGBA{R: 0xE0, G: 0x1B, B: 0x24, A: 0xFF}
	Black = color.RGBA{R: 0x10, G: 0x10, B: 0x10, A: 0xFF}
	White = color.RGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xFF}
)

// ClampSide keeps a side within 1..MaxSide.
func ClampSide(n int) int {
	switch {
	case n < 1:
		return 1
	case n > MaxSide:
		return MaxSide
	}
	return n
}

// RNG is a splitmix64 generator: tiny, fast and stable across Go releases.
type RNG struct{ state uint64 }

// NewRNG returns a generator seeded with seed.
func NewRNG(seed int64) *RNG {
	return &RNG{state: uint64(seed)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019}
}

// Next returns the next 64 random bits.
func (r *RNG) Next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	return Mix64(r.state)
}

// Intn returns a number in [0, n); n must be positive.
func (r *RNG) Intn(n int) int { return int(r.Next() % uint64(n)) }

// Mix64 is splitmix64's finaliser: it scrambles z into well-spread bits.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Lerp returns the colour i steps of n from a to b (a at 0, b at n-1), opaque.
func Lerp(a, b color.RGBA, i, n int) color.RGBA {
	if n <= 1 {
		return a
	}
	f := func(x, y uint8) uint8 { return uint8((int(x)*(n-1-i) + int(y)*i) / (n - 1)) }
	return color.RGBA{R: f(a.R, b.R), G: f(a.G, b.G), B: f(a.B, b.B), A: 0xFF}
}

// EncodePNG encodes m as PNG with the standard library encoder (default compression).
func EncodePNG(m image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}
