package results

import (
	"testing"

	"github.com/strata-eval/strata-eval/records"
)

// TestToolCell: the case table's first row says what the request ends with: the tool messages'
// text and pictures, or that it ends with no tool message at all.
func TestToolCell(t *testing.T) {
	for _, tc := range []struct {
		arm  ArmCase
		want string
	}{
		{ArmCase{ToolMessages: 1, ToolChars: 2_038_152}, "2,038,152 characters of text"},
		{ArmCase{ToolMessages: 1, ToolChars: 40, ToolPictures: 1}, "40 characters of text + one picture"},
		{ArmCase{ToolMessages: 2, ToolPictures: 3}, "3 pictures"},
		{ArmCase{ToolMessages: 1}, "0 characters of text"},
		{ArmCase{}, "no tool message"},
	} {
		if got := toolCell(tc.arm); got != tc.want {
			t.Errorf("toolCell(%+v) = %q, want %q", tc.arm, got, tc.want)
		}
	}
}

// TestPictureTableRowsAddUp: the pictures table gives each picture the rows it adds to the
// prompt, markers included, so that a case's pictures add up to its image rows.
func TestPictureTableRowsAddUp(t *testing.T) {
	r := &Report{Cases: []Case{{ID: "c", Arms: []ArmCase{{Arm: "after", ImageRows: 1002 + 260,
		Pictures: []Picture{{Rows: 1000, Markers: 2}, {Rows: 258, Markers: 2}}}}}}}
	table := CompactPictureTable(r)
	if len(table.Rows) != 2 || table.Rows[0][4] != "1,002" || table.Rows[1][4] != "260" {
		t.Fatalf("rows column %q, %q; want 1,002 and 260", table.Rows[0][4], table.Rows[1][4])
	}
}

// TestPictureCell: a picture the agent prepared shows what it was and, after an arrow, only
// what changed: the type, the size, the bytes.
func TestPictureCell(t *testing.T) {
	png := Picture{PictureRecord: records.PictureRecord{Type: "image/png", Width: 1280, Height: 800, Bytes: 1_528_438}}
	reencoded := png
	reencoded.Resized = &records.Resize{FromWidth: 1280, FromHeight: 800, FromBytes: 1_528_438, ToWidth: 1280, ToHeight: 800, ToBytes: 190_619, ToType: "image/jpeg"}
	scaled := png
	scaled.Resized = &records.Resize{FromWidth: 1280, FromHeight: 800, FromBytes: 1_528_438, ToWidth: 640, ToHeight: 400, ToBytes: 480_000, ToType: "image/png"}
	for _, tc := range []struct {
		p    Picture
		want string
	}{
		{png, "png 1280×800 1.5 MB"},
		{reencoded, "png 1280×800 1.5 MB → jpeg 190.6 KB"},
		{scaled, "png 1280×800 1.5 MB → 640×400 480.0 KB"},
		{Picture{}, "-"},
	} {
		if got := pictureCell(tc.p); got != tc.want {
			t.Errorf("pictureCell = %q, want %q", got, tc.want)
		}
	}
}
