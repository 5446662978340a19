package replay

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// checkDecodersAgree holds the vectorised decoders to encoding/base64 on s: the same bytes,
// and an error exactly where the standard library has one.
func checkDecodersAgree(t *testing.T, s string) {
	t.Helper()
	want, wantErr := base64.StdEncoding.DecodeString(s)
	got, err := decodeStdString(s)
	if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(got, want)) {
		t.Fatalf("decodeStdString(%q): %d bytes, %v; encoding/base64: %d bytes, %v", s, len(got), err, len(want), wantErr)
	}
	wantRaw := make([]byte, base64.RawStdEncoding.DecodedLen(len(s)))
	nWant, wantErr := base64.RawStdEncoding.Decode(wantRaw, []byte(s))
	gotRaw := make([]byte, len(wantRaw))
	n, err := decodeRawStd(gotRaw, s)
	if (err != nil) != (wantErr != nil) || (err == nil && !bytes.Equal(gotRaw[:n], wantRaw[:nWant])) {
		t.Fatalf("decodeRawStd(%q): %d bytes, %v; encoding/base64: %d bytes, %v", s, n, err, nWant, wantErr)
	}
}

func TestDecodersAgree(t *testing.T) {
	pic := fxPNG(t, 33, 21, true)
	enc := b64(pic)
	cases := []string{"", "QQ==", "QQ", enc, strings.TrimRight(enc, "="), enc + "\n", enc[:len(enc)/2] + "\r\n" + enc[len(enc)/2:]}
	// Every byte value at offsets inside and around the vector blocks of a long run.
	for _, pos := range []int{0, 1, 31, 32, 44, 45, 63, 64, 100, len(enc) - 5, len(enc) - 1} {
		for c := 0; c < 256; c++ {
			b := []byte(enc)
			b[pos] = byte(c)
			cases = append(cases, string(b))
		}
	}
	for _, s := range cases {
		checkDecodersAgree(t, s)
	}
}

// TestDecodeRunMatchesStd decodes runs of every length from 0 to 300 characters, bare and
// with "\/" escapes, and compares DecodeRun with encoding/base64 on the same characters.
func TestDecodeRunMatchesStd(t *testing.T) {
	noise := fxBase64Noise(300)
	for n := 0; n <= 300; n++ {
		if n%4 == 1 {
			continue
		}
		chars := noise[:n]
		want, err := base64.RawStdEncoding.DecodeString(chars)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{" " + chars + " ", " " + escapeSlashes(chars) + " "} {
			r, ok := NextRun(text, 0, 1)
			if n == 0 {
				continue
			}
			if !ok || r.Chars != n {
				t.Fatalf("%d characters: run %+v", n, r)
			}
			got, err := DecodeRun(text, r)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%d characters (escaped %v): %v, %d bytes, want %d", n, r.Escaped, err, len(got), len(want))
			}
		}
	}
}

func FuzzDecodeBase64(f *testing.F) {
	enc := b64(fxPNG(f, 9, 7, true))
	f.Add(enc)
	f.Add(enc[:60] + "=" + enc[60:])
	f.Add(enc[:50] + "\n" + enc[50:])
	f.Add(enc[:77] + "-" + enc[77:])
	f.Add("QUJD")
	f.Fuzz(func(t *testing.T, s string) {
		checkDecodersAgree(t, s)
		if d, err := decodeLenientBase64(s); err == nil {
			if n, err := lenientBase64Len(s); err != nil || n != int64(len(d)) {
				t.Fatalf("lenientBase64Len = %d, %v; decoded %d bytes", n, err, len(d))
			}
		}
	})
}
