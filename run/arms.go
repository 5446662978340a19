package run

import (
	"strings"

	"github.com/strata-eval/strata-eval/internal/suggest"
	"github.com/strata-eval/strata-eval/replay"
)

// SelectArms returns the arms to run: the built-in ones, then those of the arms file config
// (when not ""), kept to names (in that order) when names is not empty.
func SelectArms(config string, names []string) ([]replay.Arm, error) {
	arms := replay.BuiltinArms()
	if config != "" {
		more, err := replay.LoadArms(config)
		if err != nil {
			return nil, asUsage(err)
		}
		arms = mergeArms(arms, more)
	}
	for i := range arms {
		declareReplayedModel(&arms[i].Settings)
	}
	if len(names) == 0 {
		return arms, nil
	}
	byName := map[string]replay.Arm{}
	var all []string
	for _, a := range append(arms, replay.RecordedArm()) {
		if _, ok := byName[a.Name]; ok {
			continue // an arms file's arm of that name wins
		}
		byName[a.Name] = a
		all = append(all, a.Name)
	}
	var out []replay.Arm
	for _, n := range names {
		a, ok := byName[n]
		if !ok {
			return nil, usageErrorf("--arms: no arm named %q%s; the arms are %s", n, suggest.DidYouMean(n, all), strings.Join(all, ", "))
		}
		out = append(out, a)
	}
	return out, nil
}

// ModelForCatalogs gives model (the http engine's --model, the name the server is asked for) to
// every gate arm that names a catalog but no model, so that the catalog looks up the model the
// replay talks to (docs/decisions.md). An arm's own model: wins.
func ModelForCatalogs(arms []replay.Arm, model string) {
	if model == "" {
		return
	}
	for i := range arms {
		s := &arms[i].Settings
		if s.Client == replay.ClientGate && s.Catalog != "" && s.Model == "" {
			s.Model = model
		}
	}
}

// declareReplayedModel declares the replayed model vision-capable for a gate arm that says
// nothing about the model it talks to: no supports_vision, no catalog, no provider or model
// (docs/pipeline.md §2.2). A vision family is always configured (--mmproj, --vision or the
// default), so such an arm stands for the replayed model. An arm that names a catalog or a
// route is left to the capability lookup: the catalog decides, and a model it does not know
// is "not known to see" (docs/pipeline.md §6.3).
func declareReplayedModel(s *replay.Settings) {
	if s.Client != replay.ClientGate || s.SupportsVision != nil {
		return
	}
	if s.Catalog != "" || s.Provider != "" || s.Model != "" {
		return
	}
	s.SupportsVision = true
}

// mergeArms appends more to arms; an arm of more with a built-in name replaces it.
func mergeArms(arms, more []replay.Arm) []replay.Arm {
	out := append([]replay.Arm(nil), arms...)
	for _, m := range more {
		replaced := false
		for i := range out {
			if out[i].Name == m.Name {
				out[i], replaced = m, true
			}
		}
		if !replaced {
			out = append(out, m)
		}
	}
	return out
}
