package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// casesMarker is where the cases sit in the indented JSON of a report whose cases are empty.
var casesMarker = []byte("\n  \"cases\": []")

// writeReportJSON writes r as WriteIndentedJSON would, byte for byte, but one case at a time:
// the report's JSON is never held whole in memory (a run of ten thousand requests writes a
// results.json of over 100 MB, which one Encode would build, then indent, in memory).
func writeReportJSON(w io.Writer, r *Report) error {
	if len(r.Cases) == 0 {
		return WriteIndentedJSON(w, r)
	}
	frame := *r
	frame.Cases = []Case{}
	var head bytes.Buffer
	if err := WriteIndentedJSON(&head, &frame); err != nil {
		return err
	}
	at := bytes.Index(head.Bytes(), casesMarker)
	if at < 0 {
		return fmt.Errorf("results.json: no cases field in the report's JSON")
	}
	split := at + len(casesMarker) - 1 // before the closing ]
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(head.Bytes()[:split])
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	for i := range r.Cases {
		one.Reset()
		if err := enc.Encode(&r.Cases[i]); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
	}
	bw.WriteString("\n  ")
	bw.Write(head.Bytes()[split:])
	return bw.Flush()
}
