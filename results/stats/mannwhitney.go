package stats

import (
	"math"
	"sort"
)

// ExactLimit is the sample size under which MannWhitneyU computes the exact p-value (when
// there are no ties), as R's wilcox.test does; at or above it, the normal approximation.
const ExactLimit = 50

// MannWhitney is the result of a two-sided Mann-Whitney U (Wilcoxon rank-sum) test.
type MannWhitney struct {
	// U is the statistic of the first sample: the number of pairs (x, y) with x > y, ties
	// counting one half (R's W).
	U float64 `json:"u"`
	// P is the two-sided p-value; 1 when either sample is empty.
	P float64 `json:"p"`
	// N1 and N2 are the sample sizes.
	N1 int `json:"n1"`
	N2 int `json:"n2"`
	// Exact says whether P comes from the exact distribution of U (no ties, both samples
	// under ExactLimit) rather than the normal approximation with tie and continuity
	// corrections.
	Exact bool `json:"exact"`
}

// MannWhitneyU tests whether x and y come from the same distribution against the two-sided
// alternative that one tends to be larger. It matches R's wilcox.test(x, y) (exact when
// possible, else the normal approximation with continuity correction).
func MannWhitneyU(x, y []float64) MannWhitney {
	n1, n2 := len(x), len(y)
	r := MannWhitney{N1: n1, N2: n2, P: 1}
	if n1 == 0 || n2 == 0 {
		return r
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	// Mid-ranks, the rank sum of x and the tie correction Σ(t³ - t).
	var rankSum, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		t := j - i
		if t > 1 {
			ties = true
			tieTerm += float64(t*t*t - t)
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].first {
				rankSum += mid
			}
		}
		i = j
	}
	r.U = rankSum - float64(n1*(n1+1))/2
	if !ties && n1 < ExactLimit && n2 < ExactLimit {
		r.Exact = true
		r.P = exactUTwoSided(r.U, n1, n2)
		return r
	}
	mean := float64(n1*n2) / 2
	n := float64(n1 + n2)
	variance := float64(n1*n2) / 12 * ((n + 1) - tieTerm/(n*(n-1)))
	if variance <= 0 {
		return r // every value tied: no evidence of a difference
	}
	d := r.U - mean
	correction := 0.5 * sign(d)
	z := (d - correction) / math.Sqrt(variance)
	r.P = math.Min(1, 2*NormalSF(math.Abs(z)))
	return r
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// UDistribution returns the number of arrangements of n1 and n2 untied observations giving each
// value of U, 0..n1*n2 (the frequencies of the exact null distribution; they sum to
// C(n1+n2, n1)).
func UDistribution(n1, n2 int) []float64 {
	// f[m][n][u] = f[m-1][n][u-n] + f[m][n-1][u]: the largest observation is either an x
	// (beating all n y's) or a y. Rolling over m keeps one table of n+1 rows.
	maxU := n1 * n2
	prev := make([][]float64, n2+1) // m-1
	cur := make([][]float64, n2+1)
	for n := 0; n <= n2; n++ {
		prev[n] = make([]float64, maxU+1)
		cur[n] = make([]float64, maxU+1)
		prev[n][0] = 1 // m = 0: one arrangement, U = 0
	}
	for m := 1; m <= n1; m++ {
		for n := 0; n <= n2; n++ {
			row := cur[n]
			clear(row)
			if n == 0 {
				row[0] = 1
				continue
			}
			for u := 0; u <= m*n; u++ {
				v := cur[n-1][u]
				if u >= n {
					v += prev[n][u-n]
				}
				row[u] = v
			}
		}
		prev, cur = cur, prev
	}
	return prev[n2]
}

// exactUTwoSided is R's exact two-sided p-value: twice the smaller tail, at most 1.
func exactUTwoSided(u float64, n1, n2 int) float64 {
	f := UDistribution(n1, n2)
	var total, lower, upper float64
	k := int(math.Round(u))
	for i, c := range f {
		total += c
		if i <= k {
			lower += c
		}
		if i >= k {
			upper += c
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/total)
}
