package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/bmp"
)

// Fixtures shared by the lift tests (prefixed "fx" to stay clear of other files' helpers).

// fxPNG encodes a w×h PNG; noisy pixels make it incompressible (about 4·w·h bytes).
func fxPNG(t testing.TB, w, h int, noisy bool) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(uint64(w), uint64(h)))
	for i := range img.Pix {
		if noisy {
			img.Pix[i] = byte(r.Uint32())
		} else {
			img.Pix[i] = byte(i * 7)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fxJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fxGIF(t testing.TB, w, h int) []byte {
	t.Helper()
	pal := make(color.Palette, 256)
	for i := range pal {
		pal[i] = color.Gray{Y: uint8(i)}
	}
	img := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	r := rand.New(rand.NewPCG(uint64(w), 3))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fxBMP(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var buf bytes.Buffer
	if err := bmp.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fxWebPLossless is the smallest VP8L header of a w×h WebP, written by hand (RIFF, WEBP, a
// VP8L chunk: signature 0x2F, 14-bit width-1, 14-bit height-1, alpha bit, version 0), padded
// with zero bytes to size.
func fxWebPLossless(w, h, size int) []byte {
	b := make([]byte, max(size, 30))
	copy(b, "RIFF")
	le32(b[4:], uint32(len(b)-8))
	copy(b[8:], "WEBPVP8L")
	le32(b[16:], uint32(len(b)-20))
	b[20] = 0x2F
	le32(b[21:], uint32(w-1)|uint32(h-1)<<14)
	return b
}

func le32(b []byte, v uint32) { b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24) }

// fxBigPNG is a ~1.5 MB incompressible PNG (the headline case's photo), made once.
var fxBigPNG = sync.OnceValue(func() []byte {
	return fxPNG(&testing.B{}, 620, 620, true)
})

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// jsStringify renders v as JSON.stringify does (no HTML escaping).
func jsStringify(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// aiSDKPart is one element of an AI SDK 6 tool output, in its key order.
type aiSDKPart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Data      string `json:"data,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
}

// escapeSlashes writes every '/' as "\/", as PHP and some JSON encoders do.
func escapeSlashes(s string) string { return strings.ReplaceAll(s, "/", `\/`) }

// fxBase64Noise is n characters of base64 that decode to no picture.
func fxBase64Noise(n int) string {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	raw := make([]byte, n*3/4+3)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	raw[0] = 'x' // not a signature
	return base64.RawStdEncoding.EncodeToString(raw)[:n]
}

func TestNextRunBounds(t *testing.T) {
	long := fxBase64Noise(1100)
	noise := long[:1024]
	tests := []struct {
		name      string
		text      string
		minRun    int
		wantOK    bool
		wantStart int
		wantEnd   int
		wantChars int
		wantPad   int
		wantURL   int
		wantLabel string
	}{
		{"1023 chars is not a run", "x " + noise[:1023] + " y", 1024, false, 0, 0, 0, 0, -1, ""},
		{"1024 chars is a run", "x " + noise + " y", 1024, true, 2, 1026, 1024, 0, -1, ""},
		{"run at the start", noise + " tail", 1024, true, 0, 1024, 1024, 0, -1, ""},
		{"run at the end", "head " + noise, 1024, true, 5, 1029, 1024, 0, -1, ""},
		{"run is the whole text", noise, 1024, true, 0, 1024, 1024, 0, -1, ""},
		{"one = of padding", "a " + noise[:1022] + "= b", 1024, false, 0, 0, 0, 0, -1, ""},
		{"padding is kept with the run", "a " + long[:1026] + "== b", 1024, true, 2, 1030, 1026, 2, -1, ""},
		{"at most two =", "a " + long[:1026] + "=== b", 1024, true, 2, 1030, 1026, 2, -1, ""},
		{"data URL", `{"u":"data:image/jpeg;base64,` + noise + `"}`, 1024, true, 29, 1053, 1024, 0, 6, "image/jpeg"},
		{"data URL with escaped slash", `{"u":"data:image\/png;base64,` + noise + `"}`, 1024, true, 29, 1053, 1024, 0, 6, "image/png"},
		{"data URL with parameters", `data:image/png;name=a.png;base64,` + noise, 1024, true, 33, 1057, 1024, 0, 0, "image/png"},
		{"MIME lines are not one run", mimeLines(noise+noise, 76), 1024, false, 0, 0, 0, 0, -1, ""},
		{"short minimum", "ab cdef gh", 4, true, 3, 7, 4, 0, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := NextRun(tt.text, 0, tt.minRun)
			if ok != tt.wantOK {
				t.Fatalf("NextRun ok = %v, want %v (run %+v)", ok, tt.wantOK, r)
			}
			if !ok {
				return
			}
			if r.Start != tt.wantStart || r.End != tt.wantEnd || r.Chars != tt.wantChars || r.Padding != tt.wantPad ||
				r.URLStart != tt.wantURL || r.Label != tt.wantLabel {
				t.Errorf("run = %+v, want start %d end %d chars %d pad %d url %d label %q",
					r, tt.wantStart, tt.wantEnd, tt.wantChars, tt.wantPad, tt.wantURL, tt.wantLabel)
			}
		})
	}
}

func mimeLines(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n])
		b.WriteString("\r\n")
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// TestNextRunMatchesNaive compares the striding scanner with a byte-by-byte reference on
// texts mixing runs of every length around the minimum, escapes and padding.
func TestNextRunMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{" ", "\n", `\/`, `\\/`, "=", "==", `"`, "é", "data:image/png;base64,", `\n`}
	for iter := range 300 {
		var b strings.Builder
		for b.Len() < 6000 {
			if r.IntN(3) == 0 {
				b.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				n := r.IntN(80)
				if r.IntN(8) == 0 {
					n = 40 + r.IntN(30)
				}
				b.WriteString(fxBase64Noise(n + 1))
			}
		}
		text := b.String()
		minRun := 32 + iter%40
		got := scanRuns(text, minRun)
		want := naiveRuns(text, minRun)
		if len(got) != len(want) {
			t.Fatalf("iter %d: %d runs, want %d\n got  %+v\n want %+v", iter, len(got), len(want), got, want)
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Start != w.Start || g.End != w.End || g.Chars != w.Chars || g.Escaped != w.Escaped {
				t.Fatalf("iter %d run %d: got %+v, want %+v", iter, i, g, w)
			}
		}
	}
}

// naiveRuns is the reference scanner: every byte looked at, left to right, tracking JSON
// escapes by counting backslashes.
func naiveRuns(text string, minRun int) []Run {
	var out []Run
	i := 0
	for i < len(text) {
		// A run starts at an alphabet byte or at an escape "\/" whose backslash is not escaped.
		start := i
		chars, escaped := 0, false
		j := i
		for j < len(text) {
			c := text[j]
			if scanClass[c] == scanAlpha {
				j++
				chars++
				continue
			}
			if c == '\\' && j+1 < len(text) && text[j+1] == '/' && oddBackslashesEndingAt(text, j) {
				j += 2
				chars++
				escaped = true
				continue
			}
			break
		}
		if chars == 0 {
			i++
			continue
		}
		pad := 0
		for pad < 2 && j < len(text) && text[j] == '=' {
			j++
			pad++
		}
		if chars >= minRun {
			out = append(out, Run{Start: start, End: j, Chars: chars, Padding: pad, Escaped: escaped})
		}
		i = j
	}
	return out
}

// oddBackslashesEndingAt says whether the backslash at j is preceded by an even number of
// backslashes (so that it begins an escape).
func oddBackslashesEndingAt(text string, j int) bool {
	k := 0
	for i := j; i >= 0 && text[i] == '\\'; i-- {
		k++
	}
	return k%2 == 1
}

func TestNotAlphaMask(t *testing.T) {
	for c := 0; c < 256; c++ {
		word := uint64(c) << 24
		word |= uint64('A') | uint64('z')<<8 | uint64('0')<<16 | uint64('/')<<32 | uint64('+')<<40 | uint64('9')<<48 | uint64('Z')<<56
		m := notAlphaMask(word)
		wantBad := scanClass[c] != scanAlpha
		if (m != 0) != wantBad || (m != 0 && m != 0x80<<24) {
			t.Errorf("byte 0x%02X: mask %016x, want bad=%v only in byte 3", c, m, wantBad)
		}
	}
}

func TestDecodeRun(t *testing.T) {
	pic := fxPNG(t, 40, 30, true)
	enc := b64(pic)
	tests := []struct {
		name string
		text string
	}{
		{"bare", "see " + enc + " ok"},
		{"escaped slashes", "see " + escapeSlashes(enc) + " ok"},
		{"no padding", "see " + strings.TrimRight(enc, "=") + " ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := NextRun(tt.text, 0, 1024)
			if !ok {
				t.Fatal("no run")
			}
			if r.DecodedLen() != int64(len(pic)) {
				t.Errorf("DecodedLen = %d, want %d", r.DecodedLen(), len(pic))
			}
			got, err := DecodeRun(tt.text, r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, pic) {
				t.Errorf("decoded %d bytes differ from the %d-byte picture", len(got), len(pic))
			}
			if typ := SniffRun(tt.text, r); typ != MIMEPNG {
				t.Errorf("SniffRun = %q", typ)
			}
		})
	}
	bad := "x " + fxBase64Noise(1025) + " y"
	r, _ := NextRun(bad, 0, 1024)
	if _, err := DecodeRun(bad, r); err == nil {
		t.Error("a run of 1025 characters decoded without error")
	}
}

func FuzzScan(f *testing.F) {
	f.Add(fxBase64Noise(100), 16)
	f.Add(`a\/b\\/c`+fxBase64Noise(40)+`==`, 8)
	f.Add("data:image/png;base64,"+b64(fxPNG(f, 2, 2, false)), 32)
	f.Add(`\\\/`+fxBase64Noise(30), 4)
	f.Fuzz(func(t *testing.T, text string, minRun int) {
		minRun = 1 + abs(minRun)%64
		got := scanRuns(text, minRun)
		want := naiveRuns(text, minRun)
		if len(got) != len(want) {
			t.Fatalf("%d runs, want %d: %+v vs %+v", len(got), len(want), got, want)
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Start != w.Start || g.End != w.End || g.Chars != w.Chars || g.Padding != w.Padding || g.Escaped != w.Escaped {
				t.Fatalf("run %d: %+v, want %+v", i, g, w)
			}
			if g.URLStart > g.Start || g.URLStart < -1 {
				t.Fatalf("run %d: data URL starts at %d", i, g.URLStart)
			}
			if d, err := DecodeRun(text, g); err == nil && int64(len(d)) != g.DecodedLen() {
				t.Fatalf("run %d decodes to %d bytes, DecodedLen %d", i, len(d), g.DecodedLen())
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n {
			return 0
		}
		return -n
	}
	return n
}
