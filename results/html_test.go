package results

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/records"
)

// TestWriteHTMLEscapes: what comes from a recording (case ids, JSON Pointers, reasons) reaches
// the page as text, never as markup or script, and the figures embedded for the charts are
// valid JSON inside their script element.
func TestWriteHTMLEscapes(t *testing.T) {
	evil := `x</script><script>alert(1)</script><img src=x onerror=alert(2)>`
	r := &Report{
		Config:  RunConfig{Tokenizer: "o200k_base", Template: "qwen", Vision: "llamacpp/qwen3vl", Context: 262144, Engine: "offline"},
		Summary: []ArmSummary{{Arm: "before", Cases: 1, PromptTokens: 1395283}, {Arm: "after", Cases: 1, PromptTokens: 1807, ImageRows: 1002}},
		Cases: []Case{{ID: evil + "#0@6", Arms: []ArmCase{
			{Arm: "before", PromptTokens: 1395283, TextTokens: 1395283},
			{Arm: "after", PromptTokens: 1807, TextTokens: 805, ImageRows: 1002, Fits: true, Pictures: []Picture{{
				PictureRecord: records.PictureRecord{Outcome: records.OutcomeLifted, Reason: evil, Type: "image/png", Width: 1280, Height: 800, SeenByModel: true},
				Rows:          1000, Markers: 2}}},
		}}},
		Problems: []Problem{{Where: evil, Message: evil}},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<img src=x", "<script>alert", "</script><script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page carries %q from the recording unescaped", bad)
		}
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("%d script elements, want the data and the drawing script", n)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="chart-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no chart data")
	}
	var data chartData
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatalf("chart data is not JSON: %v\n%s", err, m[1])
	}
	if len(data.Cases) != 1 || data.Cases[0].ID != evil+"#0@6" || data.Cases[0].Bars[1].ImageRows != 1002 || !data.Cases[0].Bars[0].Refused {
		t.Errorf("chart data %+v", data)
	}
	if !strings.Contains(page, `default-src 'none'`) {
		t.Error("the page has no Content-Security-Policy forbidding the network")
	}
}

// TestWriteHTMLNoCase: a run that replayed nothing still writes a page whose chart data are
// empty lists, which the script draws as nothing.
func TestWriteHTMLNoCase(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, &Report{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `{"arms":[],"cases":[]}`) {
		t.Errorf("chart data of an empty run: %s", regexp.MustCompile(`(?s)id="chart-data">.*?</script>`).FindString(b.String()))
	}
}
