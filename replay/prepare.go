package replay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"sync"

	"golang.org/x/image/bmp"
	"golang.org/x/image/webp"
)

// Reasons a picture is not attached by the agent (docs/pipeline.md §7.2). Errors
// returned by PreparePicture wrap one of them.
var (
	ErrNotPicture      = errors.New("not a picture: no known image signature")
	ErrNoDecoder       = errors.New("no decoder for this image type")
	ErrTooManyFrames   = errors.New("more frames than allowed")
	ErrTooManyPixels   = errors.New("more pixels than allowed")
	ErrUndecodable     = errors.New("picture cannot be decoded")
	ErrDoesNotFit      = errors.New("picture does not fit the embed budget")
	ErrEdgeTooLong     = errors.New("picture cannot be shrunk to the long-edge limit")
	ErrNotAttachedSlot = errors.New("not attached")
)

// JPEG qualities of the resize ladder, tried in order at each size level.
var ladderQualities = [...]int{85, 70, 50}

const (
	ladderLevels   = 5  // level 0 is the original size, levels 1–4 halve
	ladderMinSide  = 64 // px floor of a halving
	maxBase64Bytes = 20 << 20
	// pngMaxInflateRatio bounds how many raw bytes deflate can produce per compressed byte
	// (the format's limit is about 1032:1); a PNG whose header claims more raw bytes than
	// its IDAT data can hold is truncated and is rejected before its pixels are allocated.
	pngMaxInflateRatio = 1040
	// gifMaxLZWRatio bounds the pixels an LZW stream can produce per byte: a code of at least
	// 3 bits yields at most 4096 pixels.
	gifMaxLZWRatio = 11000
)

// PrepareOptions are the limits of picture preparation. Zero fields take the defaults.
type PrepareOptions struct {
	// EmbedTargetBytes is vision.embed_target_bytes: the data-URL length a picture must fit
	// (default 262,144; clamped to 65,536–4,194,304).
	EmbedTargetBytes int
	// MaxLongEdge is the longest side sent, in px (default 1568).
	MaxLongEdge int
	// MaxFrames is the most frames a picture may have (default 100).
	MaxFrames int
	// MaxPixels is the most decoded pixels over all frames (default 100,000,000).
	MaxPixels int64
}

func (o PrepareOptions) withDefaults() PrepareOptions {
	o.EmbedTargetBytes = min(ClampEmbedTarget(o.EmbedTargetBytes), maxBase64Bytes)
	if o.MaxLongEdge <= 0 {
		o.MaxLongEdge = DefaultMaxLongEdge
	}
	lim := PictureLimits{MaxFrames: o.MaxFrames, MaxPixels: o.MaxPixels}.withDefaults()
	o.MaxFrames, o.MaxPixels = lim.MaxFrames, lim.MaxPixels
	return o
}

// PreparedPicture is a picture as the agent attaches it.
type PreparedPicture struct {
	// Data are the bytes sent; MimeType their type.
	Data     []byte
	MimeType string
	// SourceType is the type the input's signature says.
	SourceType string
	// Width and Height are the size sent; OrigWidth and OrigHeight the input's size.
	Width, Height         int
	OrigWidth, OrigHeight int
	// Frames is the number of frames of the input.
	Frames int
	// DataURLLen is the length of the data URL of Data, header included.
	DataURLLen int
	// Kept says the original bytes (after normalisation) were sent unchanged.
	Kept bool
	// Quality is the JPEG quality of a re-encoded picture (0 when kept).
	Quality int
	// ScaleNote is the source agent's note when the size changed ("" otherwise).
	ScaleNote string
}

// DataURLLen returns the length of "data:<mime>;base64,<payload>" for n bytes.
func DataURLLen(mime string, n int) int {
	return len("data:") + len(mime) + len(";base64,") + base64.StdEncoding.EncodedLen(n)
}

// ScaleNote is the source agent's coordinate note for a downscale (_build_scale_note):
// the factors are original/new formatted with two decimals.
func ScaleNote(ow, oh, nw, nh int) string {
	fx, fy := 1.0, 1.0
	if nw != 0 {
		fx = float64(ow) / float64(nw)
	}
	if nh != 0 {
		fy = float64(oh) / float64(nh)
	}
	sx, sy := fmt.Sprintf("%.2f", fx), fmt.Sprintf("%.2f", fy)
	var clause string
	if sx == sy {
		clause = "multiply any coordinates you report by " + sx + " to map back to the original image."
	} else {
		clause = "multiply any x coordinates you report by " + sx + " and any y coordinates by " + sy + " to map back to the original image."
	}
	return fmt.Sprintf("Image downscaled from %dx%d to %dx%d for vision; %s", ow, oh, nw, nh, clause)
}

// sniffPictureType returns the MIME type an image's leading bytes say: SniffImage's types, and
// like the source agent the ISO-BMFF AVIF/HEIC brands
// within the declared ftyp box; "" for anything else.
func sniffPictureType(b []byte) string {
	if t := SniffImage(b); t != "" {
		return t
	}
	if len(b) >= 12 && string(b[4:8]) == "ftyp" {
		size := int(binary.BigEndian.Uint32(b[:4]))
		if size < 16 || size > len(b) {
			return ""
		}
		for off := 8; off+4 <= size; off += 4 {
			if off == 12 {
				continue // minor version
			}
			switch string(b[off : off+4]) {
			case "avif", "avis", "av01":
				return "image/avif"
			case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1":
				return "image/heic"
			}
		}
	}
	return ""
}

// pictureHeader is what the headers say about a picture, read without decoding pixels.
type pictureHeader struct {
	width, height int
	frames        int
	// implausible says the header claims more pixels than the compressed data can produce.
	implausible bool
}

// readPictureHeader reads size and frame count from the headers only. For PNG and GIF it
// also rejects a header that claims more pixels than the compressed data can produce.
func readPictureHeader(data []byte, mime string) (pictureHeader, error) {
	var cfg image.Config
	var err error
	h := pictureHeader{frames: 1}
	switch mime {
	case "image/png":
		return readPNGHeader(data)
	case "image/gif":
		return readGIFHeader(data)
	case "image/jpeg":
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	case "image/bmp":
		cfg, err = bmp.DecodeConfig(bytes.NewReader(data))
	case "image/webp":
		cfg, err = webp.DecodeConfig(bytes.NewReader(data))
		if err == nil {
			h.frames = max(1, countWebPFrames(data))
		}
	default:
		return h, fmt.Errorf("%w: %s", ErrNoDecoder, mime)
	}
	if err != nil {
		return h, checkErrorf(ErrUndecodable, "the %s header cannot be read: %v", pictureTypeName(mime), err)
	}
	h.width, h.height = cfg.Width, cfg.Height
	return h, nil
}

// readPNGHeader reads IHDR and walks the chunks: it counts APNG frames (fcTL chunks present)
// and the IDAT bytes, and rejects a header whose raw size cannot come out of that data.
func readPNGHeader(data []byte) (pictureHeader, error) {
	h := pictureHeader{}
	if len(data) < 33 || string(data[12:16]) != "IHDR" {
		return h, checkErrorf(ErrUndecodable, "the PNG has no complete IHDR header")
	}
	w := int64(binary.BigEndian.Uint32(data[16:20]))
	ht := int64(binary.BigEndian.Uint32(data[20:24]))
	depth, colourType := int64(data[24]), data[25]
	var channels int64
	switch colourType {
	case 0, 3:
		channels = 1
	case 2:
		channels = 3
	case 4:
		channels = 2
	case 6:
		channels = 4
	}
	if w == 0 || ht == 0 || channels == 0 || w > 1<<31-1 || ht > 1<<31-1 {
		return h, checkErrorf(ErrUndecodable, "the PNG header declares an invalid picture (%d×%d, colour type %d)", w, ht, colourType)
	}
	h.width, h.height = int(w), int(ht)
	var idat int64
	fctl := 0
	for off := 8; off+8 <= len(data); {
		n := int64(binary.BigEndian.Uint32(data[off : off+4]))
		kind := string(data[off+4 : off+8])
		switch kind {
		case "IDAT", "fdAT":
			idat += n
		case "fcTL":
			fctl++
		}
		next := int64(off) + 12 + n
		if kind == "IEND" || next > int64(len(data)) {
			break
		}
		off = int(next)
	}
	h.frames = max(1, fctl)
	rowBytes := (w*channels*depth + 7) / 8
	raw := ht * (1 + rowBytes)
	h.implausible = raw > pngMaxInflateRatio*(idat+4096)
	return h, nil
}

// readGIFHeader reads the logical screen size and walks the blocks to count frames without
// decoding them. A frame whose LZW data cannot fill it marks the header implausible.
func readGIFHeader(data []byte) (pictureHeader, error) {
	h := pictureHeader{}
	if len(data) < 13 {
		return h, checkErrorf(ErrUndecodable, "the GIF header is truncated")
	}
	h.width = int(binary.LittleEndian.Uint16(data[6:8]))
	h.height = int(binary.LittleEndian.Uint16(data[8:10]))
	walkGIF(data, func(f gifFrame) error {
		if f.w*f.h > gifMaxLZWRatio*int64(f.dataLen)+4096 {
			h.implausible = true
		}
		if f.complete { // a frame claimed but not present ends the count
			h.frames++
		}
		return nil
	})
	if h.frames == 0 {
		return h, checkErrorf(ErrUndecodable, "the GIF has no complete frame")
	}
	return h, nil
}

// gifFrame is one image descriptor of a GIF, as the block walk meets it.
type gifFrame struct {
	w, h int64
	// lzw is the offset of the frame's LZW minimum code size byte.
	lzw int
	// dataLen is the length of the LZW data in its sub-blocks.
	dataLen int
	// complete says the sub-block chain ends within the data.
	complete bool
}

// walkGIF walks the blocks after a GIF's header (and global colour table) without decoding
// anything, calling fn for each image descriptor. The walk ends at the trailer, at a byte that
// starts no block, after a frame whose data is cut off, or at fn's first error.
func walkGIF(data []byte, fn func(gifFrame) error) error {
	if len(data) < 13 {
		return errNotEnoughData
	}
	off := 13
	if data[10]&0x80 != 0 {
		off += 3 << ((data[10] & 7) + 1)
	}
	for off < len(data) {
		switch data[off] {
		case 0x21: // extension
			next, _ := gifSkipSubBlocks(data, off+2)
			if next < 0 {
				return nil
			}
			off = next
		case 0x2C: // image descriptor
			if off+10 > len(data) {
				return nil
			}
			f := gifFrame{w: int64(binary.LittleEndian.Uint16(data[off+5 : off+7])),
				h: int64(binary.LittleEndian.Uint16(data[off+7 : off+9]))}
			f.lzw = off + 10
			if flags := data[off+9]; flags&0x80 != 0 {
				f.lzw += 3 << ((flags & 7) + 1)
			}
			if f.lzw >= len(data) {
				return nil
			}
			next, n := gifSkipSubBlocks(data, f.lzw+1)
			f.dataLen, f.complete = n, next >= 0
			if err := fn(f); err != nil || !f.complete {
				return err
			}
			off = next
		default: // the trailer, or bytes after the last frame
			return nil
		}
	}
	return nil
}

// countWebPFrames counts ANMF chunks of an animated WebP.
func countWebPFrames(data []byte) int {
	n := 0
	for off := 12; off+8 <= len(data); {
		size := int(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		if string(data[off:off+4]) == "ANMF" {
			n++
		}
		next := off + 8 + size + size&1
		if next <= off || next > len(data) {
			break
		}
		off = next
	}
	return n
}

// decodeFirstFrame fully decodes a picture whose header passed the limits: every frame of a
// GIF is decoded (validation), and the first frame is returned at canvas size.
func decodeFirstFrame(data []byte, mime string, hdr pictureHeader) (image.Image, error) {
	r := bytes.NewReader(data)
	var img image.Image
	var err error
	switch mime {
	case "image/png":
		img, err = png.Decode(r)
	case "image/jpeg":
		img, err = jpeg.Decode(r)
	case "image/bmp":
		img, err = bmp.Decode(r)
	case "image/webp":
		img, err = webp.Decode(r)
	case "image/gif":
		var all *gif.GIF
		all, err = gif.DecodeAll(r)
		if err != nil {
			// A file that ends after its last complete frame (no trailer) still validates.
			if first, err2 := gif.Decode(bytes.NewReader(data)); err2 == nil && hdr.frames == 1 {
				img, err = first, nil
			}
			break
		}
		canvas := image.NewRGBA(image.Rect(0, 0, hdr.width, hdr.height))
		draw.Draw(canvas, all.Image[0].Bounds(), all.Image[0], all.Image[0].Bounds().Min, draw.Src)
		img = canvas
	default:
		return nil, fmt.Errorf("%w: %s", ErrNoDecoder, mime)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUndecodable, mime, err)
	}
	return img, nil
}

// PreparePicture prepares one picture as the agent attaches it (docs/pipeline.md
// §7.2–7.3): re-sniff the bytes; normalise BMP to PNG; check frames and total pixels from the
// headers before any pixel is allocated, then decode fully; keep the original bytes when their
// data URL fits the budget and the long edge the limit; otherwise re-encode as JPEG (alpha
// dropped, first frame) over up to four halvings with a 64 px floor, trying qualities 85, 70
// and 50 at each size, and accept the first that fits. A picture that still does not fit is
// rejected (the source leaves it as a MEDIA: path).
func PreparePicture(ctx context.Context, data []byte, opts PrepareOptions) (*PreparedPicture, error) {
	opts = opts.withDefaults()
	info, hdr, err := checkPictureHeader(data, PictureLimits{MaxFrames: opts.MaxFrames, MaxPixels: opts.MaxPixels})
	if err != nil {
		return nil, err
	}
	mime := info.Type
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	img, err := decodeFirstFrame(data, mime, hdr)
	if err != nil {
		return nil, err
	}
	if b := img.Bounds(); b.Dx() != hdr.width || b.Dy() != hdr.height {
		return nil, fmt.Errorf("%w: %s decoded to %dx%d, header says %dx%d", ErrUndecodable, mime, b.Dx(), b.Dy(), hdr.width, hdr.height)
	}
	out := &PreparedPicture{SourceType: mime, OrigWidth: hdr.width, OrigHeight: hdr.height, Frames: hdr.frames}

	// Normalise: JPEG, PNG, GIF and WebP are accepted as they are; other rasters become PNG.
	sendType, sendBytes := mime, data
	if mime == "image/bmp" {
		var buf bytes.Buffer
		if err := png.Encode(&buf, normaliseForPNG(img)); err != nil {
			return nil, fmt.Errorf("%w: BMP to PNG: %v", ErrUndecodable, err)
		}
		sendType, sendBytes = "image/png", buf.Bytes()
	}

	budget := opts.EmbedTargetBytes
	longEdge := max(hdr.width, hdr.height)
	if len(sendBytes)*4/3+100 <= budget && longEdge <= opts.MaxLongEdge {
		if n := DataURLLen(sendType, len(sendBytes)); n <= budget {
			out.Data, out.MimeType, out.Kept = sendBytes, sendType, true
			out.Width, out.Height, out.DataURLLen = hdr.width, hdr.height, n
			return out, nil
		}
	}
	return out, resizeLadder(ctx, out, flattenForJPEG(img), budget, opts.MaxLongEdge)
}

// resizeLadder runs the slow path of the source's _resize_image_for_vision with force_jpeg and
// the MCP post-check, filling out on success.
func resizeLadder(ctx context.Context, out *PreparedPicture, img image.Image, budget, maxEdge int) error {
	w, h := out.OrigWidth, out.OrigHeight
	prevW, prevH := w, h
	var last struct {
		w, h, n, q int
		ok         bool
	}
	for level := 0; level < ladderLevels; level++ {
		if level > 0 {
			nw, nh := halveDims(w, h)
			if nw == prevW && nh == prevH {
				break
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			img = downscaleArea(img, nw, nh)
			w, h, prevW, prevH = nw, nh, nw, nh
		}
		if max(w, h) > maxEdge {
			// No quality can make this level acceptable: skip the encodes.
			last.w, last.h, last.ok = w, h, false
			continue
		}
		for _, q := range ladderQualities {
			if err := ctx.Err(); err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
				return fmt.Errorf("%w: JPEG encode: %v", ErrUndecodable, err)
			}
			n := DataURLLen("image/jpeg", buf.Len())
			last.w, last.h, last.n, last.q, last.ok = w, h, n, q, true
			if n <= budget {
				out.Data, out.MimeType, out.Quality = buf.Bytes(), "image/jpeg", q
				out.Width, out.Height, out.DataURLLen = w, h, n
				if w != out.OrigWidth || h != out.OrigHeight {
					out.ScaleNote = ScaleNote(out.OrigWidth, out.OrigHeight, w, h)
				}
				return nil
			}
		}
	}
	if max(last.w, last.h) > maxEdge {
		return fmt.Errorf("%w: %dx%d stops at %dx%d (64 px floor), long edge over %d px",
			ErrEdgeTooLong, out.OrigWidth, out.OrigHeight, last.w, last.h, maxEdge)
	}
	return fmt.Errorf("%w: smallest candidate %dx%d at quality %d has a %d-character data URL (budget %d)",
		ErrDoesNotFit, last.w, last.h, last.q, last.n, budget)
}

// halveDims is one step of the source's ladder: both sides halved (truncating) with a 64 px
// floor; when one side lands on the floor the other is recomputed from that side's scale.
func halveDims(w, h int) (int, int) {
	nw := max(int(float64(w)*0.5), ladderMinSide)
	nh := max(int(float64(h)*0.5), ladderMinSide)
	if nw == ladderMinSide && w > 0 {
		scale := float64(ladderMinSide) / float64(w)
		nh = max(int(float64(h)*scale), ladderMinSide)
	} else if nh == ladderMinSide && h > 0 {
		scale := float64(ladderMinSide) / float64(h)
		nw = max(int(float64(w)*scale), ladderMinSide)
	}
	return nw, nh
}

// flattenForJPEG converts a decoded picture the way Pillow's convert("RGB") does before a JPEG
// save: grey stays grey, everything else becomes opaque RGB with the alpha channel dropped
// (colour values kept, no compositing).
func flattenForJPEG(img image.Image) image.Image {
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	b := img.Bounds()
	if rgba, ok := img.(*image.RGBA); ok && b.Min == (image.Point{}) && rgba.Opaque() {
		return rgba // what the copy below would make (a truecolour PNG without alpha decodes so)
	}
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src := img.(type) {
	case *image.NRGBA:
		for y := 0; y < b.Dy(); y++ {
			s := src.Pix[y*src.Stride : y*src.Stride+b.Dx()*4]
			d := out.Pix[y*out.Stride : y*out.Stride+b.Dx()*4]
			for i := 0; i < len(s); i += 4 {
				d[i], d[i+1], d[i+2], d[i+3] = s[i], s[i+1], s[i+2], 0xFF
			}
		}
		return out
	case *image.YCbCr, *image.RGBA:
		draw.Draw(out, out.Bounds(), img, b.Min, draw.Src) // stdlib fast paths
		for i := 3; i < len(out.Pix); i += 4 {
			out.Pix[i] = 0xFF
		}
		return out
	case *image.Paletted:
		lut := make([]color.NRGBA, len(src.Palette))
		for i, c := range src.Palette {
			lut[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
		}
		for y := 0; y < b.Dy(); y++ {
			for x := 0; x < b.Dx(); x++ {
				var c color.NRGBA
				if idx := int(src.Pix[y*src.Stride+x]); idx < len(lut) {
					c = lut[idx]
				}
				i := y*out.Stride + x*4
				out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = c.R, c.G, c.B, 0xFF
			}
		}
		return out
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := out.Pix[(y-b.Min.Y)*out.Stride:]
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			i := (x - b.Min.X) * 4
			row[i], row[i+1], row[i+2], row[i+3] = c.R, c.G, c.B, 0xFF
		}
	}
	return out
}

// normaliseForPNG mirrors the source's conversion of other rasters: modes other than RGB,
// RGBA and L become RGBA (so a paletted BMP is written as RGBA).
func normaliseForPNG(img image.Image) image.Image {
	switch img.(type) {
	case *image.Gray, *image.RGBA, *image.NRGBA:
		return img
	}
	b := img.Bounds()
	out := image.NewNRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	return out
}

// downscaleArea resizes img (grey or RGBA) to w×h by area averaging: each destination pixel is
// the mean of the source area it covers, with fractional edge weights. It streams one
// destination row at a time, so memory beyond the output is O(w).
func downscaleArea(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	var src []uint8
	var stride, ch int
	switch t := img.(type) {
	case *image.Gray:
		src, stride, ch = t.Pix, t.Stride, 1
	case *image.RGBA:
		src, stride, ch = t.Pix, t.Stride, 4
	default:
		return downscaleArea(flattenForJPEG(img), w, h)
	}
	var dstPix []uint8
	var dst image.Image
	var dstStride int
	if ch == 1 {
		g := image.NewGray(image.Rect(0, 0, w, h))
		dst, dstPix, dstStride = g, g.Pix, g.Stride
	} else {
		r := image.NewRGBA(image.Rect(0, 0, w, h))
		dst, dstPix, dstStride = r, r.Pix, r.Stride
	}
	a := newAreaScaler(sw, sh, w, h, ch)
	srcRow := func(i int) []uint8 { return src[i*stride:] }
	for y := 0; y < h; y++ {
		a.row(dstPix[y*dstStride:], y, srcRow, ch)
	}
	return dst
}

// areaScaler scales a picture down by area averaging, one destination row at a time: each
// destination pixel is the mean of the source area it covers, with fractional edge weights.
type areaScaler struct {
	hx, vy [][]areaContrib // the source columns and rows of each destination column and row
	// ch is the destination's channels: 1 (grey) or 4 (RGBA, made opaque).
	ch          int
	rowAcc, acc []float32
}

func newAreaScaler(sw, sh, w, h, ch int) *areaScaler {
	return &areaScaler{hx: areaContribs(sw, w), vy: areaContribs(sh, h), ch: ch,
		rowAcc: make([]float32, w*ch), acc: make([]float32, w*ch)}
}

// row writes destination row y into drow from the source rows src returns by index: grey
// bytes, or pixels of bpp bytes that begin with red, green and blue.
func (a *areaScaler) row(drow []uint8, y int, src func(int) []uint8, bpp int) {
	rowAcc, acc := a.rowAcc, a.acc
	clear(acc)
	for _, cy := range a.vy[y] {
		srow := src(cy.index)
		if a.ch == 4 {
			sumRowRGB(rowAcc, srow, a.hx, bpp)
		} else {
			clear(rowAcc)
			for x, cxs := range a.hx {
				for _, cx := range cxs {
					rowAcc[x] += float32(srow[cx.index]) * cx.weight
				}
			}
		}
		for i, v := range rowAcc {
			acc[i] += v * cy.weight
		}
	}
	for i, v := range acc {
		drow[i] = uint8(min(max(v+0.5, 0), 255))
	}
	if a.ch == 4 {
		for x := range len(acc) / 4 {
			drow[x*4+3] = 0xFF
		}
	}
}

// sumRowRGB sets rowAcc to one source row of pixels of bpp bytes scaled across by hx: the red,
// green and blue of each destination pixel summed in hx's order (alpha, which the caller
// makes opaque, is left out).
func sumRowRGB(rowAcc []float32, srow []uint8, hx [][]areaContrib, bpp int) {
	for x, cxs := range hx {
		var r, g, b float32
		for _, cx := range cxs {
			p := srow[cx.index*bpp : cx.index*bpp+3]
			r += float32(p[0]) * cx.weight
			g += float32(p[1]) * cx.weight
			b += float32(p[2]) * cx.weight
		}
		acc := rowAcc[x*4 : x*4+4]
		acc[0], acc[1], acc[2], acc[3] = r, g, b, 0
	}
}

type areaContrib struct {
	index  int
	weight float32
}

// areaContribs returns, for each of dn destination cells, the source cells it covers and
// their normalised weights.
func areaContribs(sn, dn int) [][]areaContrib {
	out := make([][]areaContrib, dn)
	scale := float64(sn) / float64(dn)
	for d := 0; d < dn; d++ {
		lo, hi := float64(d)*scale, float64(d+1)*scale
		for s := int(lo); s < sn && float64(s) < hi; s++ {
			overlap := min(hi, float64(s+1)) - max(lo, float64(s))
			if overlap > 0 {
				out[d] = append(out[d], areaContrib{index: s, weight: float32(overlap / scale)})
			}
		}
	}
	return out
}

// AttachOutcome is what the agent did with one picture of a result.
type AttachOutcome struct {
	// Prepared is the picture as attached (nil when not attached).
	Prepared *PreparedPicture
	// Attached says the picture is attached to the tool result.
	Attached bool
	// Err says why not (nil when attached).
	Err error
}

// PrepareAttachments applies the per-result limits of the source agent
// (_mcp_result_with_native_images, docs/pipeline.md §7.1): only the first 16 pictures
// are candidates, at most 4 are attached; candidates are prepared in waves of as many as there
// are free slots, concurrently, and consumed in candidate order; a picture that fails
// preparation is skipped silently and the next candidate takes its slot.
func PrepareAttachments(ctx context.Context, pictures [][]byte, opts PrepareOptions) []AttachOutcome {
	out := make([]AttachOutcome, len(pictures))
	candidates := min(len(pictures), DefaultAttachScan)
	for i := candidates; i < len(pictures); i++ {
		out[i].Err = fmt.Errorf("%w: only the first %d pictures of a result are candidates", ErrNotAttachedSlot, DefaultAttachScan)
	}
	attached, next := 0, 0
	for next < candidates && attached < DefaultMaxAttach {
		wave := min(DefaultMaxAttach-attached, candidates-next)
		var wg sync.WaitGroup
		for i := next; i < next+wave; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				p, err := PreparePicture(ctx, pictures[i], opts)
				out[i] = AttachOutcome{Prepared: p, Err: err}
			}(i)
		}
		wg.Wait()
		for i := next; i < next+wave; i++ {
			if out[i].Err == nil {
				out[i].Attached = true
				attached++
			} else {
				out[i].Prepared = nil
			}
		}
		next += wave
	}
	for i := next; i < candidates; i++ {
		out[i].Err = fmt.Errorf("%w: %d pictures already attached to this result", ErrNotAttachedSlot, DefaultMaxAttach)
	}
	return out
}
