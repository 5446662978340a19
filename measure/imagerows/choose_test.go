package imagerows

import (
	"errors"
	"testing"
)

// TestChooseFamily: a projector file wins over a family name, a name over the default, and
// the default is a built-in family.
func TestChooseFamily(t *testing.T) {
	proj := writeMMProj(t, "kimi", mmprojKVs("clip.projector_type", "kimivl", 448, 14))
	cases := []struct {
		mmproj, name string
		want         string
	}{
		{proj, "llamacpp/gemma3", "mmproj/kimivl (kimi.gguf)"},
		{"", "llamacpp/gemma3", "llamacpp/gemma3"},
		{"", "", DefaultFamily},
	}
	for _, c := range cases {
		f, err := ChooseFamily(c.mmproj, c.name)
		if err != nil {
			t.Fatalf("ChooseFamily(%q, %q): %v", c.mmproj, c.name, err)
		}
		if f.Name != c.want {
			t.Errorf("ChooseFamily(%q, %q) = %s, want %s", c.mmproj, c.name, f.Name, c.want)
		}
	}
	var unknown *UnknownFamilyError
	if _, err := ChooseFamily("", "llamacpp/nothing"); !errors.As(err, &unknown) {
		t.Errorf("an unknown name: %v, want an UnknownFamilyError", err)
	}
}
