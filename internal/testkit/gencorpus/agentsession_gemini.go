package gencorpus

import (
	"fmt"
	"strconv"
)

// geminiTurns writes a Gemini CLI session (~/.gemini/tmp/<project>/chats/session-*.jsonl): its
// messages, each model turn written again with its tool calls and their results, and the $set
// records that update the session (or replace its messages, when it compresses them).
type geminiTurns struct{}

func (geminiTurns) head(o *agentOut) {
	o.line(`{"sessionId":"50934295-b320-46e5-8c45-bad530b60f2b","projectHash":"42eaeb05e165c137b237b30202bacd05bb0beb582b578af2bd54ad6949e2ee02","startTime":"`, stamp(0), `","lastUpdated":"`, stamp(0), `","kind":"main"}`+"\n")
	o.line(`{"$set":{"messages":[{"id":"ctx","timestamp":"`, stamp(0), `","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>"}]}]}}`+"\n")
}

// model writes a model turn (with its tool call and the call's result, when result is not nil).
func (geminiTurns) model(o *agentOut, k int, id, text string, call string, result func()) {
	o.line(`{"id":"`, id, `","timestamp":"`, stamp(k), `","type":"gemini","content":`, strconv.Quote(text), `,"thoughts":[],"tokens":{"input":`, strconv.Itoa(11000+k%8*9000),
		`,"output":12,"cached":0,"thoughts":0,"tool":0,"total":0},"model":"gemini-3.8-flash"`)
	if result != nil {
		o.line(`,"toolCalls":[{"id":"`, call, `","name":"mcp_shots_screenshot","args":{},"result":`)
		result()
		o.line(`,"status":"success","timestamp":"`, stamp(k), `","displayName":"screenshot (shots MCP Server)"}]`)
	}
	o.line("}\n", `{"$set":{"lastUpdated":"`, stamp(k), `"}}`+"\n")
}

// exchange writes a turn around the parts of the tool's result that parts writes.
func (g geminiTurns) exchange(o *agentOut, k int, parts func()) {
	o.line(`{"id":"u`, strconv.Itoa(k), `","timestamp":"`, stamp(k), `","type":"user","content":[{"text":"Take screenshot `, strconv.Itoa(k), ` of the page and say what changed."}]}`+"\n")
	turn := fmt.Sprintf("g%06d", k)
	call := fmt.Sprintf("mcp_shots_screenshot__mcp_shots_screenshot_%d_0", 1796667124696+k)
	g.model(o, k, turn, "", call, nil)
	g.model(o, k, turn, "", call, parts)
	o.line(`{"id":"r`, strconv.Itoa(k), `","timestamp":"`, stamp(k), `","type":"user","content":`)
	parts()
	o.line("}\n")
	g.model(o, k, fmt.Sprintf("a%06d", k), fmt.Sprintf("Screenshot %d shows the strata-eval page.", k), "", nil)
}

// turn: the MCP result's image block goes out as inlineData after its functionResponse.
func (g geminiTurns) turn(o *agentOut, k int, shot string) {
	call := fmt.Sprintf("mcp_shots_screenshot__mcp_shots_screenshot_%d_0", 1796667124696+k)
	g.exchange(o, k, func() {
		o.line(`[{"functionResponse":{"id":"`, call, `","name":"mcp_shots_screenshot","response":{"output":"Screenshot of http://localhost:3000/"}}},{"inlineData":{"data":"`, shot, `","mimeType":"image/png"}}]`)
	})
}

// hugeTurn: the MCP result's text is the functionResponse's output (in the model turn's
// record of its tool call and in the user content that sends it: two huge lines).
func (g geminiTurns) hugeTurn(o *agentOut, k int, huge func(quote string)) error {
	call := fmt.Sprintf("mcp_shots_screenshot__mcp_shots_screenshot_%d_0", 1796667124696+k)
	g.exchange(o, k, func() {
		o.line(`[{"functionResponse":{"id":"`, call, `","name":"mcp_shots_screenshot","response":{"output":"<untrusted_context>\n`)
		huge(`\"`)
		o.line(`\n</untrusted_context>"}}}]`)
	})
	return o.err
}

// compact writes the $set that replaces the messages with their summary.
func (geminiTurns) compact(o *agentOut, k int) {
	o.line(`{"$set":{"messages":[{"id":"c`, strconv.Itoa(k), `","timestamp":"`, stamp(k), `","type":"user","content":[{"text":"<state_snapshot>\n`, strconv.Itoa(k), ` screenshots of the page were taken.\n</state_snapshot>"}]}]}}`+"\n")
}

func (geminiTurns) hugePerTurn() int64 { return 2 }
