package replay

import (
	"errors"
	"fmt"
)

// lenientBase64Len is the length of what decodeLenientBase64 returns for s, and its error,
// found without decoding: a picture over the byte cap needs only its length.
func lenientBase64Len(s string) (int64, error) {
	var n int64
	quad, pads := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			if quad >= 2 {
				pads++
				if quad+pads >= 4 {
					return n + int64(quad-1), nil
				}
			}
			continue
		}
		if base64Value[c] == 0xff {
			continue
		}
		pads = 0
		if quad++; quad == 4 {
			n, quad = n+3, 0
		}
	}
	switch quad {
	case 0:
		return n, nil
	case 1:
		return 0, fmt.Errorf("invalid base64: number of data characters (%d) cannot be 1 more than a multiple of 4", n/3*4+1)
	}
	return 0, errors.New("incorrect base64 padding")
}

// lenientBase64Head decodes the first bytes of s (at most about max bytes), as
// decodeLenientBase64 would decode them: enough to read a picture's header without decoding
// all of it.
func lenientBase64Head(s string, max int) []byte {
	chars, end := 0, len(s)
	for i := 0; i < len(s) && end == len(s); i++ {
		if base64Value[s[i]] != 0xff {
			if chars++; chars == max/3*4 {
				end = i + 1
			}
		}
	}
	head, err := decodeLenientBase64(s[:end])
	if err != nil {
		return nil
	}
	return head
}
