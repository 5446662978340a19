package results

import (
	"sort"
)

// Summarize aggregates cases per arm, in the order of arms. The first arm is the baseline of
// the reduction ratio.
func Summarize(cases []Case, arms []string) []ArmSummary {
	out := make([]ArmSummary, len(arms))
	index := make(map[string]int, len(arms))
	for i, a := range arms {
		out[i] = ArmSummary{Arm: a, Pictures: map[string]int{}}
		index[a] = i
	}
	for _, c := range cases {
		if !measuredInEvery(c, index) {
			for _, ac := range c.Arms {
				if i, ok := index[ac.Arm]; ok {
					out[i].LeftOut++
				}
			}
			continue
		}
		for _, ac := range c.Arms {
			i, ok := index[ac.Arm]
			if !ok {
				continue
			}
			s := &out[i]
			s.Cases++
			if !ac.Fits {
				s.Refused++
			}
			s.TextTokens += int64(ac.TextTokens)
			s.ImageRows += int64(ac.ImageRows)
			s.PromptTokens += int64(ac.PromptTokens)
			if ac.SeesPicture {
				s.SeesPicture++
			}
			for _, p := range ac.Pictures {
				s.Pictures[string(p.Outcome)]++
			}
			if ac.Correct != nil {
				s.Scored++
				if *ac.Correct {
					s.Correct++
				}
			}
			if ac.CountDiff != nil {
				s.Compared++
				d := int64(*ac.CountDiff)
				s.CountDiff += d
				s.AbsCountDiff += max(d, -d)
			}
			if ac.Divergence != nil && ac.Divergence.Diverges {
				s.Divergent++
			}
		}
	}
	for i := range out {
		if out[i].Scored > 0 {
			out[i].CorrectRate = float64(out[i].Correct) / float64(out[i].Scored)
		}
	}
	if len(out) > 0 && out[0].PromptTokens > 0 {
		base := float64(out[0].PromptTokens)
		for i := range out {
			out[i].Reduction = 1 - float64(out[i].PromptTokens)/base
		}
	}
	return out
}

// measuredInEvery reports whether c has a measurement in every arm of index: summaries compare
// arms over the same cases, so a case one arm failed on is left out of every arm's figures.
func measuredInEvery(c Case, index map[string]int) bool {
	seen := 0
	for _, ac := range c.Arms {
		if _, ok := index[ac.Arm]; ok {
			seen++
		}
	}
	return seen >= len(index)
}

// SummarizeScans aggregates scan timings per arm, in the order of arms.
func SummarizeScans(timings []CaseTiming, bytes map[string]int64, arms []string) []ScanSummary {
	per := make(map[string][]int64, len(arms))
	for _, t := range timings {
		per[t.Arm] = append(per[t.Arm], t.ScanNanos...)
	}
	out := make([]ScanSummary, 0, len(arms))
	for _, a := range arms {
		ns := per[a]
		s := ScanSummary{Arm: a, Messages: len(ns), Bytes: bytes[a]}
		for _, n := range ns {
			s.Total += n
		}
		s.P50 = Percentile(ns, 50)
		s.P95 = Percentile(ns, 95)
		s.Max = Percentile(ns, 100)
		out = append(out, s)
	}
	return out
}

// Percentile returns the p-th percentile (nearest rank, 0 < p ≤ 100) of xs; 0 when empty.
// xs is not modified.
func Percentile(xs []int64, p float64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int64(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(p/100*float64(len(s)) + 0.999999999)
	if rank < 1 {
		rank = 1
	}
	if rank > len(s) {
		rank = len(s)
	}
	return s[rank-1]
}
