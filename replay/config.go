package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// validArmName is the shape of an arm name: it appears in table headers and file names.
var validArmName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// LoadArms reads a YAML file defining more arms and returns the built-in arms followed by the
// file's arms. The file is a list of arms, or a mapping with the key `arms` holding that list;
// each arm is a mapping with `name` and the Settings fields (client, server, image_input_mode,
// auxiliary_vision, provider, model, api_mode, supports_vision, catalog, embed_target_bytes,
// min_run, max_pictures, max_picture_bytes, max_result_chars, no_vision_encoder). An arm
// named like a built-in arm replaces it in place. Unknown keys are errors naming the line;
// validation errors name the arm. A relative catalog path is resolved against the file's
// folder.
func LoadArms(path string) ([]Arm, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read arms: %w", err)
	}
	fileArms, err := ParseArms(path, data)
	if err != nil {
		return nil, err
	}
	arms := BuiltinArms()
	for _, a := range fileArms {
		replaced := false
		for i := range arms {
			if arms[i].Name == a.Name {
				arms[i], replaced = a, true
				break
			}
		}
		if !replaced {
			arms = append(arms, a)
		}
	}
	return arms, nil
}

// armKeys lists the YAML keys an arm may have, from the yaml tags of Arm and Settings.
func armKeys() map[string]bool {
	keys := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("yaml")
			name, opts, _ := strings.Cut(tag, ",")
			if strings.Contains(opts, "inline") {
				walk(f.Type)
				continue
			}
			if name == "-" {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			keys[name] = true
		}
	}
	walk(reflect.TypeOf(Arm{}))
	return keys
}

// ParseArms parses arm definitions (see LoadArms) without the built-in arms; name is the file
// name used in errors and to resolve relative catalog paths.
func ParseArms(name string, data []byte) ([]Arm, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		var found *yaml.Node
		for i := 0; i+1 < len(list.Content); i += 2 {
			k := list.Content[i]
			if k.Value != "arms" {
				return nil, fmt.Errorf("%s:%d: unknown key %q (want arms)", name, k.Line, k.Value)
			}
			found = list.Content[i+1]
		}
		if found == nil {
			return nil, nil
		}
		list = found
	}
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: arms must be a list of mappings", name, list.Line)
	}
	known := armKeys()
	seen := map[string]int{}
	var arms []Arm
	for idx, n := range list.Content {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: arm %d must be a mapping", name, n.Line, idx+1)
		}
		armName := ""
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "name" {
				armName = n.Content[i+1].Value
			}
		}
		label := fmt.Sprintf("arm %d", idx+1)
		if armName != "" {
			label = fmt.Sprintf("arm %q", armName)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if !known[k.Value] {
				return nil, fmt.Errorf("%s:%d: %s: unknown key %q (known: %s)", name, k.Line, label, k.Value, sortedKeys(known))
			}
		}
		var a Arm
		if err := n.Decode(&a); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", name, n.Line, label, cleanYAMLError(err))
		}
		if err := validateArm(&a, name); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", name, n.Line, label, err)
		}
		if line, dup := seen[a.Name]; dup {
			return nil, fmt.Errorf("%s:%d: %s: the name is already used by the arm at line %d", name, n.Line, label, line)
		}
		seen[a.Name] = n.Line
		arms = append(arms, a)
	}
	return arms, nil
}

// validateArm checks an arm's settings and fills the defaults (client recorded, server lift,
// mode auto for the gate); it resolves a relative catalog path and reads and parses the
// catalog, which the arm keeps for its requests.
func validateArm(a *Arm, file string) error {
	if a.Name == "" {
		return fmt.Errorf("name is missing")
	}
	if !validArmName.MatchString(a.Name) {
		return fmt.Errorf("name %q: use letters, digits, '.', '_' and '-'", a.Name)
	}
	s := &a.Settings
	switch s.Client {
	case "":
		s.Client = ClientRecorded
	case ClientRecorded, ClientSent, ClientGate:
	default:
		return fmt.Errorf("client %q: want %q, %q or %q", s.Client, ClientRecorded, ClientSent, ClientGate)
	}
	switch s.Server {
	case "":
		s.Server = ServerLift
	case ServerLegacy, ServerLift, ServerVerbatim:
	default:
		return fmt.Errorf("server %q: want %q, %q or %q", s.Server, ServerLegacy, ServerLift, ServerVerbatim)
	}
	if s.ImageInputMode != "" {
		mode := strings.ToLower(pyStrip(s.ImageInputMode))
		if mode != ModeAuto && mode != ModeNative && mode != ModeText {
			return fmt.Errorf("image_input_mode %q: want auto, native or text", s.ImageInputMode)
		}
	} else if s.Client == ClientGate {
		s.ImageInputMode = ModeAuto
	}
	if s.SupportsVision != nil && CoerceCapability(s.SupportsVision) == CapabilityUnknown {
		return fmt.Errorf("supports_vision %v: want true, false, yes, no, on, off, 1 or 0", s.SupportsVision)
	}
	for _, f := range []struct {
		key string
		v   int64
	}{
		{"min_run", int64(s.MinRun)}, {"max_pictures", int64(s.MaxPictures)},
		{"max_picture_bytes", s.MaxPictureBytes}, {"max_result_chars", int64(s.MaxResultChars)},
		{"embed_target_bytes", int64(s.EmbedTargetBytes)},
	} {
		if f.v < 0 {
			return fmt.Errorf("%s %d: must not be negative", f.key, f.v)
		}
	}
	if s.EmbedTargetBytes != 0 {
		// clamped, as the source agent clamps vision.embed_target_bytes (docs/decisions.md);
		// the report's config block shows the value in effect
		s.EmbedTargetBytes = ClampEmbedTarget(s.EmbedTargetBytes)
	}
	if s.Catalog != "" {
		if !filepath.IsAbs(s.Catalog) {
			s.Catalog = filepath.Join(filepath.Dir(file), s.Catalog)
		}
		if _, err := a.loadCatalog(); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string]bool) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// cleanYAMLError drops yaml.v3's "yaml: unmarshal errors:" preamble.
func cleanYAMLError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n")
	return strings.TrimSpace(msg)
}
