package replay

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
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

// TestPNGThumbnailMatchesDecode: a PNG's thumbnail made as it is inflated has the pixels of the
// full decode, flattened and scaled down, for RGB and RGBA rows under every filter, in one IDAT
// chunk or many, beside ancillary chunks; and every PNG it may not be sure of is left to the
// full decode, which judges it as before.
func TestPNGThumbnailMatchesDecode(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	check := func(name string, data []byte, wantOK bool) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(data))
		b := image.Rectangle{}
		if err == nil {
			b = img.Bounds()
		}
		w, h := thumbnailSize(max(b.Dx(), 1), max(b.Dy(), 1))
		if err != nil {
			w, h = 7, 5
		}
		got, ok := pngThumbnail(data, w, h)
		if ok != wantOK {
			t.Fatalf("%s: taken %v, want %v (decode error: %v)", name, ok, wantOK, err)
		}
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("%s: taken, but the decoder refuses it: %v", name, err)
		}
		want := downscaleArea(flattenForJPEG(img), w, h).(*image.RGBA)
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Fatalf("%s: the pixels differ from the full decode's", name)
		}
	}
	for i := range 60 {
		sw, sh := 161+rng.Intn(400), 1+rng.Intn(300)
		bpp := 3 + rng.Intn(2)
		rows := make([][]byte, sh)
		filters := make([]byte, sh)
		for y := range rows {
			rows[y] = make([]byte, sw*bpp)
			if y > 0 && rng.Intn(3) == 0 {
				copy(rows[y], rows[y-1]) // runs that the filters and inflate see repeated
			}
			for j := range rows[y] {
				if rng.Intn(4) == 0 {
					rows[y][j] = byte(rng.Intn(256))
				}
			}
			filters[y] = byte(rng.Intn(5))
		}
		data := craftPNG(sw, sh, bpp, rows, filters, 1+rng.Intn(4), i%3 == 0)
		check(fmt.Sprintf("%d×%d×%d", sw, sh, bpp), data, true)
	}
	shot, err := testimages.ScreenshotPNG(1920, 1200, 3, 900<<10)
	if err != nil {
		t.Fatal(err)
	}
	check("screenshot", shot, true)
	translucent := image.NewNRGBA(image.Rect(0, 0, 400, 300))
	rng.Read(translucent.Pix)
	var buf bytes.Buffer
	if err := png.Encode(&buf, translucent); err != nil {
		t.Fatal(err)
	}
	check("translucent", buf.Bytes(), true)

	rows := [][]byte{bytes.Repeat([]byte{1, 2, 3}, 400), bytes.Repeat([]byte{4, 5, 6}, 400)}
	good := craftPNG(400, 2, 3, rows, []byte{0, 2}, 1, false)
	withChunk := func(kind string, payload []byte) []byte {
		at := bytes.Index(good, []byte("IDAT")) - 4
		return slices.Concat(good[:at], pngChunk(kind, payload), good[at:])
	}
	tooLittle := slices.Clone(good) // IHDR says three rows
	binary.BigEndian.PutUint32(tooLittle[20:], 3)
	binary.BigEndian.PutUint32(tooLittle[29:], crc32.ChecksumIEEE(tooLittle[12:29]))
	tooMuch := slices.Clone(good) // IHDR says one row
	binary.BigEndian.PutUint32(tooMuch[20:], 1)
	binary.BigEndian.PutUint32(tooMuch[29:], crc32.ChecksumIEEE(tooMuch[12:29]))
	badCRC := slices.Clone(good)
	badCRC[len(badCRC)-20] ^= 1 // inside the IDAT chunk
	// Left to the full decode: PNGs it takes with other pixels or other chunks, and PNGs it
	// refuses (no thumbnail at all).
	for name, tt := range map[string]struct {
		data    []byte
		refused bool
	}{
		"transparent colour": {withChunk("tRNS", []byte{0, 1, 0, 2, 0, 3}), false},
		"unknown critical":   {withChunk("ABCD", nil), false},
		"grey":               {testimages.PNGBomb(400, 300), false},
		"paletted":           {pngOf(t, image.NewPaletted(image.Rect(0, 0, 400, 300), color.Palette{color.Black, color.White})), false},
		"16-bit":             {pngOf(t, image.NewRGBA64(image.Rect(0, 0, 400, 300))), false},
		"bad CRC":            {badCRC, true},
		"bad filter":         {craftPNG(400, 2, 3, rows, []byte{0, 5}, 1, false), true},
		"too little data":    {tooLittle, true},
		"no IEND":            {good[:len(good)-12], true},
		"too much data":      {tooMuch, true},
	} {
		check(name, tt.data, false)
		if _, err := MakeThumbnail(tt.data); (err != nil) != tt.refused {
			t.Errorf("%s: MakeThumbnail's error %v, want one: %v", name, err, tt.refused)
		}
	}
	check("with text", withChunk("tEXt", []byte("Comment\x00made by a test")), true)
}

// craftPNG writes a PNG of 8-bit RGB (bpp 3) or RGBA (bpp 4) rows, each filtered with its
// filter (out of range: written as is), the zlib stream cut into idats IDAT chunks.
func craftPNG(w, h, bpp int, rows [][]byte, filters []byte, idats int, text bool) []byte {
	var raw bytes.Buffer
	prev := make([]byte, w*bpp)
	for y := range h {
		row := rows[y%len(rows)]
		raw.WriteByte(filters[y])
		for i := range row {
			var left, upLeft byte
			if i >= bpp {
				left, upLeft = row[i-bpp], prev[i-bpp]
			}
			var pred byte
			switch filters[y] {
			case 1:
				pred = left
			case 2:
				pred = prev[i]
			case 3:
				pred = byte((int(left) + int(prev[i])) / 2)
			case 4:
				pred = paethPredictor(left, prev[i], upLeft)
			}
			raw.WriteByte(row[i] - pred)
		}
		prev = row
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	ihdr = append(ihdr, 8, map[int]byte{3: 2, 4: 6}[bpp], 0, 0, 0)
	out := slices.Concat([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr))
	if text {
		out = append(out, pngChunk("tEXt", []byte("Software\x00test"))...)
	}
	stream := z.Bytes()
	for i := range idats {
		out = append(out, pngChunk("IDAT", stream[len(stream)*i/idats:len(stream)*(i+1)/idats])...)
	}
	return append(out, pngChunk("IEND", nil)...)
}

// pngChunk is one PNG chunk with its length and CRC.
func pngChunk(kind string, payload []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	c = append(append(c, kind...), payload...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}

// pngOf encodes img as PNG with the standard encoder.
func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzPNGThumbnail: whatever the bytes, the PNG thumbnail made as the picture is inflated
// never panics, and when it is taken the full decode agrees with it pixel for pixel.
func FuzzPNGThumbnail(f *testing.F) {
	for i, filters := range [][]byte{{0, 1}, {2, 3}, {4, 4}} {
		bpp := 3 + i%2
		rows := [][]byte{bytes.Repeat([]byte{9, 200, 31, 4}[:bpp], 170), bytes.Repeat([]byte{1, 2, 3, 250}[:bpp], 170)}
		f.Add(craftPNG(170, 2, bpp, rows, filters, 1+i, i == 1), 100, 1)
	}
	f.Fuzz(func(t *testing.T, data []byte, w, h int) {
		if w <= 0 || h <= 0 || w > 400 || h > 400 {
			return
		}
		data = withRightCRCs(data) // so that the mutations reach the pixels
		if sw, sh, _, _, ok := pngPlainRGB(data); !ok || sw*sh > 1<<22 {
			return
		}
		got, ok := pngThumbnail(data, w, h)
		if !ok {
			return
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("taken, but the decoder refuses it: %v", err)
		}
		if want := downscaleArea(flattenForJPEG(img), w, h).(*image.RGBA); !bytes.Equal(got.Pix, want.Pix) {
			t.Fatal("the pixels differ from the full decode's")
		}
	})
}

// withRightCRCs returns a copy of a PNG with the CRC of every whole chunk made right.
func withRightCRCs(data []byte) []byte {
	data = slices.Clone(data)
	for off := 8; off+12 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[off:]))
		if n > len(data)-off-12 {
			break
		}
		binary.BigEndian.PutUint32(data[off+8+n:], crc32.ChecksumIEEE(data[off+4:off+8+n]))
		off += 12 + n
	}
	return data
}
