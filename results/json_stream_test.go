package results

import (
	"bytes"
	"testing"
)

// TestWriteJSONStreamsTheSameBytes: the report written a case at a time is byte for byte the
// JSON one Encode of the whole report gives, with no case, one, and several holding what the
// encoder escapes or not (<, >, &, quotes, newlines, non-ASCII).
func TestWriteJSONStreamsTheSameBytes(t *testing.T) {
	one := int(7)
	mk := func(n int) *Report {
		r := &Report{Schema: Schema, Summary: []ArmSummary{{Arm: "before"}}, Problems: []Problem{{Where: "a <b> & \"c\"", Message: "cases: []\n  \"cases\": []"}}}
		for i := range n {
			r.Cases = append(r.Cases, Case{ID: "c<&>" + string(rune('a'+i)), File: "f\n\"é\"", Request: i, Arms: []ArmCase{{Arm: "after", CountDiff: &one}}, Errors: []ArmError{{Arm: "x", Message: "<m>"}}})
		}
		return r
	}
	for _, n := range []int{0, 1, 3} {
		r := mk(n)
		var want, got bytes.Buffer
		if err := WriteIndentedJSON(&want, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&got, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d cases: streamed JSON differs:\n%s\nwant:\n%s", n, got.Bytes(), want.Bytes())
		}
	}
	var nilCases bytes.Buffer
	if err := WriteJSON(&nilCases, &Report{Schema: Schema}); err != nil || !bytes.Contains(nilCases.Bytes(), []byte(`"cases": null`)) {
		t.Errorf("a report without cases: %v\n%s", err, nilCases.Bytes())
	}
}
