package results

import "testing"

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
