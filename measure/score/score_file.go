package score

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-eval/strata-eval/corpora"
)

// LoadExpectations reads a sidecar expectations file, JSON or YAML: a map from a case id
// ("conv@n") or a conversation id to {question, scorer, answer}. Every entry is checked (a
// known scorer, an answer valid for it); a problem names the file and the line.
func LoadExpectations(path string) (map[string]corpora.Expectation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read expectations: %w", err)
	}
	return ParseExpectations(path, data)
}

// ParseExpectations parses the contents of an expectations file named name.
func ParseExpectations(name string, data []byte) (map[string]corpora.Expectation, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := map[string]corpora.Expectation{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a map from case or conversation id to {question, scorer, answer}", name, root.Line)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if v.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: %q: want {question, scorer, answer}", name, v.Line, k.Value)
		}
		var e struct {
			Question string `yaml:"question"`
			Scorer   string `yaml:"scorer"`
			Answer   any    `yaml:"answer"`
		}
		if err := v.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %q: %w", name, v.Line, k.Value, err)
		}
		if e.Answer == nil {
			return nil, fmt.Errorf("%s:%d: %q: no answer", name, v.Line, k.Value)
		}
		exp := corpora.Expectation{Question: e.Question, Scorer: strings.TrimSpace(e.Scorer), Answer: answerText(e.Answer, e.Scorer)}
		if exp.Scorer == "" {
			exp.Scorer = ScoreExact
		}
		if err := ValidateExpectation(exp); err != nil {
			return nil, fmt.Errorf("%s:%d: %q: %w", name, v.Line, k.Value, err)
		}
		if _, dup := out[k.Value]; dup {
			return nil, fmt.Errorf("%s:%d: %q appears twice", name, k.Line, k.Value)
		}
		out[k.Value] = exp
	}
	return out, nil
}

// answerText turns a YAML answer into the scorer's text: strings as they are, lists joined
// with "|" (one-of), maps and the json scorer's values as JSON, numbers as written.
func answerText(v any, scorer string) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if strings.TrimSpace(scorer) != ScoreJSON {
			var parts []string
			for _, p := range x {
				parts = append(parts, answerText(p, scorer))
			}
			return strings.Join(parts, "|")
		}
	case map[string]any:
	default:
		if strings.TrimSpace(scorer) != ScoreJSON {
			return fmt.Sprint(v)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ExpectationFor returns the expectation of a case: by case id first, then by conversation id.
func ExpectationFor(m map[string]corpora.Expectation, caseID, conversationID string) (corpora.Expectation, bool) {
	if e, ok := m[caseID]; ok {
		return e, true
	}
	e, ok := m[conversationID]
	return e, ok
}
