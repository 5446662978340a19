package corpora

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// jwUnquoteCases are JSON strings with every escape, surrogate pairs (valid, lone, reversed,
// broken), control bytes and invalid UTF-8.
var jwUnquoteCases = []string{
	`""`, `"plain"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u0041\u00e9\u65e5\uFFFD"`,
	`"\ud83d\ude00 smile"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
	`"\u12"`, `"\u12G4"`, `"\x"`, `"tab	inside"`, "\"nl\ninside\"", "\"bad\xff\\n\"", `"end\\"`,
	`"[{\"type\":\"text\",\"text\":\"Captured\"},{\"data\":\"iVBORw0KGgo=\"}]"`, `"\\\\\\"`,
	// past 64 plain bytes (the vector scan): an escape, runes past ASCII, a control byte,
	// invalid UTF-8, each at the end of a long run and in the middle of a word
	`"` + strings.Repeat("log line 42 ", 9) + `\n` + strings.Repeat("a", 70) + `\"q\u00e9"`,
	`"` + strings.Repeat("x", 67) + `日本語 é` + strings.Repeat("y", 131) + `€\t"`,
	"\"" + strings.Repeat("z", 99) + "\x01" + strings.Repeat("z", 9) + "\"",
	"\"" + strings.Repeat("w", 77) + "\xe6\x97" + strings.Repeat("w", 40) + "\\n\"",
	"\"" + strings.Repeat("v", 64) + "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" + strings.Repeat("v", 3) + "\"",
}

// jwUnquote reads validated records; on valid JSON it must equal encoding/json, byte for byte.
func TestJWUnquoteMatchesEncodingJSON(t *testing.T) {
	valid := 0
	for _, q := range jwUnquoteCases {
		if !json.Valid([]byte(q)) || !utf8.ValidString(q) { // jwCheck lets neither through
			_, _ = jwUnquote([]byte(q)) // no panic
			continue
		}
		valid++
		got, gotErr := jwUnquote([]byte(q))
		var want string
		wantErr := json.Unmarshal([]byte(q), &want)
		if (gotErr != nil) != (wantErr != nil) || got != want {
			t.Errorf("jwUnquote(%q) = %q, %v; encoding/json %q, %v", q, got, gotErr, want, wantErr)
		}
	}
	if valid < 12 {
		t.Errorf("only %d valid cases", valid)
	}
}

// jwUnescape takes exactly the strings encoding/json reads as they are (valid UTF-8, no
// control byte, known escapes) and declines the rest, past ASCII and around the vector scan.
func TestJWUnescapeDeclinesWhatJSONRepairs(t *testing.T) {
	for _, q := range jwUnquoteCases {
		checkJWUnescape(t, q)
	}
}

// checkJWUnescape holds jwUnescape of the quoted string q's inner bytes to encoding/json.
func checkJWUnescape(t *testing.T, q string) {
	t.Helper()
	var want string
	wantOK := json.Unmarshal([]byte(q), &want) == nil && utf8.ValidString(q)
	got, ok := jwUnescape([]byte(q[1 : len(q)-1]))
	if ok != wantOK || ok && got != want {
		t.Errorf("jwUnescape(%q) = %q, %v; want %q, %v", q, got, ok, want, wantOK)
	}
}

func FuzzJWUnquote(f *testing.F) {
	for _, q := range jwUnquoteCases {
		f.Add(q[1 : len(q)-1])
	}
	f.Fuzz(func(t *testing.T, inner string) {
		q := `"` + inner + `"`
		checkJWUnescape(t, q)
		if !json.Valid([]byte(q)) || !utf8.ValidString(q) { // jwCheck lets neither through
			_, _ = jwUnquote([]byte(q)) // no panic
			return
		}
		got, gotErr := jwUnquote([]byte(q))
		var want string
		wantErr := json.Unmarshal([]byte(q), &want)
		if (gotErr != nil) != (wantErr != nil) || got != want {
			t.Fatalf("jwUnquote(%q) = %q, %v; encoding/json %q, %v", q, got, gotErr, want, wantErr)
		}
	})
}

func BenchmarkJWUnquoteStringified(b *testing.B) {
	inner, _ := json.Marshal(`[{"type":"text","text":"Captured"},{"data":"` + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 80_000) + `"}]`)
	b.ReportAllocs()
	b.SetBytes(int64(len(inner)))
	for b.Loop() {
		if _, err := jwUnquote(inner); err != nil {
			b.Fatal(err)
		}
	}
}

// A 2 MB log as a tool result's text: an escaped newline every line.
func BenchmarkJWUnquoteLog(b *testing.B) {
	var log strings.Builder
	for i := 0; log.Len() < 2<<20; i++ {
		fmt.Fprintf(&log, "2026-11-30T09:00:00.%03dZ GET /api/v1/items 200 %d ms cache hit module resume #%d\n", i%1000, i%97, i)
	}
	inner, _ := json.Marshal(log.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(inner)))
	for b.Loop() {
		if _, err := jwUnquote(inner); err != nil {
			b.Fatal(err)
		}
	}
}
