package replay

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/records"
)

// TestArmMirrorsRecordsArm: Arm has the exported fields of records.Arm, with the same types
// and tags, so that ArmRecords and the arms file lose nothing a record holds.
func TestArmMirrorsRecordsArm(t *testing.T) {
	var exported []reflect.StructField
	at := reflect.TypeOf(Arm{})
	for i := 0; i < at.NumField(); i++ {
		if f := at.Field(i); f.IsExported() {
			exported = append(exported, f)
		}
	}
	rt := reflect.TypeOf(records.Arm{})
	if len(exported) != rt.NumField() {
		t.Fatalf("Arm has %d exported fields, records.Arm %d", len(exported), rt.NumField())
	}
	for i, f := range exported {
		r := rt.Field(i)
		if f.Name != r.Name || f.Type != r.Type || f.Tag != r.Tag {
			t.Errorf("field %d: Arm has %s %s %q, records.Arm %s %s %q", i, f.Name, f.Type, f.Tag, r.Name, r.Type, r.Tag)
		}
	}
}

func TestLoadArms(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.yaml"), []byte("providers:\n  anthropic:\n    models:\n      m: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "arms.yaml")
	text := `arms:
  - name: agent-native
    client: gate
    image_input_mode: native
    provider: anthropic
    model: m
    catalog: catalog.yaml
    embed_target_bytes: 131072
    auxiliary_vision: {provider: openrouter, model: google/gemini-2.5-flash}
  - name: after-textonly
    no_vision_encoder: true
    max_pictures: 2
  - name: agent
    client: gate
    supports_vision: "yes"
`
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	arms, err := LoadArms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range arms {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "before,after,agent,agent-native,after-textonly" {
		t.Fatalf("arms %s", got)
	}
	native := arms[3].Settings
	if native.Client != ClientGate || native.Server != ServerLift || native.ImageInputMode != "native" ||
		native.EmbedTargetBytes != 131072 || native.Catalog != filepath.Join(dir, "catalog.yaml") ||
		native.AuxiliaryVision["provider"] != "openrouter" {
		t.Errorf("agent-native settings %+v", native)
	}
	if d := Decide(native, mustCatalog(t, "")); d.Lane != LaneNative {
		t.Errorf("agent-native lane %s", d.Lane)
	}
	if s := arms[4].Settings; s.Client != ClientRecorded || !s.NoVisionEncoder || s.MaxPictures != 2 {
		t.Errorf("after-textonly settings %+v", s)
	}
	if s := arms[2].Settings; s.Client != ClientGate || s.ImageInputMode != ModeAuto || s.SupportsVision != "yes" {
		t.Errorf("replaced agent settings %+v", s)
	}
}

// TestEmbedTargetClamped: an embed_target_bytes out of 65,536–4,194,304 is clamped, as the
// source agent does and docs/pipeline.md §2.3 says, not rejected; 0 stays "the default".
func TestEmbedTargetClamped(t *testing.T) {
	for in, want := range map[string]int{"1000": MinEmbedTargetBytes, "99999999": MaxEmbedTargetBytes, "131072": 131072, "0": 0} {
		arms, err := ParseArms("arms.yaml", []byte("- name: x\n  client: gate\n  embed_target_bytes: "+in+"\n"))
		if err != nil {
			t.Errorf("embed_target_bytes %s: %v", in, err)
			continue
		}
		if got := arms[0].Settings.EmbedTargetBytes; got != want {
			t.Errorf("embed_target_bytes %s: %d, want %d", in, got, want)
		}
	}
}

func TestParseArmsErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown key names its line", "arms:\n  - name: x\n    colour: blue\n", `arms.yaml:3: arm "x": unknown key "colour"`},
		{"unknown key without a name", "- client: gate\n  modle: m\n", `arms.yaml:2: arm 1: unknown key "modle"`},
		{"unknown top-level key", "arm:\n  - name: x\n", `arms.yaml:1: unknown key "arm"`},
		{"missing name", "- client: gate\n", "arms.yaml:1: arm 1: name is missing"},
		{"bad name", "- name: 'a b'\n", `arms.yaml:1: arm "a b": name "a b"`},
		{"bad client", "- name: x\n  client: agent\n", `arms.yaml:1: arm "x": client "agent"`},
		{"bad server", "- name: x\n  server: magic\n", `arms.yaml:1: arm "x": server "magic"`},
		{"bad mode", "- name: x\n  image_input_mode: nonsense\n", `arm "x": image_input_mode "nonsense"`},
		{"bad supports_vision", "- name: x\n  supports_vision: 1.5\n", `arm "x": supports_vision 1.5`},
		{"negative", "- name: x\n  min_run: -1\n", `arm "x": min_run -1`},
		{"wrong type", "- name: x\n  min_run: lots\n", `arms.yaml:1: arm "x": line 2: cannot unmarshal`},
		{"duplicate", "- name: x\n- name: x\n", `arms.yaml:2: arm "x": the name is already used by the arm at line 1`},
		{"missing catalog", "- name: x\n  catalog: /nonexistent/catalog.yaml\n", `arm "x": read catalog`},
		{"not a list", "arms: 3\n", "arms.yaml:1: arms must be a list"},
		{"syntax", "- name: [x\n", "arms.yaml: yaml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseArms("arms.yaml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
	if arms, err := ParseArms("arms.yaml", []byte("\n")); err != nil || arms != nil {
		t.Errorf("empty file: %v %v", arms, err)
	}
	if _, err := LoadArms(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "read arms") {
		t.Errorf("missing file: %v", err)
	}
}
