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
