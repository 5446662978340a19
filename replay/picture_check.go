package replay

import (
	"bytes"
	"compress/lzw"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image/jpeg"
	"io"

	"golang.org/x/image/webp"
)

// DefaultDecodeMemory is the pixel memory a validating decode may allocate (64 MiB). PNG, GIF
// and BMP are validated by streaming, whatever their size; a JPEG or WebP whose decoded pixels
// would take more than this is judged by its structure instead of a full decode.
const DefaultDecodeMemory = 64 << 20

// PictureLimits are the limits of the one picture check (docs/pipeline.md §4.6). Zero fields take
// the defaults.
type PictureLimits struct {
	// MaxFrames is the most frames a picture may have (default 100).
	MaxFrames int
	// MaxPixels is the most pixels over all frames (default 100,000,000).
	MaxPixels int64
	// DecodeMemory bounds the pixel memory of a validating decode (default 64 MiB).
	DecodeMemory int64
}

func (l PictureLimits) withDefaults() PictureLimits {
	if l.MaxFrames <= 0 {
		l.MaxFrames = DefaultMaxFrames
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.DecodeMemory <= 0 {
		l.DecodeMemory = DefaultDecodeMemory
	}
	return l
}

// PictureInfo is what the picture check learnt about a picture.
type PictureInfo struct {
	// Type is the MIME type the signature says.
	Type string
	// Width and Height are the size the header declares (the canvas of an animation).
	Width, Height int
	// Frames is the number of frames (1 for a still picture).
	Frames int
	// Decoded says the pixel data was validated by a decode (streaming or full); false when
	// only the headers and the structure were judged (a JPEG or WebP over DecodeMemory).
	Decoded bool
}

// CheckPicture is the one picture check every path uses (the lift of tool text, MCP image
// blocks and image/* resource blobs, the client's own image parts, and the agent's preparation):
// the signature, the size and frame count the headers declare, the limits of lim, and a bounded
// decode of the pixel data. It decides from the headers before anything is inflated, so a
// decompression bomb is refused without being decoded, and a validating decode never allocates
// more than lim.DecodeMemory of pixels. The error wraps ErrNotPicture, ErrNoDecoder,
// ErrTooManyFrames, ErrTooManyPixels or ErrUndecodable; its text is the reason a stand-in
// "[image omitted: …]" gives.
func CheckPicture(data []byte, lim PictureLimits) (PictureInfo, error) {
	lim = lim.withDefaults()
	info, hdr, err := checkPictureHeader(data, lim)
	if err != nil {
		return info, err
	}
	info.Decoded, err = validatePixels(data, info.Type, hdr, lim)
	if err != nil {
		return info, err
	}
	return info, nil
}

// checkPictureHeader is the header half of the check: the signature, the declared size and
// frames against the limits, and the plausibility of the header against the data it carries.
func checkPictureHeader(data []byte, lim PictureLimits) (PictureInfo, pictureHeader, error) {
	lim = lim.withDefaults()
	info := PictureInfo{Type: SniffImage(data)}
	if info.Type == "" {
		if t := sniffPictureType(data); t != "" {
			return PictureInfo{Type: t}, pictureHeader{}, fmt.Errorf("%w: %s", ErrNoDecoder, t)
		}
		return info, pictureHeader{}, ErrNotPicture
	}
	name := pictureTypeName(info.Type)
	// The size the header declares decides first, before any other reading: a picture that
	// claims too many pixels is refused whatever follows its header.
	if w, h, err := ImageHeaderSize(data); err == nil && int64(w)*int64(h) > lim.MaxPixels {
		info.Width, info.Height, info.Frames = w, h, 1
		return info, pictureHeader{}, tooManyPixels(name, w, h, 1, lim)
	}
	hdr, err := readPictureHeader(data, info.Type)
	if err != nil {
		return info, hdr, err
	}
	info.Width, info.Height, info.Frames = hdr.width, hdr.height, hdr.frames
	if hdr.width <= 0 || hdr.height <= 0 {
		return info, hdr, checkErrorf(ErrUndecodable, "the %s header declares an empty picture (%d×%d)", name, hdr.width, hdr.height)
	}
	if hdr.frames > lim.MaxFrames {
		return info, hdr, checkErrorf(ErrTooManyFrames, "the %s has %s frames, more than the limit of %s", name,
			FormatCount(int64(hdr.frames)), FormatCount(int64(lim.MaxFrames)))
	}
	if int64(hdr.frames)*int64(hdr.width)*int64(hdr.height) > lim.MaxPixels {
		return info, hdr, tooManyPixels(name, hdr.width, hdr.height, hdr.frames, lim)
	}
	if hdr.implausible {
		return info, hdr, checkErrorf(ErrUndecodable, "the %s header claims %s×%s, more than its data can hold (truncated)", name,
			FormatCount(int64(hdr.width)), FormatCount(int64(hdr.height)))
	}
	return info, hdr, nil
}

// tooManyPixels is the verdict on a picture over the pixel limit.
func tooManyPixels(name string, w, h, frames int, lim PictureLimits) error {
	total := int64(frames) * int64(w) * int64(h)
	each := ""
	if frames > 1 {
		each = fmt.Sprintf(" × %s frames", FormatCount(int64(frames)))
	}
	return checkErrorf(ErrTooManyPixels, "the %s header claims %s×%s%s = %s pixels, more than the limit of %s", name,
		FormatCount(int64(w)), FormatCount(int64(h)), each, FormatCount(total), FormatCount(lim.MaxPixels))
}

// checkError is a verdict of the picture check: its text is the reason alone (it stands in
// "[image omitted: <reason>]"), and it wraps the kind of failure (ErrTooManyPixels, …).
type checkError struct {
	kind error
	msg  string
}

func (e *checkError) Error() string { return e.msg }
func (e *checkError) Unwrap() error { return e.kind }

func checkErrorf(kind error, format string, args ...any) error {
	return &checkError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// pictureTypeName is the short name of a picture type in reasons ("PNG").
func pictureTypeName(mime string) string {
	switch mime {
	case MIMEPNG:
		return "PNG"
	case MIMEJPEG:
		return "JPEG"
	case MIMEGIF:
		return "GIF"
	case MIMEBMP:
		return "BMP"
	case MIMEWebP:
		return "WebP"
	}
	return mime
}

// validatePixels is the bounded decode of a picture whose header passed. It says whether the
// pixel data itself was validated.
func validatePixels(data []byte, mime string, hdr pictureHeader, lim PictureLimits) (bool, error) {
	var err error
	decoded := true
	pixels := int64(hdr.width) * int64(hdr.height)
	switch mime {
	case MIMEPNG:
		err = validatePNGData(data, hdr)
	case MIMEGIF:
		err = validateGIFData(data)
	case MIMEBMP:
		err = validateBMPData(data, hdr)
	case MIMEJPEG:
		if decoded = pixels*3 <= lim.DecodeMemory; decoded {
			_, err = jpeg.Decode(bytes.NewReader(data))
		} else {
			err = validateJPEGStructure(data)
		}
	case MIMEWebP:
		if decoded = pixels*4 <= lim.DecodeMemory; decoded {
			_, err = webp.Decode(bytes.NewReader(data))
		} else {
			err = validateWebPStructure(data)
		}
	default:
		return false, fmt.Errorf("%w: %s", ErrNoDecoder, mime)
	}
	if err != nil {
		return decoded, checkErrorf(ErrUndecodable, "the %s data cannot be decoded: %v", pictureTypeName(mime), err)
	}
	return decoded, nil
}

// errNotEnoughData is a picture whose data ends before its header's size is filled.
var errNotEnoughData = errors.New("the data ends before the picture is complete (truncated)")

// validatePNGData inflates the IDAT stream without keeping it, checks every row's filter byte
// and that the stream holds exactly the rows IHDR declares (with Adam7 passes when
// interlaced). Memory is that of the inflater, whatever the picture's size.
func validatePNGData(data []byte, hdr pictureHeader) error {
	depth, colour, interlace := int64(data[24]), data[25], data[28]
	channels := map[byte]int64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
	switch {
	case channels == 0:
		return fmt.Errorf("colour type %d is not a PNG colour type", colour)
	case depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16:
		return fmt.Errorf("bit depth %d is not a PNG bit depth", depth)
	case interlace > 1:
		return fmt.Errorf("interlace method %d is not a PNG interlace method", interlace)
	}
	bpp := channels * depth
	w, h := int64(hdr.width), int64(hdr.height)
	type pass struct{ rows, rowBytes int64 }
	var passes []pass
	if interlace == 0 {
		passes = []pass{{h, (w*bpp + 7) / 8}}
	} else {
		for _, p := range [7][4]int64{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}} {
			pw, ph := (w-p[0]+p[2]-1)/p[2], (h-p[1]+p[3]-1)/p[3]
			if pw > 0 && ph > 0 {
				passes = append(passes, pass{ph, (pw*bpp + 7) / 8})
			}
		}
	}
	zr, err := zlib.NewReader(&pngIDATReader{data: data, off: 8})
	if err != nil {
		return fmt.Errorf("zlib: %w", err)
	}
	var filter [1]byte
	for _, p := range passes {
		for range p.rows {
			if _, err := io.ReadFull(zr, filter[:]); err != nil {
				return pngStreamError(err)
			}
			if filter[0] > 4 {
				return fmt.Errorf("row filter %d is not a PNG filter", filter[0])
			}
			if n, err := io.CopyN(io.Discard, zr, p.rowBytes); err != nil || n != p.rowBytes {
				return pngStreamError(err)
			}
		}
	}
	return nil
}

func pngStreamError(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF || err == nil {
		return errNotEnoughData
	}
	return err
}

// pngIDATReader reads the concatenated payloads of a PNG's IDAT chunks, in place. It is an
// io.ByteReader, so that an inflater reads no further than its stream's end.
type pngIDATReader struct {
	data []byte
	off  int // the next chunk's start
	cur  []byte
	read int // the bytes read
}

func (r *pngIDATReader) Read(p []byte) (int, error) {
	if err := r.fill(); err != nil {
		return 0, err
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	r.read += n
	return n, nil
}

func (r *pngIDATReader) ReadByte() (byte, error) {
	if err := r.fill(); err != nil {
		return 0, err
	}
	b := r.cur[0]
	r.cur = r.cur[1:]
	r.read++
	return b, nil
}

// fill makes cur the rest of the next IDAT payload that is not empty, if cur is empty.
func (r *pngIDATReader) fill() error {
	for len(r.cur) == 0 {
		if r.off+8 > len(r.data) {
			return io.ErrUnexpectedEOF
		}
		n := int64(binary.BigEndian.Uint32(r.data[r.off : r.off+4]))
		kind := string(r.data[r.off+4 : r.off+8])
		start := r.off + 8
		end := min(int64(start)+n, int64(len(r.data))) // a truncated last chunk gives what it has
		r.off = int(min(end+4, int64(len(r.data))))
		switch kind {
		case "IDAT":
			r.cur = r.data[start:end]
		case "IEND":
			return io.EOF
		}
	}
	return nil
}

// validateGIFData inflates every frame's LZW data without keeping it: each frame must hold at
// least the pixels its descriptor declares. A frame claimed but with no data at all after a
// complete one ends the picture, as decoders treat it (docs/pipeline.md §4.6,
// NousResearch/hermes-agent#124509).
func validateGIFData(data []byte) error {
	frame := 0
	return walkGIF(data, func(f gifFrame) error {
		if !f.complete && f.dataLen == 0 && frame > 0 {
			return nil
		}
		litWidth := int(data[f.lzw])
		if litWidth < 2 || litWidth > 8 {
			return fmt.Errorf("frame %d: LZW code size %d", frame, litWidth)
		}
		lr := lzw.NewReader(&gifSubBlockReader{data: data, off: f.lzw + 1}, lzw.LSB, litWidth)
		n, err := io.CopyN(io.Discard, lr, f.w*f.h)
		lr.Close()
		if n < f.w*f.h {
			if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
				return fmt.Errorf("frame %d: %w", frame, errNotEnoughData)
			}
			return fmt.Errorf("frame %d: %v", frame, err)
		}
		frame++
		return nil
	})
}

// gifSkipSubBlocks returns the offset after a chain of GIF sub-blocks starting at p and the
// length of their data, or -1 when the chain is cut off.
func gifSkipSubBlocks(data []byte, p int) (int, int) {
	total := 0
	for p < len(data) {
		n := int(data[p])
		p++
		if n == 0 {
			return p, total
		}
		p += n
		total += n
	}
	return -1, total
}

// gifSubBlockReader reads the data of a chain of GIF sub-blocks, in place.
type gifSubBlockReader struct {
	data []byte
	off  int
	cur  []byte
	done bool
}

func (r *gifSubBlockReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.done {
			return 0, io.EOF
		}
		if r.off >= len(r.data) {
			return 0, io.ErrUnexpectedEOF
		}
		n := int(r.data[r.off])
		r.off++
		if n == 0 {
			r.done = true
			return 0, io.EOF
		}
		end := min(r.off+n, len(r.data))
		r.cur = r.data[r.off:end]
		r.off = end
	}
	k := copy(p, r.cur)
	r.cur = r.cur[k:]
	return k, nil
}

// validateBMPData checks that an uncompressed BMP holds every row its header declares (the
// decoder reads rows and nothing else, so this is what decoding would find).
func validateBMPData(data []byte, hdr pictureHeader) error {
	if len(data) < 34 {
		return errNotEnoughData
	}
	offset := int64(binary.LittleEndian.Uint32(data[10:14]))
	bpp := int64(binary.LittleEndian.Uint16(data[28:30]))
	if bpp == 0 {
		return errors.New("0 bits per pixel")
	}
	if compression := binary.LittleEndian.Uint32(data[30:34]); compression != 0 && compression != 3 {
		return nil // a compressed BMP: the decoder refused it already at its header
	}
	rowBytes := (int64(hdr.width)*bpp + 31) / 32 * 4
	if need := offset + rowBytes*int64(hdr.height); need > int64(len(data)) {
		return fmt.Errorf("%w: %s bytes of rows declared, %s present", errNotEnoughData,
			FormatCount(need-offset), FormatCount(max(0, int64(len(data))-offset)))
	}
	return nil
}

// validateJPEGStructure checks a JPEG too large to decode within the memory bound: its
// segments must be complete up to a start-of-scan, and entropy-coded data must follow.
func validateJPEGStructure(data []byte) error {
	for i := 2; ; {
		for i < len(data) && data[i] == 0xFF {
			i++
		}
		if i+3 > len(data) {
			return fmt.Errorf("JPEG: %w", errNotEnoughData)
		}
		marker := data[i]
		if marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) {
			i++
			continue
		}
		length := int(binary.BigEndian.Uint16(data[i+1 : i+3]))
		if length < 2 || i+1+length > len(data) {
			return fmt.Errorf("JPEG: segment 0x%02X: %w", marker, errNotEnoughData)
		}
		if marker == 0xDA {
			if i+1+length >= len(data) {
				return fmt.Errorf("JPEG: no scan data: %w", errNotEnoughData)
			}
			return nil
		}
		if marker == 0xD9 {
			return errors.New("JPEG: the picture ends before its first scan")
		}
		i += 1 + length
	}
}

// validateWebPStructure checks a WebP too large to decode within the memory bound: the bytes
// its RIFF header declares are present, its chunks fit in them, and one of them carries an
// image (VP8, VP8L or an animation frame).
func validateWebPStructure(data []byte) error {
	end := int64(binary.LittleEndian.Uint32(data[4:8])) + 8
	if end > int64(len(data)) {
		return fmt.Errorf("WebP: %w: the RIFF header declares %s bytes, %s present", errNotEnoughData,
			FormatCount(end), FormatCount(int64(len(data))))
	}
	for off := int64(12); off+8 <= end; {
		size := int64(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		if off+8+size > end {
			return fmt.Errorf("WebP: chunk %q: %w", data[off:off+4], errNotEnoughData)
		}
		switch string(data[off : off+4]) {
		case "VP8 ", "VP8L", "ANMF":
			return nil
		}
		off += 8 + size + size&1
	}
	return errors.New("WebP: no image chunk")
}
