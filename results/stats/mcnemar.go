package stats

import "math"

// McNemarExactLimit is the number of discordant pairs under which McNemar uses the exact
// binomial test; at or above it, the chi-square statistic with continuity correction.
const McNemarExactLimit = 25

// McNemarResult is the result of McNemar's test on paired pass/fail outcomes.
type McNemarResult struct {
	// B counts pairs that passed before and fail after; C pairs that failed before and pass
	// after (the discordant pairs).
	B int `json:"b"`
	C int `json:"c"`
	// Statistic is the continuity-corrected chi-square (only when not Exact).
	Statistic float64 `json:"statistic,omitempty"`
	// P is the two-sided p-value; 1 when there is no discordant pair.
	P float64 `json:"p"`
	// Exact says P comes from the binomial distribution B(b+c, 1/2).
	Exact bool `json:"exact"`
}

// McNemar tests whether the pass rate changed between two paired runs, from the discordant
// counts b (pass → fail) and c (fail → pass). Under McNemarExactLimit discordant pairs it is
// the exact binomial test (R's binom.test(b, b+c)); otherwise (|b-c|-1)²/(b+c) against the
// chi-square distribution with one degree of freedom (R's mcnemar.test).
func McNemar(b, c int) McNemarResult {
	r := McNemarResult{B: b, C: c, P: 1}
	n := b + c
	if b < 0 || c < 0 || n == 0 {
		return r
	}
	if n < McNemarExactLimit {
		r.Exact = true
		r.P = math.Min(1, 2*BinomialCDF(min(b, c), n, 0.5))
		return r
	}
	d := math.Abs(float64(b-c)) - 1
	if d < 0 {
		d = 0
	}
	r.Statistic = d * d / float64(n)
	r.P = ChiSquare1SF(r.Statistic)
	return r
}

// BinomialCDF is P(X ≤ k) for X ~ B(n, p), summed in log space so large n stays finite.
func BinomialCDF(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	lgN, _ := math.Lgamma(float64(n + 1))
	var sum float64
	for i := 0; i <= k; i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgNI, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lgN - lgI - lgNI + float64(i)*lp + float64(n-i)*lq)
	}
	return math.Min(1, sum)
}
