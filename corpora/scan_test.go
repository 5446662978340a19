package corpora

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJWSpecialClass: the vector scan's class is exactly the bytes that end a plain run.
func TestJWSpecialClass(t *testing.T) {
	for c := 0; c < 256; c++ {
		if got, want := jwSpecial.Has(byte(c)), c == '"' || c == '\\' || c < 0x20; got != want {
			t.Errorf("jwSpecial.Has(%#x) = %v, want %v", c, got, want)
		}
	}
}

// TestJWValidStringLong: strings long enough for the vector scan, ending or broken at every
// place around its blocks, are judged as encoding/json judges them.
func TestJWValidStringLong(t *testing.T) {
	for n := 60; n <= 200; n++ {
		body := strings.Repeat("\x7fa b~", n)[:n]
		for _, tail := range []string{`"`, `\"x"`, "\x01\"", `\u00e9"`, `\q"`, ``} {
			for _, q := range []string{`"` + body + tail, `"` + body + tail + `,"k"`} {
				if got, want := jwValid([]byte("["+q+"]")), json.Valid([]byte("["+q+"]")); got != want {
					t.Fatalf("jwValid of a string of %d bytes then %q = %v, want %v", n, tail, got, want)
				}
			}
		}
	}
}
