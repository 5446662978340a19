package suggest

import (
	"reflect"
	"testing"
)

func TestClosest(t *testing.T) {
	families := []string{"hf/qwen2vl", "hf/qwen3vl", "llamacpp/qwen2vl", "llamacpp/qwen3vl", "llamacpp/gemma3", "openai/gpt-4o-high"}
	for _, c := range []struct {
		word  string
		names []string
		want  []string
	}{
		{"vison", []string{"vision", "version", "tokenizer"}, []string{"vision"}},
		{"aftr", []string{"before", "after", "agent"}, []string{"after"}},
		{"qwen3vl", families, []string{"hf/qwen3vl", "llamacpp/qwen3vl"}},
		{"llamacpp/qwen3-vl", families, []string{"llamacpp/qwen3vl", "llamacpp/qwen2vl"}},
		{"zzz", families, nil},
	} {
		if got := Closest(c.word, c.names, 3); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got, want := DidYouMean("repaly", []string{"replay", "rows"}), ` (did you mean "replay"?)`; got != want {
		t.Errorf("DidYouMean = %q, want %q", got, want)
	}
}
