package tokenize

import (
	"slices"
	"testing"
)

// TestSplitCascade: each stage splits the pieces of the one before into its matches and the
// text between them, never looking past a piece.
func TestSplitCascade(t *testing.T) {
	for _, c := range []struct {
		pre, text string
		want      []string
	}{
		{preLlamaDefault, "Hello, world 12345!", []string{"Hello", ",", " world", " ", "123", "45", "!"}},
		{preStarCoder, "abc 2024 x", []string{"abc", " ", "2", "0", "2", "4", " x"}},
		{preDeepSeekCoder, "def f(x):\n  return 42", []string{"def", " f", "(", "x", "):", "\n", " ", " return", " ", "4", "2"}},
	} {
		var got []string
		splitCascade(compileCascade(cascades[c.pre]), c.text, func(p string) { got = append(got, p) })
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q → %q, want %q", c.pre, c.text, got, c.want)
		}
	}
	if got := splitQwen35("e\u0301te", 0); got != len("e\u0301te") {
		t.Errorf("qwen35: a combining mark ends a letter run at %d", got)
	}
}
