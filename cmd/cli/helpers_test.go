package cli

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/results"
)

// readResultsJSON reads a results.json and returns it decoded and as written.
func readResultsJSON(t *testing.T, path string) (*results.Report, []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r results.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r, raw
}

// armSummary is the summary of one arm in a results.json: the figures a test of the sample
// corpus derives what it expects from, so that a new sample changes no literal figure.
func armSummary(t *testing.T, path, arm string) results.ArmSummary {
	t.Helper()
	r, _ := readResultsJSON(t, path)
	for _, a := range r.Summary {
		if a.Arm == arm {
			return a
		}
	}
	t.Fatalf("%s has no arm %q", path, arm)
	return results.ArmSummary{}
}

// sampleCases is the number of cases a replay of the sample corpus measures (the last request
// of every conversation that has one), for the tests and scripts ($SAMPLE_CASES) that count them.
func sampleCases(t testing.TB) int {
	t.Helper()
	var col corpora.Collector
	if err := corpora.ReadSamples(context.Background(), &col); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range col.Conversations {
		if len(c.Requests()) > 0 {
			n++
		}
	}
	return n
}
