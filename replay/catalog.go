package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Capability is a tri-state answer to "can this model see pictures?": the source agent's
// True, False and None (docs/pipeline.md §6.3).
type Capability int8

// Capability values.
const (
	CapabilityUnknown Capability = iota // None: not known to see
	CapabilityYes                       // True
	CapabilityNo                        // False
)

// String renders the capability as the source agent's Python value.
func (c Capability) String() string {
	switch c {
	case CapabilityYes:
		return "True"
	case CapabilityNo:
		return "False"
	}
	return "None"
}

// CoerceCapability applies the source agent's strict capability coercion
// (_coerce_capability_bool): a bool is kept; an integer only when it is 0 or 1; a string is
// stripped (Python whitespace) and lower-cased, then true/yes/on/1 and false/no/off/0 count;
// everything else (floats such as 1.5, lists, maps, nil) is unknown.
func CoerceCapability(v any) Capability {
	switch t := v.(type) {
	case bool:
		if t {
			return CapabilityYes
		}
		return CapabilityNo
	case int:
		return capabilityFromInt(int64(t))
	case int8:
		return capabilityFromInt(int64(t))
	case int16:
		return capabilityFromInt(int64(t))
	case int32:
		return capabilityFromInt(int64(t))
	case int64:
		return capabilityFromInt(t)
	case uint:
		return capabilityFromInt(int64(min(uint64(t), math.MaxInt64)))
	case uint8:
		return capabilityFromInt(int64(t))
	case uint16:
		return capabilityFromInt(int64(t))
	case uint32:
		return capabilityFromInt(int64(t))
	case uint64:
		return capabilityFromInt(int64(min(t, math.MaxInt64)))
	case json.Number:
		// A JSON integer literal is a Python int; a literal with a fraction is a float.
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return capabilityFromInt(i)
		}
		return CapabilityUnknown
	case string:
		switch strings.ToLower(pyStrip(t)) {
		case "true", "yes", "on", "1":
			return CapabilityYes
		case "false", "no", "off", "0":
			return CapabilityNo
		}
	}
	return CapabilityUnknown
}

func capabilityFromInt(i int64) Capability {
	switch i {
	case 1:
		return CapabilityYes
	case 0:
		return CapabilityNo
	}
	return CapabilityUnknown
}

// ProviderProfile describes a provider's transport, as the source agent's ProviderProfile does:
// whether the route takes pictures at all and whether it takes them inside tool messages.
type ProviderProfile struct {
	// Name is the provider id the profile belongs to.
	Name string
	// SupportsVision says the transport accepts pictures (used for providers off the whitelist).
	SupportsVision bool
	// RejectsToolMedia is supports_vision_tool_messages = False: the profile vetoes pictures in
	// tool results.
	RejectsToolMedia bool
	// ToolMediaByAPIMode, when non-empty, is supports_vision_tool_messages_by_api_mode: pictures
	// in tool results are accepted only in the listed API modes, and only for the listed models
	// (a nil list: every model).
	ToolMediaByAPIMode map[string][]string
	// Aggregator says the provider routes vendor/model slugs to other vendors, whose profiles are
	// consulted too (the source's openrouter rule, NousResearch/hermes-agent#111441).
	Aggregator bool
}

// rejects reports whether this profile vetoes tool-result pictures for model in apiMode.
func (p *ProviderProfile) rejects(model, apiMode string) bool {
	if p == nil {
		return false
	}
	if len(p.ToolMediaByAPIMode) > 0 {
		allowed, ok := p.ToolMediaByAPIMode[apiMode]
		if !ok {
			return true
		}
		if allowed == nil {
			return false
		}
		for _, m := range allowed {
			if m == model {
				return false
			}
		}
		return true
	}
	return p.RejectsToolMedia
}

// builtinProfiles are the provider profiles the source agent ships that matter to the gate.
func builtinProfiles() map[string]*ProviderProfile {
	veto := func(name string) *ProviderProfile { return &ProviderProfile{Name: name, RejectsToolMedia: true} }
	return map[string]*ProviderProfile{
		"xiaomi":      veto("xiaomi"), // "400 text is not set"
		"mimo":        veto("mimo"),
		"xiaomi-mimo": veto("xiaomi-mimo"),
		"meta":        veto("meta"), // the Muse profile
		"opencode-go": {Name: "opencode-go", ToolMediaByAPIMode: map[string][]string{"codex_responses": nil}},
		"openrouter":  {Name: "openrouter", Aggregator: true},
	}
}

// Catalog is a model catalog file the user gives (YAML or JSON): supports_vision per provider
// and model, optional provider profiles, and legacy custom_providers entries. Shape:
//
//	providers:
//	  openrouter:
//	    models:
//	      anthropic/claude-opus-4-5: {supports_vision: true}
//	      deepseek/deepseek-v3.2: false          # a bare value is the capability
//	  exotic:
//	    supports_vision: true                     # profile: the transport takes pictures
//	    supports_vision_tool_messages: false      # profile veto
//	    supports_vision_tool_messages_by_api_mode: {codex_responses: [model-a]}
//	    aggregator: true
//	custom_providers:
//	  - name: live
//	    models: {qwen3-vl-local: {vision: true}}
//
// A model entry may carry supports_vision, its alias vision, or models.dev-style
// modalities.input (a list containing "image"); other keys of provider and model entries are
// ignored so that a pasted agent config works. Unknown top-level keys are errors.
type Catalog struct {
	// Path is the file the catalog was read from.
	Path     string
	models   map[string]map[string]any // provider → model → raw capability value
	custom   []catalogCustomProvider
	profiles map[string]*ProviderProfile
}

type catalogCustomProvider struct {
	name   string
	models map[string]any
}

// LoadCatalog reads a catalog file.
func LoadCatalog(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	return ParseCatalog(path, data)
}

// ParseCatalog parses catalog data (YAML or JSON); name is used in errors.
func ParseCatalog(name string, data []byte) (*Catalog, error) {
	cat := &Catalog{Path: name, models: map[string]map[string]any{}, profiles: builtinProfiles()}
	if len(bytes.TrimSpace(data)) == 0 {
		return cat, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return cat, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: the catalog must be a mapping with providers and custom_providers", name, root.Line)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		switch key.Value {
		case "providers":
			if err := cat.parseProviders(name, val); err != nil {
				return nil, err
			}
		case "custom_providers":
			if err := cat.parseCustomProviders(name, val); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%s:%d: unknown catalog key %q (want providers, custom_providers)", name, key.Line, key.Value)
		}
	}
	return cat, nil
}

func (c *Catalog) parseProviders(name string, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: providers must be a mapping of provider id to entry", name, n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		pid := normaliseProvider(n.Content[i].Value)
		entry := n.Content[i+1]
		if entry.Kind == yaml.ScalarNode && entry.Tag == "!!null" {
			continue
		}
		if entry.Kind != yaml.MappingNode {
			return fmt.Errorf("%s:%d: provider %q must be a mapping", name, entry.Line, pid)
		}
		prof := c.profiles[pid]
		profileTouched := false
		ensure := func() *ProviderProfile {
			if prof == nil {
				prof = &ProviderProfile{Name: pid}
			} else if !profileTouched {
				cp := *prof
				prof = &cp
			}
			profileTouched = true
			return prof
		}
		for j := 0; j+1 < len(entry.Content); j += 2 {
			k, v := entry.Content[j], entry.Content[j+1]
			switch k.Value {
			case "models":
				models, err := parseCatalogModels(name, pid, v)
				if err != nil {
					return err
				}
				if c.models[pid] == nil {
					c.models[pid] = map[string]any{}
				}
				for m, cv := range models {
					c.models[pid][m] = cv
				}
			case "supports_vision":
				ensure().SupportsVision = CoerceCapability(nodeValue(v)) == CapabilityYes
			case "supports_vision_tool_messages":
				ensure().RejectsToolMedia = CoerceCapability(nodeValue(v)) == CapabilityNo
			case "aggregator":
				ensure().Aggregator = CoerceCapability(nodeValue(v)) == CapabilityYes
			case "supports_vision_tool_messages_by_api_mode":
				byMode, err := parseByAPIMode(name, pid, v)
				if err != nil {
					return err
				}
				ensure().ToolMediaByAPIMode = byMode
			}
		}
		if profileTouched {
			c.profiles[pid] = prof
		}
	}
	return nil
}

func parseByAPIMode(name, pid string, n *yaml.Node) (map[string][]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: provider %q: supports_vision_tool_messages_by_api_mode must map an API mode to true, false or a list of models", name, n.Line, pid)
	}
	out := map[string][]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		mode, v := n.Content[i].Value, n.Content[i+1]
		switch v.Kind {
		case yaml.SequenceNode:
			models := []string{}
			for _, m := range v.Content {
				models = append(models, m.Value)
			}
			out[mode] = models
		case yaml.ScalarNode:
			switch CoerceCapability(nodeValue(v)) {
			case CapabilityYes:
				out[mode] = nil
			case CapabilityNo:
			default:
				return nil, fmt.Errorf("%s:%d: provider %q, API mode %q: want true, false or a list of models", name, v.Line, pid, mode)
			}
		default:
			return nil, fmt.Errorf("%s:%d: provider %q, API mode %q: want true, false or a list of models", name, v.Line, pid, mode)
		}
	}
	if len(out) == 0 {
		// Every mode was false: the route takes no tool-result pictures in any mode.
		out[""] = []string{}
	}
	return out, nil
}

func (c *Catalog) parseCustomProviders(name string, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s:%d: custom_providers must be a list", name, n.Line)
	}
	for _, entry := range n.Content {
		if entry.Kind != yaml.MappingNode {
			continue // the source ignores entries that are not dicts
		}
		cp := catalogCustomProvider{}
		for j := 0; j+1 < len(entry.Content); j += 2 {
			k, v := entry.Content[j], entry.Content[j+1]
			switch k.Value {
			case "name":
				cp.name = v.Value
			case "models":
				models, err := parseCatalogModels(name, cp.name, v)
				if err != nil {
					return err
				}
				cp.models = models
			}
		}
		c.custom = append(c.custom, cp)
	}
	return nil
}

// parseCatalogModels reads a models mapping: model → entry (a mapping) or a bare value.
func parseCatalogModels(name, pid string, n *yaml.Node) (map[string]any, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return map[string]any{}, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: provider %q: models must be a mapping of model to entry", name, n.Line, pid)
	}
	out := map[string]any{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		model, v := n.Content[i].Value, n.Content[i+1]
		if v.Kind != yaml.MappingNode {
			out[model] = nodeValue(v)
			continue
		}
		var capValue any
		found := false
		for j := 0; j+1 < len(v.Content); j += 2 {
			k, ev := v.Content[j], v.Content[j+1]
			switch k.Value {
			case "supports_vision":
				capValue, found = nodeValue(ev), true
			case "vision":
				if !found {
					capValue = nodeValue(ev)
					found = CoerceCapability(capValue) != CapabilityUnknown
				}
			case "modalities":
				if !found {
					if c := modalitiesCapability(ev); c != CapabilityUnknown {
						capValue, found = c == CapabilityYes, true
					}
				}
			}
		}
		if found {
			out[model] = capValue
		} else {
			out[model] = nil
		}
	}
	return out, nil
}

// modalitiesCapability reads a models.dev-style modalities: {input: [text, image]}.
func modalitiesCapability(n *yaml.Node) Capability {
	if n.Kind != yaml.MappingNode {
		return CapabilityUnknown
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "input" || n.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, m := range n.Content[i+1].Content {
			if strings.EqualFold(m.Value, "image") {
				return CapabilityYes
			}
		}
		return CapabilityNo
	}
	return CapabilityUnknown
}

// nodeValue decodes a YAML node into a plain Go value (nil on error).
func nodeValue(n *yaml.Node) any {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil
	}
	return v
}

// profile returns the profile of a provider id, or nil.
func (c *Catalog) profile(provider string) *ProviderProfile {
	if c == nil {
		return builtinProfiles()[provider]
	}
	return c.profiles[provider]
}

// lookup returns the catalog's capability for model under the provider candidates, in order:
// providers.<candidate>.models.<model>, then custom_providers entries whose name matches a
// candidate case-insensitively. The first known answer wins.
func (c *Catalog) lookup(candidates []string, model string) (Capability, string) {
	if c == nil || model == "" {
		return CapabilityUnknown, ""
	}
	for _, cand := range candidates {
		if v, ok := c.models[cand][model]; ok {
			if cv := CoerceCapability(v); cv != CapabilityUnknown {
				return cv, fmt.Sprintf("catalog %s: providers.%s.models.%s", c.Path, cand, model)
			}
		}
	}
	for _, cand := range candidates {
		for _, cp := range c.custom {
			if !strings.EqualFold(cp.name, cand) {
				continue
			}
			if v, ok := cp.models[model]; ok {
				if cv := CoerceCapability(v); cv != CapabilityUnknown {
					return cv, fmt.Sprintf("catalog %s: custom_providers[%s].models.%s", c.Path, cp.name, model)
				}
			}
		}
	}
	return CapabilityUnknown, ""
}
