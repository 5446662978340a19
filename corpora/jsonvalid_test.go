package corpora

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/vecscan"
)

// jwValidCases are records and near-records whose verdict encoding/json decides; jwValid must
// agree on each.
var jwValidCases = []string{
	`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"stream":false,"n":1,"t":0.7,"x":null}`,
	` [1, -2.5e+10, 0, -0, 1E5, 0.0e-1, true, false, null, "", {}, []] `,
	"{\"a\":\"\\u00e9\\n\\\"\\\\\\/\\b\\f\\r\\t\"}\r\n",
	`{"a":1,}`, `[1,]`, `{,}`, `[,1]`, `{"a" 1}`, `{"a":}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`,
	`01`, `-`, `-01`, `1.`, `.5`, `+1`, `1e`, `1e+`, `1.5E-`, `--1`, `0x10`, `1.e5`,
	`tru`, `truex`, `nul`, `nulll`, `falsee`, `True`,
	`"abc`, `"a\"`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\uABCD"`, "\"a\x1fb\"", "\"a\x7fb\"", "\"tab\tin\"",
	"\"\xff\xfe bad utf-8 \xc3\"", "\"nul\x00\"", "\x00", "",
	"   ", `{}`, `[]`, `{}}`, `[]]`, `[}`, `{]`, `{"a":[}`, `"a" "b"`, `1 2`, "\ufeff{}",
	`{"a":{"b":{"c":[1,{"d":"e"}]}}}`,
}

func TestJWValidAgreesWithEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 100_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	b64 := base64.StdEncoding.EncodeToString(raw)
	stringified, _ := json.Marshal(`{"type":"text","text":"` + strings.Repeat(`say \"hi\"\n`, 1000) + `"}`)
	cases := append([]string{
		`{"messages":[{"role":"tool","content":"data:image/png;base64,` + b64 + `"}]}`,
		`{"messages":[{"role":"tool","content":` + string(stringified) + `}]}`,
		`{"messages":[{"role":"tool","content":"` + b64[:5000] + "\x01" + b64[5000:9000] + `"}]}`,
		`{"messages":[{"role":"tool","content":"` + b64[:5003] + `\q"}]}`,
		`{"messages":[{"role":"tool","content":"` + b64[:5003],
	}, jwValidCases...)
	for _, c := range cases {
		if got, want := jwValid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("jwValid(%.80q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func TestJWValidNestingLimit(t *testing.T) {
	for _, tc := range []struct {
		open, close string
		depth       int
		want        bool
	}{
		{"[", "]", 10000, true},
		{"[", "]", 10001, false},
		{`{"a":`, "}", 10000, true},
		{`{"a":`, "}", 10001, false},
		{`[{"a":`, "}]", 5000, true},
		{`[{"a":`, "}]", 5001, false},
		{"[", "]", 100_000, false},
	} {
		doc := []byte(strings.Repeat(tc.open, tc.depth) + "1" + strings.Repeat(tc.close, tc.depth))
		if got := jwValid(doc); got != tc.want || json.Valid(doc) != tc.want {
			t.Errorf("%s × %d: jwValid %v, encoding/json %v, want %v", tc.open, tc.depth, got, json.Valid(doc), tc.want)
		}
	}
}

func TestJWCheckReportsLikeBefore(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want string
	}{
		{`{"a":1,}`, "invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"{\"a\":\"\xff\"}", "invalid UTF-8 in a string (byte 6 of the value)"},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), "invalid JSON: invalid character '[' exceeded max depth"},
		{`{"a":[1,2,{"b":"ok"}]}`, ""},
	} {
		err := jwCheck(jwNode{raw: []byte(tc.raw), loc: Location{File: "f.jsonl", Line: 3}})
		got := ""
		if err != nil {
			got = err.Err.Error()
		}
		if got != tc.want {
			t.Errorf("jwCheck(%.40q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func FuzzJWValid(f *testing.F) {
	for _, c := range jwValidCases {
		f.Add([]byte(c))
	}
	f.Add(bytes.Repeat([]byte("["), 10001))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := jwValid(b), json.Valid(b); got != want {
			t.Fatalf("jwValid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

// BenchmarkJWValid checks a 2 MB request whose tool message carries base64, as the readers do.
func BenchmarkJWValid(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 1_500_000)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	doc := []byte(`{"model":"m","messages":[{"role":"user","content":"look"},{"role":"tool","tool_call_id":"c1","content":"` +
		base64.StdEncoding.EncodeToString(raw) + `"}]}`)
	for _, impl := range []struct {
		name  string
		valid func([]byte) bool
	}{{"jwValid", jwValid}, {"encoding-json", json.Valid}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if !impl.valid(doc) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// TestJWPlain compares the word-at-a-time and vector scan with a byte loop: every byte value
// at every place of strings of 0 to 20 bytes and of lengths around the vector scan's, among
// printable ASCII and bytes of 0x80 and above, for both classes.
func TestJWPlain(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 20, 95, 96, 97, 130, 161, 200} {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := make([]byte, n)
				for i := range b {
					b[i] = "a\x80\xff\x20"[i%4]
				}
				b[at] = byte(c)
				for _, class := range []struct {
					c         *vecscan.Class
					pastASCII uint64
				}{{jwSpecial, 0}, {jwStopASCII, jwHighs}} {
					want := 0
					for want < n && !class.c.Has(b[want]) {
						want++
					}
					if got := jwPlain(b, 0, class.c, class.pastASCII); got != want {
						t.Fatalf("jwPlain(%q, %x) = %d, want %d", b, class.pastASCII, got, want)
					}
				}
			}
		}
	}
}
