package stats

import (
	"math"
	"math/bits"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) != math.IsNaN(want) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g (±%g)", name, got, want, tol)
	}
}

func TestQuantileMatchesRType7(t *testing.T) {
	oneToTen := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		// R: quantile(1:10, 0.95) = 9.55; quantile(1:10, 0.5) = 5.5; numpy agrees.
		{"1:10 p95", oneToTen, 0.95, 9.55},
		{"1:10 median", oneToTen, 0.5, 5.5},
		{"1:10 p0", oneToTen, 0, 1},
		{"1:10 p100", oneToTen, 1, 10},
		// R: quantile(c(1, 3, 7, 20), 0.5) = 5; quantile(c(1, 3, 7, 20), 0.9) = 16.1
		{"four median", []float64{20, 1, 7, 3}, 0.5, 5},
		{"four p90", []float64{20, 1, 7, 3}, 0.9, 16.1},
		{"one value", []float64{42}, 0.95, 42},
		{"empty", nil, 0.5, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			near(t, "Quantile", Quantile(tt.xs, tt.p), tt.want, 1e-12)
		})
	}
	if oneToTen[0] != 10 {
		t.Error("Quantile sorted its input in place")
	}
	near(t, "Percentile(95)", Percentile(oneToTen, 95), 9.55, 1e-12)
	near(t, "Median", Median(oneToTen), 5.5, 1e-12)
	near(t, "Mean", Mean(oneToTen), 5.5, 1e-12)
	near(t, "Sum", Sum(oneToTen), 55, 0)
	near(t, "Min", Min(oneToTen), 1, 0)
	near(t, "Max", Max(oneToTen), 10, 0)
}

func TestTailsMatchTables(t *testing.T) {
	// Standard normal and chi-square(1) critical values of every statistics textbook.
	near(t, "NormalSF(1.959964)", NormalSF(1.959964), 0.025, 1e-7)
	near(t, "NormalSF(1.644854)", NormalSF(1.644854), 0.05, 1e-7)
	near(t, "NormalSF(0)", NormalSF(0), 0.5, 0)
	near(t, "ChiSquare1SF(3.841459)", ChiSquare1SF(3.841459), 0.05, 1e-7)
	near(t, "ChiSquare1SF(6.634897)", ChiSquare1SF(6.634897), 0.01, 1e-8)
	near(t, "ChiSquare1SF(10.827566)", ChiSquare1SF(10.827566), 0.001, 1e-9)
	near(t, "ChiSquare1SF(0)", ChiSquare1SF(0), 1, 0)
}

// bruteU enumerates every way to place n1 x's among n1+n2 ranks and counts each U.
func bruteU(n1, n2 int) []float64 {
	f := make([]float64, n1*n2+1)
	n := n1 + n2
	for mask := uint(0); mask < 1<<n; mask++ {
		if bits.OnesCount(mask) != n1 {
			continue
		}
		u, ys := 0, 0 // U = Σ over x of the y's below it
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				u += ys
			} else {
				ys++
			}
		}
		f[u]++
	}
	return f
}

func TestUDistributionMatchesEnumeration(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {3, 2}, {4, 4}, {5, 7}, {6, 6}} {
		got, want := UDistribution(sz[0], sz[1]), bruteU(sz[0], sz[1])
		if len(got) != len(want) {
			t.Fatalf("%v: %d values, want %d", sz, len(got), len(want))
		}
		for u := range want {
			if got[u] != want[u] {
				t.Errorf("%v: f(U=%d) = %v, want %v", sz, u, got[u], want[u])
			}
		}
	}
}

func TestUDistributionMatchesCriticalValueTable(t *testing.T) {
	// Mann-Whitney table, n1 = n2 = 10, two-sided α = 0.05: the critical U is 23, so
	// P(U ≤ 23) ≤ 0.025 < P(U ≤ 24). Likewise n1 = n2 = 5: critical U 2.
	for _, c := range []struct{ n, crit int }{{10, 23}, {5, 2}, {8, 13}} {
		f := UDistribution(c.n, c.n)
		var total, cum float64
		for _, v := range f {
			total += v
		}
		var atCrit, above float64
		for u, v := range f {
			cum += v
			if u == c.crit {
				atCrit = cum / total
			}
			if u == c.crit+1 {
				above = cum / total
			}
		}
		if !(atCrit <= 0.025 && above > 0.025) {
			t.Errorf("n=%d: P(U≤%d) = %.4f, P(U≤%d) = %.4f; the table's critical value is %d", c.n, c.crit, atCrit, c.crit+1, above, c.crit)
		}
	}
}

func TestMannWhitneyU(t *testing.T) {
	// R's ?wilcox.test example (Hollander & Wolfe p. 110): W = 35, one-sided p = 0.1272.
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	tests := []struct {
		name      string
		x, y      []float64
		wantU     float64
		wantP     float64
		tol       float64
		wantExact bool
	}{
		{"R example", x, y, 35, 2 * 0.1272, 2e-4, true},
		{"R example reversed", y, x, 15, 2 * 0.1272, 2e-4, true},
		// Complete separation, 3 vs 3: U = 9, exact p = 2/C(6,3) = 0.1.
		{"separated 3v3", []float64{4, 5, 6}, []float64{1, 2, 3}, 9, 0.1, 1e-12, true},
		// 5 vs 5 separated: 2/252.
		{"separated 5v5", []float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}, 25, 2.0 / 252, 1e-12, true},
		// With ties (normal approximation, by hand): x = {1,2,2}, y = {2,3,4}. Mid-ranks
		// 1, 3, 3 | 3, 5, 6; R1 = 7, U = 1; mean 4.5; tie term 3³-3 = 24;
		// var = 9/12·(7 - 24/30) = 4.65; z = (1-4.5+0.5)/√4.65 = -1.3912; p = 0.16418.
		{"ties", []float64{1, 2, 2}, []float64{2, 3, 4}, 1, 2 * NormalSF(3/math.Sqrt(4.65)), 1e-12, false},
		{"all tied", []float64{5, 5}, []float64{5, 5, 5}, 3, 1, 0, false},
		{"empty", nil, []float64{1}, 0, 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := MannWhitneyU(tt.x, tt.y)
			near(t, "U", r.U, tt.wantU, 1e-9)
			near(t, "P", r.P, tt.wantP, tt.tol)
			if r.Exact != tt.wantExact {
				t.Errorf("Exact = %v, want %v", r.Exact, tt.wantExact)
			}
			if r.N1 != len(tt.x) || r.N2 != len(tt.y) {
				t.Errorf("N = %d, %d", r.N1, r.N2)
			}
		})
	}
	near(t, "tie p by hand", 2*NormalSF(3/math.Sqrt(4.65)), 0.16418, 5e-5)
}

func TestMannWhitneyNormalApproachesExact(t *testing.T) {
	// At 49 vs 49 the exact and the continuity-corrected normal p-values agree closely.
	var x, y []float64
	for i := 0; i < 49; i++ {
		x = append(x, float64(2*i)+0.25*float64(i%3))
		y = append(y, float64(2*i+1)+12)
	}
	exact := MannWhitneyU(x, y)
	big := MannWhitneyU(append(x, 1000.25), append(y, -1000.25))
	if !exact.Exact || big.Exact {
		t.Fatalf("exact %v, big %v", exact.Exact, big.Exact)
	}
	mean := 49.0 * 49 / 2
	sd := math.Sqrt(49.0 * 49 * 99 / 12)
	approx := 2 * NormalSF((math.Abs(exact.U-mean)-0.5)/sd)
	if math.Abs(exact.P-approx) > 0.03*exact.P {
		t.Errorf("exact p %.5f vs normal %.5f", exact.P, approx)
	}
}

func TestMcNemar(t *testing.T) {
	tests := []struct {
		name      string
		b, c      int
		wantP     float64
		wantStat  float64
		wantExact bool
		tol       float64
	}{
		// Exact: 2·P(X ≤ 1 | n = 10) = 2·11/1024.
		{"1 vs 9", 1, 9, 22.0 / 1024, 0, true, 1e-15},
		// 2·P(X ≤ 2 | n = 12) = 2·79/4096.
		{"2 vs 10", 2, 10, 158.0 / 4096, 0, true, 1e-15},
		{"balanced", 5, 5, 1, 0, true, 0},
		{"none discordant", 0, 0, 1, 0, false, 0},
		// Agresti's presidential approval table (794, 150, 86, 570): corrected
		// chi-square 63²/236 = 16.818, p = 4.115e-05 (R's mcnemar.test).
		{"Agresti", 150, 86, 4.115e-05, 3969.0 / 236, false, 5e-8},
		// At 25 discordant pairs the chi-square takes over: (|5-20|-1)²/25 = 7.84.
		{"25 pairs", 5, 20, ChiSquare1SF(7.84), 7.84, false, 1e-15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := McNemar(tt.b, tt.c)
			near(t, "P", r.P, tt.wantP, tt.tol)
			near(t, "Statistic", r.Statistic, tt.wantStat, 1e-12)
			if r.Exact != tt.wantExact {
				t.Errorf("Exact = %v, want %v", r.Exact, tt.wantExact)
			}
		})
	}
	near(t, "ChiSquare1SF(7.84)", ChiSquare1SF(7.84), 0.005110, 2e-6)
}

func TestBinomialCDF(t *testing.T) {
	near(t, "B(10,.5)≤1", BinomialCDF(1, 10, 0.5), 11.0/1024, 1e-15)
	near(t, "B(10,.5)≤10", BinomialCDF(10, 10, 0.5), 1, 0)
	near(t, "B(10,.5)≤-1", BinomialCDF(-1, 10, 0.5), 0, 0)
	// P(X ≤ 3 | n = 20, p = 0.3) = 0.10709 (binomial table).
	near(t, "B(20,.3)≤3", BinomialCDF(3, 20, 0.3), 0.10709, 1e-5)
	// Large n stays finite: P(X ≤ 500 | 1000, 0.5) is just over one half.
	near(t, "B(1000,.5)≤500", BinomialCDF(500, 1000, 0.5), 0.5126, 1e-4)
}

func BenchmarkMannWhitneyExact(b *testing.B) {
	x := make([]float64, 40)
	y := make([]float64, 40)
	for i := range x {
		x[i], y[i] = float64(i*3), float64(i*3+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		MannWhitneyU(x, y)
	}
}
