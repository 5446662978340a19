package corpora

import (
	"context"
	"strings"
	"testing"
)

// TestMCPEnvelopeMalformedFrame: a transcript line whose envelope holds, as a JSON string, a
// frame that is not JSON (as strata-eval record mcp writes one) is a problem located at that
// line and member, named a malformed frame; the frames around it are read.
func TestMCPEnvelopeMalformedFrame(t *testing.T) {
	transcript := `{"ts":"2026-12-03T08:00:00Z","dir":"client->server","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shot"}}}
{"ts":"2026-12-03T08:00:01Z","dir":"client->server","message":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"}
{"ts":"2026-12-03T08:00:02Z","dir":"server->client","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}}
`
	var col Collector
	if err := Read(context.Background(), "t.jsonl", strings.NewReader(transcript), "", &col); err != nil {
		t.Fatal(err)
	}
	if len(col.Problems) != 1 || len(col.Conversations) != 1 {
		t.Fatalf("%d problems, %d conversations: %v", len(col.Problems), len(col.Conversations), col.Problems)
	}
	p := col.Problems[0]
	if p.Loc.Line != 2 || p.Loc.Pointer != "/message" || !strings.Contains(p.Error(), "malformed frame (recorded as a string, not JSON)") {
		t.Fatalf("problem %v", p)
	}
}
