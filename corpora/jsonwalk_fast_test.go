package corpora

import (
	"encoding/json"
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

func FuzzJWUnquote(f *testing.F) {
	for _, q := range jwUnquoteCases {
		f.Add(q[1 : len(q)-1])
	}
	f.Fuzz(func(t *testing.T, inner string) {
		q := `"` + inner + `"`
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
