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

// TestChooseRecorded: RecordedVision counts each case with the hosted family its model id
// implies, the default family for an id that implies none (and for a single-family caller),
// and refuses a projector file beside it.
func TestChooseRecorded(t *testing.T) {
	c, err := Choose("", RecordedVision)
	if err != nil {
		t.Fatal(err)
	}
	if !c.ByModel || c.Fallback.Name != DefaultFamily || c.Name() != "recorded (else "+DefaultFamily+")" {
		t.Errorf("Choose(recorded) = %+v named %q", c, c.Name())
	}
	hosted, _ := FamilyForModel("gpt-4.1")
	if f, ok := c.For("gpt-4.1"); !ok || f.Name != hosted.Name || f.Name != "openai/gpt-4.1-high" {
		t.Errorf("For(gpt-4.1) = %s %v, want openai/gpt-4.1-high", f.Name, ok)
	}
	for _, model := range []string{"", "qwen2.5-vl-7b-instruct"} {
		if f, ok := c.For(model); ok || f.Name != DefaultFamily {
			t.Errorf("For(%q) = %s %v, want the fallback %s", model, f.Name, ok, DefaultFamily)
		}
	}
	one, err := Choose("", "llamacpp/gemma3")
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := one.For("gpt-4.1"); ok || f.Name != "llamacpp/gemma3" || one.Name() != "llamacpp/gemma3" {
		t.Errorf("a named family counts every case: For(gpt-4.1) = %s %v, Name %q", f.Name, ok, one.Name())
	}
	if f, err := ChooseFamily("", RecordedVision); err != nil || f.Name != DefaultFamily {
		t.Errorf("ChooseFamily(recorded) = %s, %v; want %s", f.Name, err, DefaultFamily)
	}
	proj := writeMMProj(t, "kimi", mmprojKVs("clip.projector_type", "kimivl", 448, 14))
	if _, err := Choose(proj, RecordedVision); !errors.Is(err, ErrRecordedWithProjector) {
		t.Errorf("recorded with a projector: %v, want ErrRecordedWithProjector", err)
	}
}
