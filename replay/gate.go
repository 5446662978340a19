package replay

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Gate lanes (docs/pipeline.md §6).
const (
	LaneNative = "native" // pixels are attached to the tool result, after preparation
	LaneText   = "text"   // no pixels enter the history; the text keeps MEDIA: references
)

// Image input modes (agent.image_input_mode).
const (
	ModeAuto   = "auto"
	ModeNative = "native"
	ModeText   = "text"
)

// onToolMediaWhitelist reports whether the provider's transport takes pictures inside tool
// results (docs/pipeline.md §6.4).
func onToolMediaWhitelist(p string) bool {
	switch p {
	case "openrouter", "nous", "vertex", "bedrock", "anthropic-vertex", "google-vertex",
		"anthropic", "claude", "anthropic-direct", "openai", "openai-chat", "openai-codex",
		"azure-openai":
		return true
	}
	return false
}

// isGeminiProvider reports the providers that take tool-result pictures only for Gemini 3.x.
func isGeminiProvider(p string) bool {
	switch p {
	case "google", "gemini", "google-gemini", "google-vertex-gemini":
		return true
	}
	return false
}

// isPyWhitespace reports whether Python's str.isspace() is true for r: the ASCII whitespace,
// the information separators U+001C–U+001F, U+0085, and the Unicode space separators and line
// and paragraph separators. Go's unicode.IsSpace misses U+001C–U+001F (docs/pipeline.md §6.1).
func isPyWhitespace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0D, r >= 0x1C && r <= 0x20:
		return true
	case r == 0x85, r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A,
		r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

// pyStrip is Python's str.strip() with no argument.
func pyStrip(s string) string { return strings.TrimFunc(s, isPyWhitespace) }

// NormaliseMode resolves a configured image_input_mode the way the source agent does: a string
// is stripped (Python whitespace, so "\x1cNATIVE\x1f" is native) and lower-cased; auto, native
// and text are valid; anything else, non-strings and nil included, is auto.
func NormaliseMode(v any) string {
	s, ok := v.(string)
	if !ok {
		return ModeAuto
	}
	switch m := strings.ToLower(pyStrip(s)); m {
	case ModeAuto, ModeNative, ModeText:
		return m
	}
	return ModeAuto
}

// pyStrOrEmpty mirrors Python's str(x or ""): falsy values (nil, false, 0, 0.0, empty string,
// empty collections) give "", everything else its str().
func pyStrOrEmpty(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		if t {
			return "True"
		}
		return ""
	case float64:
		if t == 0 {
			return ""
		}
		return pyFloat(t)
	case float32:
		if t == 0 {
			return ""
		}
		return pyFloat(float64(t))
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if rv.Int() == 0 {
			return ""
		}
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if rv.Uint() == 0 {
			return ""
		}
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Map, reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			return ""
		}
	}
	return fmt.Sprint(v)
}

// cleanAuxValue is the source's clean-up of an auxiliary.vision field: str(x or ""), stripped,
// lower-cased.
func cleanAuxValue(v any) string { return strings.ToLower(pyStrip(pyStrOrEmpty(v))) }

// asStringMap returns v as a map with string keys when it is a dict.
func asStringMap(v any) (map[string]any, bool) {
	switch t := v.(type) {
	case map[string]any:
		return t, true
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[fmt.Sprint(k)] = e
		}
		return out, true
	}
	return nil, false
}

// ExplicitAuxVision reports whether cfg.auxiliary.vision configures an explicit auxiliary vision
// backend, which forces the text lane under image_input_mode auto (the 2026-08-28 rule). It is
// explicit iff it is a non-empty dict and not all of: provider cleaned is "" or "auto", model
// cleaned is empty, base_url cleaned is empty. So {}, {provider: auto} and {timeout: 60} are not
// explicit; {provider: openrouter}, {provider: auto, model: x} and {base_url: …} are. A non-dict
// counts as empty.
func ExplicitAuxVision(aux any) bool {
	m, ok := asStringMap(aux)
	if !ok || len(m) == 0 {
		return false
	}
	provider := cleanAuxValue(m["provider"])
	model := cleanAuxValue(m["model"])
	baseURL := cleanAuxValue(m["base_url"])
	implicit := (provider == "" || provider == ModeAuto) && model == "" && baseURL == ""
	return !implicit
}

// normaliseProvider lower-cases and strips a provider id.
func normaliseProvider(p string) string { return strings.ToLower(pyStrip(p)) }

// providerCandidates lists the provider ids a capability lookup tries, in order: the requested
// provider (e.g. custom:live), the runtime provider (custom for a named custom provider), and
// for custom:<name> also the bare name.
func providerCandidates(provider string) []string {
	p := normaliseProvider(provider)
	if p == "" {
		return nil
	}
	out := []string{p}
	if name, ok := strings.CutPrefix(p, "custom:"); ok {
		out = append(out, "custom")
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// LookupSupportsVision is the source's _lookup_supports_vision for the replay: the config
// override model.supports_vision (Settings.SupportsVision, strictly coerced) first, then the
// catalog's providers.<candidate>.models.<model> and custom_providers entries. Unknown models
// give CapabilityUnknown ("not known to see"). The second result names where the answer came
// from.
func LookupSupportsVision(s Settings, cat *Catalog) (Capability, string) {
	if c := CoerceCapability(s.SupportsVision); c != CapabilityUnknown {
		return c, "config model.supports_vision"
	}
	provider, model := normaliseProvider(s.Provider), strings.TrimSpace(s.Model)
	if provider == "" || model == "" {
		if cat != nil {
			return CapabilityUnknown, fmt.Sprintf("no provider or model to look up in catalog %s: set the arm's provider and model, or --model", cat.Path)
		}
		return CapabilityUnknown, "no provider or model"
	}
	if c, src := cat.lookup(providerCandidates(provider), model); c != CapabilityUnknown {
		return c, src
	}
	if cat == nil {
		return CapabilityUnknown, "no catalog names it"
	}
	return CapabilityUnknown, fmt.Sprintf("not in the catalog %s: no providers.%s.models.%s", cat.Path, provider, model)
}

// routeName names the route of s in reasons: "provider/model", or what of it is missing.
func routeName(s Settings) string {
	provider, model := normaliseProvider(s.Provider), strings.TrimSpace(s.Model)
	var route string
	switch {
	case provider == "" && model == "":
		route = "the replayed model"
	case provider == "":
		route = "model " + model
	case model == "":
		route = "provider " + provider
	default:
		route = provider + "/" + model
	}
	if s.APIMode != "" {
		route += " (" + s.APIMode + ")"
	}
	return route
}

// ProfileRejectsToolMedia is the source's _profile_rejects_tool_media: the provider's profile
// vetoes pictures in tool results (supports_vision_tool_messages = False, or its per-API-mode
// table excludes apiMode or the model); for an aggregator such as openrouter and a vendor/model
// slug, the vendor's profile is consulted too. It returns the profile that vetoed.
func ProfileRejectsToolMedia(provider, model, apiMode string, cat *Catalog) (bool, string) {
	p := normaliseProvider(provider)
	if p == "" {
		return false, ""
	}
	prof := cat.profile(p)
	if prof.rejects(model, apiMode) {
		return true, p
	}
	if prof != nil && prof.Aggregator {
		if vendor, rest, ok := strings.Cut(model, "/"); ok {
			vendor = normaliseProvider(vendor)
			if vp := cat.profile(vendor); vp.rejects(rest, apiMode) {
				return true, vendor
			}
		}
	}
	return false, ""
}

// SupportsMediaInToolResults is the source's _supports_media_in_tool_results: false for an
// empty or vetoed provider; true on the whitelist; for the Gemini providers only Gemini 3.x
// models; otherwise true iff a profile declares supports_vision (unknown providers fail closed).
func SupportsMediaInToolResults(provider, model, apiMode string, cat *Catalog) bool {
	p := normaliseProvider(provider)
	if p == "" {
		return false
	}
	if vetoed, _ := ProfileRejectsToolMedia(p, model, apiMode, cat); vetoed {
		return false
	}
	if onToolMediaWhitelist(p) {
		return true
	}
	if isGeminiProvider(p) {
		m := strings.ToLower(model)
		return strings.Contains(m, "gemini-3") || strings.Contains(m, "gemini-pro-3") || strings.Contains(m, "gemini-flash-3")
	}
	prof := cat.profile(p)
	return prof != nil && prof.SupportsVision
}

// Decide is the agent's single gate (_native_tool_result_images, docs/pipeline.md §6):
//
//	gate = (mode == native or (mode == auto and not explicitAux and L is True))
//	       and not V and (T or L is True)
//
// It returns the lane, the normalised configured mode, and why. cat may be nil (no catalog:
// every model not declared by the config is not known to see).
func Decide(s Settings, cat *Catalog) GateDecision {
	mode := NormaliseMode(s.ImageInputMode)
	d := GateDecision{Lane: LaneText, Mode: mode}
	route := routeName(s)
	if mode == ModeText {
		d.Reason = "image_input_mode is text: pixels never enter the history"
		return d
	}
	explicitAux := ExplicitAuxVision(s.AuxiliaryVision)
	if mode == ModeAuto && explicitAux {
		d.Reason = "image_input_mode auto with an explicit auxiliary.vision backend: the auxiliary describer gets the picture"
		return d
	}
	capability, capSource := LookupSupportsVision(s, cat)
	if mode == ModeAuto && capability != CapabilityYes {
		if capability == CapabilityNo {
			d.Reason = fmt.Sprintf("image_input_mode auto and %s cannot see pictures (%s)", route, capSource)
		} else {
			d.Reason = fmt.Sprintf("image_input_mode auto and %s is not known to see (%s)", route, capSource)
		}
		return d
	}
	if vetoed, by := ProfileRejectsToolMedia(s.Provider, strings.TrimSpace(s.Model), s.APIMode, cat); vetoed {
		d.Reason = fmt.Sprintf("the %s provider profile rejects pictures in tool messages for %s", by, route)
		return d
	}
	transport := SupportsMediaInToolResults(s.Provider, strings.TrimSpace(s.Model), s.APIMode, cat)
	if !transport && capability != CapabilityYes {
		d.Reason = fmt.Sprintf("image_input_mode native but the route %s does not take pictures in tool results and the model is not declared vision-capable", route)
		return d
	}
	d.Lane = LaneNative
	switch {
	case mode == ModeNative && transport:
		d.Reason = fmt.Sprintf("image_input_mode native and the route %s takes pictures in tool results", route)
	case mode == ModeNative:
		d.Reason = fmt.Sprintf("image_input_mode native and %s is declared vision-capable (%s)", route, capSource)
	default:
		d.Reason = fmt.Sprintf("image_input_mode auto and %s sees pictures (%s), no profile veto", route, capSource)
	}
	return d
}

// ClampEmbedTarget resolves vision.embed_target_bytes: 0 (unset) is the default 262,144; other
// values are clamped to 65,536–4,194,304.
func ClampEmbedTarget(v int) int {
	if v == 0 {
		return DefaultEmbedTargetBytes
	}
	return max(MinEmbedTargetBytes, min(v, MaxEmbedTargetBytes))
}
