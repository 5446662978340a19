package replay

import (
	"strings"
	"testing"
)

// benchHeadlineText is the headline case: a Chatbox tool message of about 2 MB carrying a
// ~1.5 MB PNG as JSON-stringified image-data.
func benchHeadlineText(b *testing.B) string {
	pic := fxBigPNG()
	return jsStringify(b, []aiSDKPart{
		{Type: "text", Text: "Captured the chat window " + strings.Repeat("with some context ", 40)},
		{Type: "image-data", Data: b64(pic), MediaType: "image/png"},
	})
}

func benchJSONText(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"results":[`)
	for i := 0; sb.Len() < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"title":"Quarterly report for the northern region","link":"https://example.com/reports/2026/q1/north?id=12345","snippet":"Revenue grew by 12% while costs fell; see the attached tables for the full breakdown by product line.","score":0.8731}`)
	}
	sb.WriteString(`]}`)
	return sb.String()
}

// BenchmarkScan times the scan and the text lift (finding runs, checking signatures, writing
// the text with placeholders); the full decode of a lifted picture is BenchmarkDecodeLiftedPNG.
func BenchmarkScan(b *testing.B) {
	cases := []struct {
		name string
		text func(b *testing.B) string
	}{
		{"png2MB", benchHeadlineText},
		{"base64_2MB", func(*testing.B) string { return `{"blob":"` + fxBase64Noise(2<<20) + `"}` }},
		{"json2MB", func(*testing.B) string { return benchJSONText(2 << 20) }},
		{"text20KB", func(*testing.B) string { return benchJSONText(20 << 10) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			text := c.text(b)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				l := NewLifter(Settings{})
				t := l.Plan(text)
				if len(t.Text) == 0 {
					b.Fatal("empty")
				}
			}
		})
	}
}

// BenchmarkDecodeLiftedPNG times decoding the lifted ~1.5 MB picture of the headline case.
func BenchmarkDecodeLiftedPNG(b *testing.B) {
	text := benchHeadlineText(b)
	plan := NewLifter(Settings{}).Plan(text)
	if len(plan.Pictures) != 1 {
		b.Fatalf("%d pictures", len(plan.Pictures))
	}
	run := plan.Pictures[0].Run
	b.SetBytes(int64(run.End - run.Start))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRun(text, run); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLift times what the server pays per tool message (ScanTiming): the scan, the text
// lift and the decode of the lifted pictures.
func BenchmarkLift(b *testing.B) {
	for _, c := range []struct {
		name string
		text func(b *testing.B) string
	}{
		{"png2MB", benchHeadlineText},
		{"base64_2MB", func(*testing.B) string { return `{"blob":"` + fxBase64Noise(2<<20) + `"}` }},
	} {
		b.Run(c.name, func(b *testing.B) {
			text := c.text(b)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewLifter(Settings{}).Lift(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLiftTextMetAgain lifts the headline tool text as the arms of a case and the
// requests of a conversation meet it, through one PictureMemo: the same string again (the
// arms; re-sent history when the reader hands it over as the string it read before) or an
// equal copy (re-sent history read afresh).
func BenchmarkLiftTextMetAgain(b *testing.B) {
	text := benchHeadlineText(b)
	for _, copies := range []bool{false, true} {
		name := map[bool]string{false: "same_string", true: "equal_copy"}[copies]
		b.Run(name, func(b *testing.B) {
			memo := NewPictureMemo()
			NewLifter(Settings{}).WithPictureMemo(memo).liftTimed(text)
			texts := make([]string, maxLifts+4) // more copies than the memo keeps: each a miss
			for i := range texts {
				if texts[i] = text; copies {
					texts[i] = strings.Clone(text)
				}
			}
			b.SetBytes(int64(len(text)))
			for i := 0; b.Loop(); i++ {
				if t, _ := NewLifter(Settings{}).WithPictureMemo(memo).liftTimed(texts[i%len(texts)]); len(t.Images()) != 1 {
					b.Fatalf("%d images", len(t.Images()))
				}
			}
		})
	}
}
