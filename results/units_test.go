package results

import "testing"

// TestSignificant: three significant digits, thousands separated from 1,000 on.
func TestSignificant(t *testing.T) {
	for v, want := range map[float64]string{5.099: "5.10", 0.198201: "0.198", 12.351795: "12.4", 759.129: "759", 9.996: "10.0",
		99.96: "100", 34783.497: "34,783", 0: "0", 1: "1.00"} {
		if got := Significant(v); got != want {
			t.Errorf("Significant(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestScanTableOneUnitPerColumn: each duration column of the scan table has one unit, named in
// its header, and no raw Go duration ("1.649243ms").
func TestScanTableOneUnitPerColumn(t *testing.T) {
	r := &Report{Timings: Timings{Scan: []ScanSummary{
		{Arm: "after", Messages: 26, Bytes: 4206204, P50: 5099, P95: 198201, Max: 759129, Total: 1821994},
		{Arm: "agent", Messages: 26, Bytes: 2118266, P50: 2187, P95: 12351795, Max: 21169063, Total: 34783497}}}}
	st := ScanTable(r)
	want := [][]string{{"5.10", "0.198", "0.759", "1.82"}, {"2.19", "12.4", "21.2", "34.8"}}
	if h := st.Header[3:]; h[0] != "p50 (µs)" || h[1] != "p95 (ms)" || h[2] != "max (ms)" || h[3] != "total (ms)" {
		t.Errorf("headers %q", h)
	}
	for i, row := range st.Rows {
		for j, cell := range row[3:] {
			if cell != want[i][j] {
				t.Errorf("row %d column %s: %q, want %q", i, st.Header[3+j], cell, want[i][j])
			}
		}
	}
	if got := MBPerSecCell(12345.67); got != "12,345.7" {
		t.Errorf("MBPerSecCell = %q", got)
	}
}
