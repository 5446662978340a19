package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNextStepFollowsTheScript(t *testing.T) {
	names := toolNames{search: "ToolSearch", shot: "mcp__shots__screenshot", read: "Read"}
	deferred := []string{"Read", "ToolSearch"}
	loaded := []string{"Read", "ToolSearch", "mcp__shots__screenshot"}
	tests := []struct {
		offered []string
		called  []string
		want    step
	}{
		{deferred, nil, stepSearch},
		{deferred, []string{"ToolSearch"}, stepShot},
		{loaded, nil, stepShot},
		{loaded, []string{"mcp__shots__screenshot"}, stepRead},
		{loaded, []string{"mcp__shots__screenshot", "Read"}, stepAnswer},
		{nil, nil, stepAnswer},            // a side query without tools
		{[]string{"Read"}, nil, stepRead}, // no MCP tool at all: straight to the file
	}
	for _, tt := range tests {
		called := map[string]bool{}
		for _, c := range tt.called {
			called[c] = true
		}
		if got, _ := nextStep(names, tt.offered, called); got != tt.want {
			t.Errorf("offered %v, called %v: step %d, want %d", tt.offered, tt.called, got, tt.want)
		}
	}
}

// events reads a server-sent event stream into its data objects.
func events(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, m)
	}
	return out
}

func TestModelServerKeepsBodiesAndAnswersEachProtocol(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(&modelServer{dir: dir, picture: "/p/screen.png", log: io.Discard})
	defer srv.Close()
	post := func(path, body string) []map[string]any {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
		return events(t, resp.Body)
	}
	// Claude Code, the MCP tool loaded and called: the script reads the file next.
	claude := `{"model":"m","stream":true,"tools":[{"name":"Read"},{"name":"mcp__shots__screenshot"}],"messages":[` +
		`{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","name":"mcp__shots__screenshot","id":"a","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}]}`
	ev := post("/v1/messages?beta=true", claude)
	if len(ev) != 6 || ev[1]["content_block"].(map[string]any)["name"] != "Read" {
		t.Fatalf("messages: want a streamed Read call, got %v", ev)
	}
	if got := ev[2]["delta"].(map[string]any)["partial_json"]; got != `{"file_path":"/p/screen.png"}` {
		t.Errorf("Read input %v", got)
	}
	// Codex, nothing called yet: the MCP tool in its namespace.
	codex := `{"model":"m","stream":true,"tools":[{"type":"function","name":"view_image"},{"type":"namespace","name":"mcp__shots","tools":[{"type":"function","name":"screenshot"}]}],"input":[{"type":"message"}]}`
	ev = post("/v1/responses", codex)
	item := ev[len(ev)-2]["item"].(map[string]any)
	if item["namespace"] != "mcp__shots" || item["name"] != "screenshot" || ev[len(ev)-1]["type"] != "response.completed" {
		t.Fatalf("responses: want the namespaced screenshot call, got %v", ev)
	}
	// Codex with its MCP tools deferred: a client-run tool search first.
	ev = post("/v1/responses", `{"tools":[{"type":"function","name":"view_image"},{"type":"tool_search"}],"input":[{"type":"message"}]}`)
	if item := ev[len(ev)-2]["item"].(map[string]any); item["type"] != "tool_search_call" || item["execution"] != "client" {
		t.Fatalf("responses: want a tool_search_call, got %v", item)
	}
	for i, want := range []string{claude, codex} {
		name := []string{"001-v1-messages.json", "002-v1-responses.json"}[i]
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: kept %q (%v), want the body as sent", name, got, err)
		}
	}
}

func TestRewriterNeutralisesTheHome(t *testing.T) {
	rw := rewriter("/tmp/agentsim123", "/tmp/agentsim123/home")
	in := `{"cwd":"/tmp/agentsim123/home/project","dir":"-tmp-agentsim123-home-project","tmp":"/tmp/agentsim123/x","path":"tmp/agentsim123/home/project"}`
	want := `{"cwd":"/home/user/project","dir":"-home-user-project","tmp":"/tmp/agentsim/x","path":"home/user/project"}`
	if got := string(rw.Replace([]byte(in))); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	bin := []byte{0xff, '/', 't', 'm', 'p'}
	if got := rw.Replace(bin); string(got) != string(bin) {
		t.Errorf("binary file changed: %v", got)
	}
}

func TestScreenshotHasTheAskedSize(t *testing.T) {
	for _, size := range []int{24 << 10, 150000} {
		png, err := screenshot(size, 0, 34)
		if err != nil || len(png) != size {
			t.Errorf("screenshot(%d): %d bytes, %v", size, len(png), err)
		}
	}
}

func TestGeminiScriptAndSideQueries(t *testing.T) {
	var req geminiRequest
	body := `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"mcp_shots_screenshot","args":{}}}]}],
		"tools":[{"functionDeclarations":[{"name":"read_file","parametersJsonSchema":{"type":"object","required":["file_path"]}},{"name":"mcp_shots_screenshot"}]}]}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if st, tool, param := geminiStep(req); st != stepRead || tool != "read_file" || param != "file_path" {
		t.Errorf("after the screenshot: step %d, %s(%s); want read_file(file_path)", st, tool, param)
	}
	schema := map[string]any{"type": "OBJECT", "properties": map[string]any{
		"complexity_score": map[string]any{"type": "INTEGER"}, "why": map[string]any{"type": "STRING"},
		"lane": map[string]any{"type": "STRING", "enum": []any{"flash", "pro"}}}}
	got, _ := json.Marshal(schemaExample(schema))
	if string(got) != `{"complexity_score":1,"lane":"flash","why":"agentsim"}` {
		t.Errorf("schemaExample = %s", got)
	}
}

func TestClaudeSubagentScript(t *testing.T) {
	s := &modelServer{subagent: true}
	req := func(body string) anthropicRequest {
		var r anthropicRequest
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	tools := `"tools":[{"name":"Agent"},{"name":"Read"},{"name":"ToolSearch"}]`
	call := func(name string) string {
		return `{"role":"assistant","content":[{"type":"tool_use","name":"` + name + `","id":"x","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"ok"}]}`
	}
	for _, tt := range []struct {
		body string
		want step
	}{
		{`{` + tools + `,"messages":[{"role":"user","content":"go"}]}`, stepAgent},
		{`{` + tools + `,"messages":[{"role":"user","content":"go"},` + call("Agent") + `]}`, stepRead},
		{`{` + tools + `,"messages":[{"role":"user","content":"go"},` + call("Agent") + `,` + call("Read") + `]}`, stepAnswer},
		{`{` + tools + `,"messages":[{"role":"user","content":"` + subagentMarker + ` shoot"}]}`, stepSearch},
		{`{` + tools + `,"messages":[{"role":"user","content":"` + subagentMarker + ` shoot"},` + call("ToolSearch") + `,` + call(claudeTools.shot) + `]}`, stepAnswer},
		{`{"messages":[{"role":"user","content":"a title, please"}]}`, stepAnswer},
	} {
		if got, _ := s.claudeStep(req(tt.body)); got != tt.want {
			t.Errorf("%s: step %d, want %d", tt.body, got, tt.want)
		}
	}
}
