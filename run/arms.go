package run

import "github.com/strata-eval/strata-eval/replay"

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
		// docs/pipeline.md §2.2: the agent arm declares the replayed model vision-capable when a
		// vision family is configured (one always is: --mmproj, --vision or the default).
		if arms[i].Settings.Client == replay.ClientGate && arms[i].Settings.SupportsVision == nil {
			arms[i].Settings.SupportsVision = true
		}
	}
	if len(names) == 0 {
		return arms, nil
	}
	byName := map[string]replay.Arm{}
	for _, a := range arms {
		byName[a.Name] = a
	}
	var out []replay.Arm
	for _, n := range names {
		a, ok := byName[n]
		if !ok {
			return nil, usageErrorf("--arms: no arm named %q", n)
		}
		out = append(out, a)
	}
	return out, nil
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
