package replay

import (
	"encoding/base64"
	"unsafe"

	vecbase64 "github.com/segmentio/asm/base64"
)

// The base64 decoders of the lift: github.com/segmentio/asm/base64 decodes 32 characters a
// step with AVX2 (arm64: NEON) and hands what it cannot (the last characters, anything outside
// the alphabet) to encoding/base64, so its results and errors are the standard library's
// (differential tests and FuzzDecodeBase64 hold it to that).
var (
	rawStdDecoder = vecbase64.RawStdEncoding
	stdDecoder    = vecbase64.StdEncoding
)

// stringBytes is the bytes of s, shared, for a decoder that only reads them.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// decodeRawStd decodes unpadded standard base64 into dst (at least
// base64.RawStdEncoding.DecodedLen(len(src)) bytes) as base64.RawStdEncoding.Decode does.
func decodeRawStd(dst []byte, src string) (int, error) {
	return rawStdDecoder.Decode(dst, stringBytes(src))
}

// decodeStdString decodes padded standard base64 as base64.StdEncoding.DecodeString does
// (line breaks skipped, padding required).
func decodeStdString(s string) ([]byte, error) {
	dst := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := stdDecoder.Decode(dst, stringBytes(s))
	if err != nil {
		return nil, err
	}
	return dst[:n], nil
}
