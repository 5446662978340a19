package recorder

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestUnescaperKeepsTheValue: whatever the JSON string and however it is cut into writes, what
// the unescaper writes is a JSON string of the same value.
func TestUnescaperKeepsTheValue(t *testing.T) {
	pieces := []string{`\\`, `\u0026`, `\/`, `\u00e9`, `\u002`, `\n`, `\"`, "a", "&", "/", `\\u0026`, `\u0026\u0026`, "é"}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 3000; round++ {
		var in strings.Builder
		in.WriteByte('"')
		for n := rng.IntN(20); n > 0; n-- {
			p := pieces[rng.IntN(len(pieces))]
			if p == `\u002` {
				p += "6"
			}
			in.WriteString(p)
		}
		in.WriteByte('"')
		var out bytes.Buffer
		u := &urlUnescaper{w: &out}
		data := []byte(in.String())
		for len(data) > 0 {
			k := 1 + rng.IntN(len(data))
			u.Write(data[:k])
			data = data[k:]
		}
		u.Flush()
		var want, got string
		if err := json.Unmarshal([]byte(in.String()), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || got != want {
			t.Fatalf("input %s: output %s decodes to %q (%v), want %q", in.String(), out.Bytes(), got, err, want)
		}
	}
}

// TestScrubberSeesEscapedURLs: a URL written by Go's encoding/json (& as \u0026) or PHP's (/ as
// \/) has its credentials redacted all the same.
func TestScrubberSeesEscapedURLs(t *testing.T) {
	body, _ := json.Marshal(map[string]string{"url": "https://s3.test/shot.png?X-Amz-Credential=CRED1&X-Amz-Signature=SIG1"})
	body = append(body, []byte(` {"u":"https:\/\/h\/x?a=1&token=TOK1"}`)...)
	if !bytes.Contains(body, []byte(`\u0026`)) {
		t.Fatal("encoding/json no longer escapes &")
	}
	var out bytes.Buffer
	s := newScrubber(&out)
	for _, c := range bytes.SplitAfter(body, []byte(`\`)) { // cut inside every escape
		s.Write(c)
	}
	s.Flush()
	for _, secret := range []string{"CRED1", "SIG1", "TOK1"} {
		if strings.Contains(out.String(), secret) {
			t.Errorf("%s survived: %s", secret, out.String())
		}
	}
	var buf bytes.Buffer
	writeScrubbed(&buf, body)
	if buf.String() != out.String() {
		t.Errorf("in memory %s, streamed %s", buf.String(), out.String())
	}
}
