package ggufmeta

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// TestExactStrings: strings of spaces and newlines come back whole, past keys of every kind.
func TestExactStrings(t *testing.T) {
	want := []string{"  ", "\n\n", " a ", "", "b"}
	path := filepath.Join(t.TempDir(), "v.gguf")
	err := ggufwrite.WriteFile(path, []ggufwrite.KV{
		{Key: "general.name", Value: " name "},
		{Key: "a.flag", Value: true},
		{Key: "a.ints", Value: []int32{1, 2, 3}},
		{Key: "a.strings", Value: []string{"x", " y "}},
		{Key: "a.f", Value: float64(1)},
		{Key: "tokenizer.ggml.tokens", Value: want},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := ExactStrings(path, "tokenizer.ggml.tokens")
	if err != nil || !ok || !slices.Equal(got, want) {
		t.Errorf("ExactStrings = %q, %v, %v; want %q", got, ok, err, want)
	}
	if _, ok, err := ExactStrings(path, "no.such.key"); ok || err != nil {
		t.Errorf("absent key: ok %v, err %v", ok, err)
	}
	if _, _, err := ExactStrings(path, "a.ints"); err == nil {
		t.Error("an array of integers read as strings")
	}
}
