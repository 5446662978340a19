package results

import (
	"math"
	"strconv"
)

// durationUnits are the units a column of durations may be printed in, smallest first.
var durationUnits = []struct {
	name string
	ns   float64
}{{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}

// durationUnit is the one unit a column of durations (in nanoseconds) is printed in, as
// benchstat prints them: the largest unit in which the column's largest value is at least 1.
func durationUnit(ns ...float64) (name string, scale float64) {
	largest := 0.0
	for _, v := range ns {
		largest = max(largest, math.Abs(v))
	}
	u := durationUnits[0]
	for _, c := range durationUnits[1:] {
		if largest >= c.ns {
			u = c
		}
	}
	return u.name, u.ns
}

// Significant prints v with three significant digits ("5.10", "0.198", "12.4"); from 1,000 on
// it prints the whole number with thousands separators ("34,783").
func Significant(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	a := math.Abs(v)
	if a >= 999.5 {
		return Thousands(int64(math.Round(v)))
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(a))))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if r, _ := strconv.ParseFloat(s, 64); math.Abs(r) >= math.Pow(10, float64(3-decimals)) && decimals > 0 {
		s = strconv.FormatFloat(v, 'f', decimals-1, 64) // 9.996 rounds to 10.00: three digits are 10.0
	}
	return s
}

// durationColumns sets, in each row of t, the cells of the columns cols (nanoseconds, given by
// ns[row][i] for cols[i]) in one unit per column, named in the column's header ("p50 (ms)").
func durationColumns(t *Table, cols []int, ns [][]float64) {
	for i, col := range cols {
		column := make([]float64, len(ns))
		for r := range ns {
			column[r] = ns[r][i]
		}
		name, scale := durationUnit(column...)
		t.Header[col] += " (" + name + ")"
		for r := range ns {
			t.Rows[r][col] = Significant(ns[r][i] / scale)
		}
	}
}

// MBPerSecCell prints a throughput in MB/s with one decimal and thousands separators.
func MBPerSecCell(v float64) string {
	whole := math.Trunc(v)
	tenth := int64(math.Round((v - whole) * 10))
	if tenth == 10 {
		whole, tenth = whole+1, 0
	}
	return Thousands(int64(whole)) + "." + strconv.FormatInt(tenth, 10)
}
