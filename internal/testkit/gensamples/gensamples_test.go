package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestGenerateReproducesTheCommittedCorpus regenerates the corpus into a temporary directory
// and compares it byte for byte with corpora/samples.
func TestGenerateReproducesTheCommittedCorpus(t *testing.T) {
	dir := t.TempDir()
	if err := generate(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", "..", "corpora", "samples")
	want, err := os.ReadDir(committed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("generated %d files, committed %d: run go generate ./corpora/", len(got), len(want))
	}
	for _, e := range want {
		a, err := os.ReadFile(filepath.Join(committed, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Errorf("%s: not generated: %v", e.Name(), err)
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: regenerated file differs from the committed one (%d vs %d bytes): run go generate ./corpora/", e.Name(), len(b), len(a))
		}
	}
}

func TestGenerateHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := generate(ctx, t.TempDir()); err == nil {
		t.Fatal("a cancelled generate returned no error")
	}
}

func TestEncodeJSON(t *testing.T) {
	pic := payload{Data: []byte("x"), Type: "image/png", Picture: true}
	tests := []struct {
		name      string
		doc       any
		st        style
		want      string
		pointers  []string
		innerPtrs [][]string
	}{
		{"key order and JS escaping", obj{{"b", 1}, {"a", arr{"x</y>", "q\"\\\n\t\x01é/"}}}, compact,
			`{"b":1,"a":["x</y>","q\"\\\n\t\u0001é/"]}`, nil, nil},
		{"pretty like JSON.stringify(v, null, 2)", arr{obj{{"k", arr{}}, {"o", obj{}}, {"n", nil}}}, pretty,
			"[\n  {\n    \"k\": [],\n    \"o\": {},\n    \"n\": null\n  }\n]", nil, nil},
		{"pointer escaping", obj{{"a/b", obj{{"m~n", blob{text: "eA==", notes: []payload{pic}}}}}}, compact,
			`{"a/b":{"m~n":"eA=="}}`, []string{"/a~1b/m~0n"}, [][]string{nil}},
		{"nested JSON strings", obj{{"content", nested{doc: arr{obj{{"text", nested{doc: obj{{"blob", blob{text: "eA==", notes: []payload{pic}}}}}}}}}}}, compact,
			`{"content":"[{\"text\":\"{\\\"blob\\\":\\\"eA==\\\"}\"}]"}`, []string{"/content"}, [][]string{{"/0/text", "/blob"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := encodeJSON(tt.doc, tt.st)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Fatal("not valid JSON")
			}
			if len(found) != len(tt.pointers) {
				t.Fatalf("found %d payloads, want %d", len(found), len(tt.pointers))
			}
			for i, f := range found {
				if f.pointer != tt.pointers[i] || len(f.inner) != len(tt.innerPtrs[i]) {
					t.Fatalf("payload %d at %q %q, want %q %q", i, f.pointer, f.inner, tt.pointers[i], tt.innerPtrs[i])
				}
				for j := range f.inner {
					if f.inner[j] != tt.innerPtrs[i][j] {
						t.Fatalf("payload %d inner %q, want %q", i, f.inner, tt.innerPtrs[i])
					}
				}
			}
		})
	}
	if _, _, err := encodeJSON(obj{{"bad", struct{}{}}}, compact); err == nil {
		t.Error("an unknown value type gave no error")
	}
}

func TestMimeLinesAndIDs(t *testing.T) {
	s := mimeLines(string(bytes.Repeat([]byte("A"), 160)))
	if s != string(bytes.Repeat([]byte("A"), 76))+"\n"+string(bytes.Repeat([]byte("A"), 76))+"\n"+"AAAAAAAA\n" {
		t.Fatalf("mimeLines = %q", s)
	}
	a, b := &ids{state: 1}, &ids{state: 1}
	u := a.uuid()
	if u != b.uuid() || len(u) != 36 || u[14] != '4' {
		t.Fatalf("uuid %q not deterministic or not v4-shaped", u)
	}
}
