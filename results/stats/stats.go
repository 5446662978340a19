// Package stats holds the statistics of strata-eval's comparisons and budgets: quantiles,
// the Mann-Whitney U test for two samples of timings and McNemar's test for paired pass/fail
// outcomes. It does no I/O and keeps no state.
package stats

import (
	"math"
	"sort"
)

// Sorted returns a sorted copy of xs.
func Sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of xs by linear interpolation between order
// statistics (R's type 7, NumPy's default, k6's p(N)); NaN when xs is empty. xs is not modified.
func Quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	s := Sorted(xs)
	return quantileSorted(s, p)
}

func quantileSorted(s []float64, p float64) float64 {
	p = math.Max(0, math.Min(1, p))
	h := p * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Percentile is Quantile with p in percent (0–100).
func Percentile(xs []float64, p float64) float64 { return Quantile(xs, p/100) }

// Median is the 0.5-quantile of xs.
func Median(xs []float64) float64 { return Quantile(xs, 0.5) }

// Mean is the arithmetic mean of xs; NaN when empty.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return Sum(xs) / float64(len(xs))
}

// Sum adds xs (Kahan-compensated, so long sums of timings stay exact to the nanosecond).
func Sum(xs []float64) float64 {
	var sum, c float64
	for _, x := range xs {
		y := x - c
		t := sum + y
		c = (t - sum) - y
		sum = t
	}
	return sum
}

// Min is the smallest of xs; NaN when empty.
func Min(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := xs[0]
	for _, x := range xs[1:] {
		m = math.Min(m, x)
	}
	return m
}

// Max is the largest of xs; NaN when empty.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := xs[0]
	for _, x := range xs[1:] {
		m = math.Max(m, x)
	}
	return m
}

// NormalSF is the upper tail P(Z > z) of the standard normal distribution.
func NormalSF(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// ChiSquare1SF is the upper tail P(X > x) of the chi-square distribution with one degree of
// freedom.
func ChiSquare1SF(x float64) float64 {
	if x <= 0 {
		return 1
	}
	return math.Erfc(math.Sqrt(x / 2))
}
