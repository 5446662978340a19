package imagerows

import (
	"strings"
	"testing"
)

// TestFamilyForModel holds the model-id table: recorded ids of each provider, with their
// snapshots and provider paths, map to the family of their page's rule.
func TestFamilyForModel(t *testing.T) {
	for id, want := range map[string]string{
		"claude-3-5-sonnet-20241022":         "anthropic/claude-legacy",
		"claude-sonnet-4-5":                  "anthropic/claude-legacy",
		"claude-opus-4-6":                    "anthropic/claude-legacy",
		"claude-haiku-4-5@20251001":          "anthropic/claude-legacy",
		"claude-opus-4-7":                    "anthropic/opus-4.7-class",
		"claude-opus-4-8-20260514":           "anthropic/opus-4.7-class",
		"claude-sonnet-5":                    "anthropic/opus-4.7-class",
		"claude-fable-5":                     "anthropic/opus-4.7-class",
		"claude-fable-5-2":                   "anthropic/opus-4.7-class",
		"claude-opus-5":                      "anthropic/opus-4.7-class",
		"claude-opus-5-5":                    "anthropic/opus-4.7-class",
		"claude-sonnet-5-5":                  "anthropic/opus-4.7-class",
		"claude-haiku-5-5":                   "anthropic/opus-4.7-class",
		"claude-opus-4-5-20251101":           "anthropic/claude-legacy",
		"us.anthropic.claude-opus-4-7-v1:0":  "anthropic/opus-4.7-class",
		"anthropic/claude-3-7-sonnet-latest": "anthropic/claude-legacy",
		"gpt-5.6-sol":                        "openai/gpt-5.6-original",
		"gpt-5.6-luna":                       "openai/gpt-5.6-original",
		"gpt-5.5":                            "openai/gpt-5.5-original",
		"gpt-5.4-mini-2026-03-17":            "openai/gpt-5.4-high",
		"gpt-5.4-nano":                       "openai/gpt-5.4-high",
		"gpt-5.2-2025-12-11":                 "openai/gpt-5.2",
		"gpt-5.1":                            "openai/gpt-5.1-high",
		"gpt-5":                              "openai/gpt-5-high",
		"gpt-5-2025-08-07":                   "openai/gpt-5-high",
		"gpt-5-mini-2025-08-07":              "openai/gpt-5-mini",
		"gpt-5-nano":                         "openai/gpt-5-nano",
		"gpt-5-chat-latest":                  "openai/gpt-5-chat-latest-high",
		"GPT-4.1-mini-2025-04-14":            "openai/gpt-4.1-mini",
		"gpt-4.1-nano":                       "openai/gpt-4.1-nano",
		"gpt-4.1":                            "openai/gpt-4.1-high",
		"gpt-4o-2024-08-06":                  "openai/gpt-4o-high",
		"openai/gpt-4o-mini":                 "openai/gpt-4o-mini-high",
		"o1-pro":                             "openai/o1-o3-high",
		"o3":                                 "openai/o1-o3-high",
		"o4-mini-2025-04-16":                 "openai/o4-mini",
		"computer-use-preview-2025-03-11":    "openai/computer-use-preview-high",
		"gpt-image-1":                        "openai/gpt-image-1",
		"gemini-3-pro-preview":               "gemini/3-high",
		"gemini-3.5-flash":                   "gemini/3-high",
		"models/gemini-2.5-flash":            "gemini/2.0-tiles",
		"gemini-2.0-flash":                   "gemini/2.0-tiles",
		"gemini-1.5-pro-002":                 "gemini/1.5-vertex",
	} {
		f, ok := FamilyForModel(id)
		if !ok || f.Name != want {
			t.Errorf("FamilyForModel(%q) = %q, %v; want %q", id, f.Name, ok, want)
		}
	}
	for _, id := range []string{"", "qwen3-vl-8b", "gpt-5.3-codex", "gpt-4", "o2", "gemma-3-27b", "llama-4-scout", "claudette"} {
		if f, ok := FamilyForModel(id); ok {
			t.Errorf("FamilyForModel(%q) = %q, want none", id, f.Name)
		}
	}
	for _, m := range hostedModels {
		if _, err := FamilyByName(m.family); err != nil {
			t.Errorf("%s: %v", m.prefix, err)
		}
	}
	f, _ := FamilyForModel("claude-sonnet-4-5")
	if d := f.Describe(); !strings.HasPrefix(d, "anthropic/claude-legacy (standard tier") || !strings.Contains(d, "platform.claude.com") {
		t.Errorf("Describe: %q", d)
	}
}
