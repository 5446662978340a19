package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestClineScriptReadsThePictureWithItsFileTool(t *testing.T) {
	var req anthropicRequest
	body := `{"model":"m","tools":[{"name":"read_files"},{"name":"shots__screenshot"}],"messages":[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"shots__screenshot","input":{}}]}]}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	st, tool := (&modelServer{}).claudeStep(req)
	if st != stepRead || tool != "read_files" {
		t.Fatalf("after the screenshot: step %d, %s; want read_files", st, tool)
	}
	want := map[string]any{"files": []any{map[string]any{"path": "/p/screen.png"}}}
	if got := readInput(tool, "/p/screen.png"); !reflect.DeepEqual(got, want) {
		t.Errorf("read_files input %v, want %v", got, want)
	}
	if got := readInput("Read", "/p/screen.png"); !reflect.DeepEqual(got, map[string]any{"file_path": "/p/screen.png"}) {
		t.Errorf("Claude Code's Read input %v", got)
	}
}
