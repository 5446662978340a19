package imagerows

import "strings"

// hostedModels maps the model ids hosted APIs record (request logs, agent sessions) to the
// family of the rule the provider's page gives for them, in one table: each prefix matches
// an id equal to it or followed by '-', '@' or ':' (a prefix ending in '.' matches any id
// it starts), the longest prefix winning. The detail level is the one an omitted detail
// uses (auto). The Claude ids of the high-resolution tier are those Claude Code's model catalog
// (2.1.337) gives image limits of 2576 px and 4784 tokens.
var hostedModels = []struct{ prefix, family string }{
	{"claude", "anthropic/claude-legacy"},
	{"claude-fable-5", "anthropic/opus-4.7-class"},
	{"claude-mythos-5", "anthropic/opus-4.7-class"},
	{"claude-opus-5", "anthropic/opus-4.7-class"},
	{"claude-opus-4-8", "anthropic/opus-4.7-class"},
	{"claude-opus-4-7", "anthropic/opus-4.7-class"},
	{"claude-sonnet-5", "anthropic/opus-4.7-class"},
	{"claude-haiku-5-5", "anthropic/opus-4.7-class"},
	{"gpt-5.6", "openai/gpt-5.6-original"},
	{"gpt-5.5", "openai/gpt-5.5-original"},
	{"gpt-5.4", "openai/gpt-5.4-high"},
	{"gpt-5.2", "openai/gpt-5.2"},
	{"gpt-5.1", "openai/gpt-5.1-high"},
	{"gpt-5", "openai/gpt-5-high"},
	{"gpt-5-mini", "openai/gpt-5-mini"},
	{"gpt-5-nano", "openai/gpt-5-nano"},
	{"gpt-5-chat-latest", "openai/gpt-5-chat-latest-high"},
	{"gpt-4.5", "openai/gpt-4.5-high"},
	{"gpt-4.1", "openai/gpt-4.1-high"},
	{"gpt-4.1-mini", "openai/gpt-4.1-mini"},
	{"gpt-4.1-nano", "openai/gpt-4.1-nano"},
	{"gpt-4o", "openai/gpt-4o-high"},
	{"gpt-4o-mini", "openai/gpt-4o-mini-high"},
	{"gpt-image-1", "openai/gpt-image-1"},
	{"computer-use-preview", "openai/computer-use-preview-high"},
	{"o1", "openai/o1-o3-high"},
	{"o3", "openai/o1-o3-high"},
	{"o4-mini", "openai/o4-mini"},
	{"gemini-3", "gemini/3-high"},
	{"gemini-3.", "gemini/3-high"},
	{"gemini-2", "gemini/2.0-tiles"},
	{"gemini-2.", "gemini/2.0-tiles"},
	{"gemini-1.5", "gemini/1.5-vertex"},
}

// FamilyForModel returns the hosted family a recorded model id implies (claude-…, gpt-…,
// o…, gemini-…), and false for an id the table does not know. A provider path before the
// id ("openai/gpt-4o", "models/gemini-2.5-flash", Bedrock's "us.anthropic.claude-…") is
// ignored, and case is folded.
func FamilyForModel(modelID string) (Family, bool) {
	id := strings.ToLower(strings.TrimSpace(modelID))
	id = id[strings.LastIndex(id, "/")+1:]
	if i := strings.LastIndex(id, "anthropic."); i >= 0 {
		id = id[i+len("anthropic."):]
	}
	best := -1
	for i, m := range hostedModels {
		if !modelPrefixMatches(id, m.prefix) {
			continue
		}
		if best < 0 || len(m.prefix) > len(hostedModels[best].prefix) {
			best = i
		}
	}
	if best < 0 {
		return Family{}, false
	}
	f, err := FamilyByName(hostedModels[best].family)
	return f, err == nil
}

// modelPrefixMatches says whether id is prefix, or starts with it followed by a separator
// (any continuation for a prefix ending in '.').
func modelPrefixMatches(id, prefix string) bool {
	if !strings.HasPrefix(id, prefix) {
		return false
	}
	if len(id) == len(prefix) || strings.HasSuffix(prefix, ".") {
		return true
	}
	return strings.ContainsRune("-@:", rune(id[len(prefix)]))
}

// Describe is the family's name with what it counts and the page it follows, for a header
// line: "anthropic/claude-legacy (standard tier …; platform.claude.com/…)".
func (f Family) Describe() string {
	var parts []string
	for _, p := range []string{f.Note, f.Page} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return f.Name
	}
	return f.Name + " (" + strings.Join(parts, "; ") + ")"
}
