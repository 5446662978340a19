package vecscan

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// digitsOrSpace is a class for the tests: '0'–'9' (high nibble 3, low 0–9) and ' ' (0x20).
var digitsOrSpace = func() *Class {
	var lo, hi [16]byte
	hi[2], hi[3] = 1, 2
	lo[0] = 1
	for i := 0; i <= 9; i++ {
		lo[i] |= 2
	}
	return NewClass(lo, hi)
}()

// TestClassHas: the nibble tables pick out exactly '0'–'9' and ' '.
func TestClassHas(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c == ' ' || c >= '0' && c <= '9'
		if got := digitsOrSpace.Has(byte(c)); got != want {
			t.Errorf("Has(%#x) = %v, want %v", c, got, want)
		}
	}
}

// naivePrefix is the oracle of Prefix.
func naivePrefix(b []byte, c *Class) int {
	blocks := len(b) &^ 31
	for i, x := range b[:blocks] {
		if c.Has(x) {
			return i
		}
	}
	return blocks
}

// TestPrefixEveryByte puts every byte value at every offset of buffers around the block sizes
// (32, 128) among bytes outside the class, and checks Prefix and PrefixBytes (the vector scan
// where the CPU has it, else the portable loop) against the oracle.
func TestPrefixEveryByte(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	outside := []byte("abcXYZ\x00\xff\x80\x1f!~/:")
	for _, n := range []int{0, 1, 31, 32, 33, 63, 64, 127, 128, 129, 160, 255, 256, 300} {
		base := make([]byte, n)
		for i := range base {
			base[i] = outside[r.IntN(len(outside))]
		}
		checkPrefix(t, base)
		for pos := 0; pos < n; pos++ {
			buf := append([]byte(nil), base...)
			for c := 0; c < 256; c++ {
				buf[pos] = byte(c)
				checkPrefix(t, buf)
			}
		}
	}
}

// checkPrefix compares both entry points (or the portable loop) with the oracle on b.
func checkPrefix(t *testing.T, b []byte) {
	t.Helper()
	want := naivePrefix(b, digitsOrSpace)
	if got := scan(b); got != want {
		t.Fatalf("PrefixBytes(%q) = %d, want %d", b, got, want)
	}
	if HasAVX2 {
		if got := Prefix(string(b), digitsOrSpace); got != want {
			t.Fatalf("Prefix(%q) = %d, want %d", b, got, want)
		}
	}
}

// scan is PrefixBytes where the vector scan runs, else the portable loop.
func scan(b []byte) int {
	if HasAVX2 || len(b) < 32 {
		return PrefixBytes(b, digitsOrSpace)
	}
	return prefix(unsafe.Pointer(unsafe.SliceData(b)), len(b), digitsOrSpace)
}

func FuzzPrefix(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz 123"))
	f.Add(make([]byte, 200))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkPrefix(t, b)
	})
}

// TestASCIIPrefix puts every byte value at every offset of strings around the block sizes.
func TestASCIIPrefix(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 127, 128, 129, 200} {
		for at := 0; at <= n; at++ {
			for c := 0; c < 256; c++ {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a' + byte(i%26)
				}
				want := n
				if at < n {
					b[at] = byte(c)
					if c >= 0x80 {
						want = at
					}
				}
				if got := ASCIIPrefix(string(b)); got != want {
					t.Fatalf("ASCIIPrefix(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}
