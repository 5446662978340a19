package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"
	"golang.org/x/image/webp"

	"github.com/strata-eval/strata-eval/records"
)

// thumbnailQuality is the JPEG quality of a thumbnail.
const thumbnailQuality = 80

// MakeThumbnail makes the report's thumbnail of a picture: its first frame scaled by area
// averaging to at most records.ThumbnailEdge pixels on the long edge (never up), alpha
// dropped, encoded as JPEG or PNG, whichever is smaller. The picture passes the header half of
// the picture check first, and one whose decoded pixels would take more than
// DefaultDecodeMemory gets no thumbnail, so that a hostile picture is never decoded and memory
// stays bounded; an error says why there is none.
func MakeThumbnail(data []byte) (records.Thumbnail, error) {
	info, hdr, err := checkPictureHeader(data, PictureLimits{})
	if err != nil {
		return records.Thumbnail{}, err
	}
	if int64(hdr.width)*int64(hdr.height)*4 > DefaultDecodeMemory {
		return records.Thumbnail{}, fmt.Errorf("%s×%s is too large to decode for a thumbnail",
			FormatCount(int64(hdr.width)), FormatCount(int64(hdr.height)))
	}
	if w, h := thumbnailSize(hdr.width, hdr.height); info.Type == MIMEPNG && (w != hdr.width || h != hdr.height) {
		if small, ok := pngThumbnail(data, w, h); ok {
			return encodeThumbnail(small)
		}
	}
	img, err := decodeThumbnailFrame(data, info.Type)
	if err != nil {
		return records.Thumbnail{}, fmt.Errorf("%w: %s: %v", ErrUndecodable, pictureTypeName(info.Type), err)
	}
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return records.Thumbnail{}, fmt.Errorf("%w: %s decodes to an empty picture", ErrUndecodable, pictureTypeName(info.Type))
	}
	w, h := thumbnailSize(b.Dx(), b.Dy())
	small := flattenForJPEG(img)
	if w != b.Dx() || h != b.Dy() {
		small = downscaleArea(small, w, h)
	}
	return encodeThumbnail(small)
}

// encodeThumbnail encodes a thumbnail's pixels as JPEG or PNG, whichever is smaller.
func encodeThumbnail(small image.Image) (records.Thumbnail, error) {
	b := small.Bounds()
	w, h := b.Dx(), b.Dy()
	var jpg, pngBuf bytes.Buffer
	if err := jpeg.Encode(&jpg, small, &jpeg.Options{Quality: thumbnailQuality}); err != nil {
		return records.Thumbnail{}, fmt.Errorf("thumbnail: JPEG encode: %w", err)
	}
	if err := png.Encode(&pngBuf, small); err != nil {
		return records.Thumbnail{}, fmt.Errorf("thumbnail: PNG encode: %w", err)
	}
	t := records.Thumbnail{Type: MIMEJPEG, Width: w, Height: h, Data: jpg.Bytes()}
	if pngBuf.Len() < jpg.Len() {
		t.Type, t.Data = MIMEPNG, pngBuf.Bytes()
	}
	return t, nil
}

// decodeThumbnailFrame decodes the first frame of a picture (of a GIF, that frame alone).
func decodeThumbnailFrame(data []byte, mime string) (image.Image, error) {
	r := bytes.NewReader(data)
	switch mime {
	case MIMEPNG:
		return png.Decode(r)
	case MIMEJPEG:
		return jpeg.Decode(r)
	case MIMEGIF:
		return gif.Decode(r)
	case MIMEBMP:
		return bmp.Decode(r)
	case MIMEWebP:
		return webp.Decode(r)
	}
	return nil, fmt.Errorf("%w: %s", ErrNoDecoder, mime)
}

// thumbnailSize scales w×h down to fit records.ThumbnailEdge on its long edge (at least 1 px a
// side); a picture already that small keeps its size.
func thumbnailSize(w, h int) (int, int) {
	long := max(w, h)
	if long <= records.ThumbnailEdge {
		return w, h
	}
	scale := func(n int) int { return max(1, (n*records.ThumbnailEdge+long/2)/long) }
	return scale(w), scale(h)
}

// sha256Hex is the hex SHA-256 digest of data.
func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
