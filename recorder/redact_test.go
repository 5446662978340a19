package recorder

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

// TestRedactorIsRedactText: whatever the input and however it is cut into writes, the
// redactor writes corpora.RedactText of the whole input.
func TestRedactorIsRedactText(t *testing.T) {
	pieces := []string{"https://", "http://u:p@h", "x://", ":", "/", "//", "?", "&", "#", "=",
		"key=", "access_token=", "sig=", "abc", "A", "\"", "\\", " ", "\n", "@", "é", "data:image/png;base64,iVBOR",
		`{"url":"`, `"}`, "ftp://a/b?token=zz&x=1#sig=2", "::/", "a:/"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 3000; round++ {
		var in strings.Builder
		for n := rng.IntN(30); n > 0; n-- {
			in.WriteString(pieces[rng.IntN(len(pieces))])
		}
		var out bytes.Buffer
		r := &redactor{w: &out}
		data := []byte(in.String())
		for len(data) > 0 {
			k := 1 + rng.IntN(len(data))
			if _, err := r.Write(data[:k]); err != nil {
				t.Fatal(err)
			}
			data = data[k:]
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := corpora.RedactText(in.String()); out.String() != want {
			t.Fatalf("input %q\n got %q\nwant %q", in.String(), out.String(), want)
		}
	}
}

// TestRedactorBounded: a long run without a URL end is written on as it comes (the redactor
// holds at most about redactHold bytes), and a URL longer than redactHold is cut, its
// credential never written.
func TestRedactorBounded(t *testing.T) {
	var out bytes.Buffer
	r := &redactor{w: &out}
	run := bytes.Repeat([]byte("QUFB"), 3*redactHold/4*2)
	if _, err := r.Write(run); err != nil {
		t.Fatal(err)
	}
	if len(r.held) > redactHold+3 || out.Len() < len(run)-redactHold-3 {
		t.Fatalf("held %d bytes, wrote %d of %d", len(r.held), out.Len(), len(run))
	}
	out.Reset()
	r = &redactor{w: &out}
	long := "see https://h/p?x=" + strings.Repeat("a", 2*redactHold) + "&api_key=SECRET1 and https://h/?token=SECRET2 end"
	for data := []byte(long); len(data) > 0; data = data[min(len(data), 32<<10):] { // as a body is read
		if _, err := r.Write(data[:min(len(data), 32<<10)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "SECRET") || r.cut != 1 || !strings.HasSuffix(out.String(), " and https://h/?token=REDACTED end") {
		t.Fatalf("cut %d, output ends %q", r.cut, out.String()[max(0, out.Len()-80):])
	}
}

// FuzzScrubber: the scrubber, fed in writes of any size, writes what its in-memory form writes
// (writeScrubbed), which is corpora.RedactText of the input with the URL escapes undone.
func FuzzScrubber(f *testing.F) {
	f.Add([]byte(`{"u":"https://h/?a=1\u0026key=SECRET"} see http://u:p@h/x?sig=1`), uint8(3))
	f.Add([]byte(`"https:\/\/h\/?token=x" \\u0026`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		var streamed, whole bytes.Buffer
		s := newScrubber(&streamed)
		for rest, n := data, int(step)+1; len(rest) > 0; rest = rest[min(n, len(rest)):] {
			s.Write(rest[:min(n, len(rest))])
		}
		s.Flush()
		writeScrubbed(&whole, data)
		if streamed.String() != whole.String() {
			t.Fatalf("streamed %q, whole %q", streamed.String(), whole.String())
		}
	})
}
