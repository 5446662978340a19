package replay

import (
	"encoding/json"
	"strings"
	"testing"
)

// gateTestCatalog declares the capabilities the decision rows (docs/pipeline.md §6) rely on.
const gateTestCatalog = `
providers:
  anthropic:
    models:
      claude-opus-4-5: {supports_vision: true}
  openrouter:
    models:
      deepseek/deepseek-v3.2: {supports_vision: false}
      anthropic/claude-opus-4-5: {supports_vision: true}
  xiaomi:
    models:
      mimo-v2.5: {supports_vision: true}
  exotic-vision:
    models:
      seer-1: {supports_vision: true}
  opencode-go:
    supports_vision_tool_messages_by_api_mode:
      codex_responses: [fixture-vision-model]
custom_providers:
  - name: local
    models:
      qwen3-vl-local: {vision: true}
`

func mustCatalog(t testing.TB, text string) *Catalog {
	t.Helper()
	cat, err := ParseCatalog("catalog.yaml", []byte(text))
	if err != nil {
		t.Fatalf("ParseCatalog: %v", err)
	}
	return cat
}

// TestDecideTable runs every row of the decision rule of docs/pipeline.md §6.
func TestDecideTable(t *testing.T) {
	cat := mustCatalog(t, gateTestCatalog)
	tests := []struct {
		name     string
		s        Settings
		wantLane string
		reason   string // a fragment of the reason
	}{
		{"explicit aux wins over a vision model (NousResearch/hermes-agent#24015)",
			Settings{ImageInputMode: "auto", Provider: "anthropic", Model: "claude-opus-4-5",
				AuxiliaryVision: map[string]any{"provider": "openrouter", "model": "google/gemini-2.5-flash"}},
			LaneText, "explicit auxiliary.vision"},
		{"auto provider plus a model counts as explicit",
			Settings{ImageInputMode: "auto", Provider: "anthropic", Model: "claude-opus-4-5",
				AuxiliaryVision: map[string]any{"provider": "auto", "model": "claude-3-haiku"}},
			LaneText, "explicit auxiliary.vision"},
		{"vision main model, no aux, cfg None",
			Settings{Provider: "anthropic", Model: "claude-opus-4-5"},
			LaneNative, "sees pictures"},
		{"text-only model on a media provider",
			Settings{ImageInputMode: "auto", Provider: "openrouter", Model: "deepseek/deepseek-v3.2"},
			LaneText, "cannot see"},
		{"exotic provider and model fail closed",
			Settings{ImageInputMode: "auto", Provider: "exotic-provider", Model: "exotic-model"},
			LaneText, "not known to see"},
		{"mode text",
			Settings{ImageInputMode: "text", Provider: "anthropic", Model: "claude-opus-4-5"},
			LaneText, "image_input_mode is text"},
		{"mode native with a proxy alias the catalog does not know",
			Settings{ImageInputMode: "native", Provider: "anthropic", Model: "my-proxy-claude"},
			LaneNative, "takes pictures in tool results"},
		{"declared local VLM via model.supports_vision",
			Settings{ImageInputMode: "auto", Provider: "custom", Model: "Qwen3.6-35B-A3B-local-vlm", SupportsVision: true},
			LaneNative, "config model.supports_vision"},
		{"profile veto (xiaomi)",
			Settings{ImageInputMode: "auto", Provider: "xiaomi", Model: "mimo-v2.5"},
			LaneText, "xiaomi provider profile rejects"},
		{"catalog vision off the provider whitelist",
			Settings{ImageInputMode: "auto", Provider: "exotic-vision", Model: "seer-1"},
			LaneNative, "sees pictures"},
		{"llama.cpp local VLM declared in the catalog",
			Settings{ImageInputMode: "auto", Provider: "custom:local", Model: "qwen3-vl-local"},
			LaneNative, "custom_providers[local]"},
		{"opencode-go codex_responses, allowed model",
			Settings{ImageInputMode: "native", Provider: "opencode-go", Model: "fixture-vision-model", APIMode: "codex_responses", SupportsVision: true},
			LaneNative, "declared vision-capable"},
		{"opencode-go chat_completions is vetoed",
			Settings{ImageInputMode: "native", Provider: "opencode-go", Model: "fixture-vision-model", APIMode: "chat_completions", SupportsVision: true},
			LaneText, "opencode-go provider profile rejects"},
		{"opencode-go empty API mode is vetoed",
			Settings{ImageInputMode: "native", Provider: "opencode-go", Model: "fixture-vision-model", SupportsVision: true},
			LaneText, "rejects"},
		{"opencode-go codex_responses, other model vetoed",
			Settings{ImageInputMode: "native", Provider: "opencode-go", Model: "other-model", APIMode: "codex_responses", SupportsVision: true},
			LaneText, "rejects"},
		{"opencode-go explicit aux closes the gate",
			Settings{ImageInputMode: "auto", Provider: "opencode-go", Model: "fixture-vision-model", APIMode: "codex_responses", SupportsVision: true,
				AuxiliaryVision: map[string]any{"provider": "chosen", "model": "chosen-vision"}},
			LaneText, "explicit"},
		{"opencode-go supports_vision false closes the gate",
			Settings{ImageInputMode: "auto", Provider: "opencode-go", Model: "fixture-vision-model", APIMode: "codex_responses", SupportsVision: false},
			LaneText, "cannot see"},
		{"aggregator vendor veto: openrouter + xiaomi/mimo-v2.5 (NousResearch/hermes-agent#111441)",
			Settings{ImageInputMode: "native", Provider: "openrouter", Model: "xiaomi/mimo-v2.5"},
			LaneText, "xiaomi provider profile rejects"},
		{"native on a provider off the whitelist without a declaration",
			Settings{ImageInputMode: "native", Provider: "exotic-provider", Model: "m"},
			LaneText, "does not take pictures"},
		{"gemini 2.5 on google is not a tool-media route",
			Settings{ImageInputMode: "native", Provider: "google", Model: "gemini-2.5-flash"},
			LaneText, "does not take pictures"},
		{"gemini 3 on google is",
			Settings{ImageInputMode: "native", Provider: "gemini", Model: "Gemini-3-Pro"},
			LaneNative, "takes pictures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.s, cat)
			if d.Lane != tt.wantLane {
				t.Fatalf("lane = %s (%s), want %s", d.Lane, d.Reason, tt.wantLane)
			}
			if !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("reason %q lacks %q", d.Reason, tt.reason)
			}
		})
	}
}

// TestGateAgreement checks the five parameterised combinations of TestGateAgreementWithVisionAnalyze
// against the formula written out directly.
func TestGateAgreement(t *testing.T) {
	cat := mustCatalog(t, gateTestCatalog)
	for _, s := range []Settings{
		{Provider: "exotic-vision", Model: "seer-1"},
		{Provider: "openrouter", Model: "deepseek/deepseek-v3.2"},
		{Provider: "anthropic", Model: "claude-opus-4-5", ImageInputMode: "text"},
		{Provider: "anthropic", Model: "unknown", ImageInputMode: "native"},
		{Provider: "xiaomi", Model: "mimo-v2.5"},
	} {
		mode := NormaliseMode(s.ImageInputMode)
		l, _ := LookupSupportsVision(s, cat)
		v, _ := ProfileRejectsToolMedia(s.Provider, s.Model, s.APIMode, cat)
		tr := SupportsMediaInToolResults(s.Provider, s.Model, s.APIMode, cat)
		want := (mode == ModeNative || (mode == ModeAuto && !ExplicitAuxVision(s.AuxiliaryVision) && l == CapabilityYes)) &&
			!v && (tr || l == CapabilityYes)
		if got := Decide(s, cat).Lane == LaneNative; got != want {
			t.Errorf("%+v: gate %v, formula %v", s, got, want)
		}
	}
}

func TestNormaliseMode(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"auto", ModeAuto}, {"native", ModeNative}, {"text", ModeText},
		{"NATIVE", ModeNative}, {"  Text\n", ModeText},
		{"\u001cNATIVE\u001f", ModeNative},
		{"\u00a0native\u3000", ModeNative},
		{"\u2028text\u0085", ModeText},
		{"\u200bnative", ModeAuto}, // ZERO WIDTH SPACE is not Python whitespace
		{"nonsense", ModeAuto}, {"", ModeAuto},
		{nil, ModeAuto}, {42, ModeAuto}, {true, ModeAuto}, {1.5, ModeAuto},
		{[]any{"native"}, ModeAuto}, {map[string]any{"mode": "native"}, ModeAuto},
	}
	for _, tt := range tests {
		if got := NormaliseMode(tt.in); got != tt.want {
			t.Errorf("NormaliseMode(%#v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExplicitAuxVision(t *testing.T) {
	tests := []struct {
		aux  any
		want bool
	}{
		{nil, false},
		{"openrouter", false}, // a non-dict vision block counts as empty
		{[]any{"x"}, false},
		{map[string]any{}, false},
		{map[string]any{"provider": "auto"}, false},
		{map[string]any{"provider": " AUTO \u001f"}, false},
		{map[string]any{"timeout": 60}, false},
		{map[string]any{"provider": "", "model": "", "base_url": nil}, false},
		{map[string]any{"provider": nil, "model": 0, "base_url": false}, false}, // str(x or "")
		{map[string]any{"provider": "openrouter"}, true},
		{map[string]any{"provider": "auto", "model": "x"}, true},
		{map[string]any{"provider": "auto", "model": "claude-3-haiku"}, true},
		{map[string]any{"base_url": "http://127.0.0.1:8080/v1"}, true},
		{map[string]any{"model": 5}, true},
		{map[string]any{"provider": true}, true}, // str(True) = "True"
		{map[any]any{"provider": "openrouter"}, true},
	}
	for _, tt := range tests {
		if got := ExplicitAuxVision(tt.aux); got != tt.want {
			t.Errorf("ExplicitAuxVision(%#v) = %v, want %v", tt.aux, got, tt.want)
		}
	}
	// native is the absolute override: it wins over an explicit auxiliary backend.
	d := Decide(Settings{ImageInputMode: "native", Provider: "anthropic", Model: "m",
		AuxiliaryVision: map[string]any{"provider": "openrouter"}}, nil)
	if d.Lane != LaneNative {
		t.Errorf("native + explicit aux: lane %s (%s), want native", d.Lane, d.Reason)
	}
	// {}, {provider: auto} stay native for a vision model.
	for _, aux := range []map[string]any{{}, {"provider": "auto"}} {
		d := Decide(Settings{Provider: "anthropic", Model: "m", SupportsVision: true, AuxiliaryVision: aux}, nil)
		if d.Lane != LaneNative {
			t.Errorf("aux %v: lane %s, want native", aux, d.Lane)
		}
	}
}

func TestCoerceCapability(t *testing.T) {
	tests := []struct {
		in   any
		want Capability
	}{
		{true, CapabilityYes}, {false, CapabilityNo},
		{1, CapabilityYes}, {0, CapabilityNo}, {2, CapabilityUnknown}, {-1, CapabilityUnknown},
		{int64(1), CapabilityYes}, {uint8(0), CapabilityNo},
		{1.5, CapabilityUnknown}, {1.0, CapabilityUnknown}, {0.0, CapabilityUnknown},
		{"true", CapabilityYes}, {" YES ", CapabilityYes}, {"On", CapabilityYes}, {"1", CapabilityYes},
		{"false", CapabilityNo}, {"no", CapabilityNo}, {"OFF\u001c", CapabilityNo}, {"0", CapabilityNo},
		{"maybe", CapabilityUnknown}, {"", CapabilityUnknown}, {"2", CapabilityUnknown},
		{nil, CapabilityUnknown}, {[]any{true}, CapabilityUnknown}, {map[string]any{"a": true}, CapabilityUnknown},
		{json.Number("1"), CapabilityYes}, {json.Number("1.0"), CapabilityUnknown},
	}
	for _, tt := range tests {
		if got := CoerceCapability(tt.in); got != tt.want {
			t.Errorf("CoerceCapability(%#v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestLookupSupportsVision(t *testing.T) {
	cat := mustCatalog(t, `
providers:
  custom:live:
    models:
      m1: {supports_vision: "yes"}
  live:
    models:
      m2: {vision: 1}
      m3: {supports_vision: 1.5}
      m4: {modalities: {input: [text, image]}}
      m5: {modalities: {input: [text]}}
      m6: false
custom_providers:
  - name: LIVE
    models:
      m3: {supports_vision: true}
`)
	tests := []struct {
		s    Settings
		want Capability
		src  string
	}{
		{Settings{Provider: "custom:live", Model: "m1"}, CapabilityYes, "providers.custom:live"},
		{Settings{Provider: "custom:live", Model: "m2"}, CapabilityYes, "providers.live"},
		// 1.5 coerces to None and falls through to custom_providers (case-insensitive name).
		{Settings{Provider: "custom:live", Model: "m3"}, CapabilityYes, "custom_providers[LIVE]"},
		{Settings{Provider: "live", Model: "m4"}, CapabilityYes, "providers.live"},
		{Settings{Provider: "live", Model: "m5"}, CapabilityNo, "providers.live"},
		{Settings{Provider: "live", Model: "m6"}, CapabilityNo, "providers.live"},
		{Settings{Provider: "live", Model: "unknown"}, CapabilityUnknown, "not in the catalog catalog.yaml: no providers.live.models.unknown"},
		{Settings{Provider: "", Model: "m1"}, CapabilityUnknown, "no provider or model"},
		// The config override wins over the catalog; a non-coercible override falls through.
		{Settings{Provider: "live", Model: "m5", SupportsVision: "on"}, CapabilityYes, "config model.supports_vision"},
		{Settings{Provider: "live", Model: "m5", SupportsVision: 1.5}, CapabilityNo, "providers.live"},
	}
	for _, tt := range tests {
		got, src := LookupSupportsVision(tt.s, cat)
		if got != tt.want || !strings.Contains(src, tt.src) {
			t.Errorf("%+v: got %v (%s), want %v (%s)", tt.s, got, src, tt.want, tt.src)
		}
	}
}

func TestParseCatalogErrors(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"providers: {}\nmodels: {}\n", `catalog.yaml:2: unknown catalog key "models"`},
		{"- a\n- b\n", "catalog.yaml:1: the catalog must be a mapping"},
		{"providers:\n  p:\n    models: [a, b]\n", `catalog.yaml:3: provider "p": models must be a mapping`},
		{"providers:\n  p: 3\n", `catalog.yaml:2: provider "p" must be a mapping`},
		{"providers: [\n", "catalog.yaml: yaml:"},
	}
	for _, tt := range tests {
		_, err := ParseCatalog("catalog.yaml", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseCatalog(%q) error = %v, want %q", tt.text, err, tt.want)
		}
	}
	// JSON is YAML: a JSON catalog works.
	cat := mustCatalog(t, `{"providers": {"p": {"models": {"m": {"supports_vision": true}}}}}`)
	if c, _ := LookupSupportsVision(Settings{Provider: "P", Model: "m"}, cat); c != CapabilityYes {
		t.Errorf("JSON catalog: %v", c)
	}
}

func TestClampEmbedTarget(t *testing.T) {
	for in, want := range map[int]int{0: 262144, 1: 65536, 65536: 65536, 300000: 300000, 1 << 30: 4194304, -5: 65536} {
		if got := ClampEmbedTarget(in); got != want {
			t.Errorf("ClampEmbedTarget(%d) = %d, want %d", in, got, want)
		}
	}
}

func FuzzNormaliseMode(f *testing.F) {
	for _, s := range []string{"auto", "NATIVE", "\u001cNATIVE\u001f", " text ", "nonsense", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := NormaliseMode(s)
		if got != ModeAuto && got != ModeNative && got != ModeText {
			t.Fatalf("NormaliseMode(%q) = %q", s, got)
		}
		if NormaliseMode(got) != got {
			t.Fatalf("not idempotent for %q", s)
		}
		if trimmed := strings.ToLower(pyStrip(s)); trimmed == ModeNative || trimmed == ModeText {
			if got != trimmed {
				t.Fatalf("NormaliseMode(%q) = %q, want %q", s, got, trimmed)
			}
		}
	})
}
