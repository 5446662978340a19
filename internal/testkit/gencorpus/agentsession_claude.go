package gencorpus

import (
	"fmt"
	"strconv"
)

// claudeSession is the session id the Claude Code lines carry.
const claudeSession = "e868713d-f561-4b38-9591-97646ad8b58a"

// claudeTurns writes a Claude Code session (~/.claude/projects/<project>/<session>.jsonl): its
// transcript and the api-request records each request is rebuilt from.
type claudeTurns struct {
	req     int    // requests written
	last    string // the id of the last request
	msgs    int    // the messages of the last request
	summary string // the blob hash of the summary the next request starts from ("": none)
}

const claudeShapeHash = "1963e150f5fcab3b03ea00f127c2d3a4274cc8b3c4d950d71734eb9ab196af7f"

func (c *claudeTurns) head(o *agentOut) {
	o.line(`{"type":"api-request-route","provider":"customEndpoint","credential":"key","sessionId":"`, claudeSession, `"}`+"\n")
	o.line(`{"type":"api-request-shape","sessionId":"`, claudeSession, `","shapeHash":"`, claudeShapeHash, `","timestamp":"`, stamp(0),
		`","version":"2.1.337","shape":{"system":[{"type":"text","text":"You are a Claude agent, built on Anthropic's Claude Agent SDK."},`+
			`{"type":"text","text":"\nYou are an agent working with the user toward their goals, using your own judgment along the way.\n"}],`+
			`"tools":[{"name":"Read","description":"Reads a file from the local filesystem.","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},`+
			`{"name":"mcp__shots__screenshot","description":"Capture a screenshot of the browser page","input_schema":{"type":"object","properties":{}}}]}}`+"\n")
	c.blob(o, "d159f2e54cfd4957184dfc40e5f75d00a42af007ab32e194ddcea28d8370883c",
		`{"role":"user","content":[{"type":"text","text":"<system-reminder>\nAttribution for git commits and pull requests is set by the user.\n</system-reminder>"},{"type":"text","text":"Take a screenshot with the shots MCP server."}]}`)
	c.summary = "d159f2e54cfd4957184dfc40e5f75d00a42af007ab32e194ddcea28d8370883c"
}

func (c *claudeTurns) blob(o *agentOut, hash, message string) {
	o.line(`{"type":"api-request-blob","sessionId":"`, claudeSession, `","hash":"`, hash, `","message":`, message, "}\n")
}

// user writes a user record of the transcript; returned is its toolUseResult ("": none).
func (c *claudeTurns) user(o *agentOut, k int, content string, returned func()) {
	o.line(`{"parentUuid":"a`, strconv.Itoa(k), `","isSidechain":false,"promptId":"p`, strconv.Itoa(k), `","type":"user","message":{"role":"user","content":`, content, `},`)
	if returned != nil {
		o.line(`"toolUseResult":`)
		returned()
		o.line(`,`)
	}
	o.line(`"uuid":"u`, strconv.Itoa(k), `","timestamp":"`, stamp(k), `","userType":"external","entrypoint":"sdk-cli","cwd":"/home/user/project","sessionId":"`, claudeSession, `","version":"2.1.337","gitBranch":"HEAD"}`+"\n")
}

// request writes the api-request record of a request made of the last one's messages and the
// transcript's messages since (tail of them), or, after a compaction, the summary and those.
func (c *claudeTurns) request(o *agentOut, k, tail int) {
	id := fmt.Sprintf("req-%06d", c.req)
	c.req++
	base, keep := `"base":"`+c.last+`",`, c.msgs
	hashes := ""
	if c.summary != "" {
		base, keep, c.msgs = "", 0, 1
		hashes = `"` + c.summary + `"`
		c.summary = ""
	}
	for i := range tail {
		if hashes != "" {
			hashes += ","
		}
		hashes += fmt.Sprintf(`"%064x"`, k*16+i+1)
	}
	c.msgs += tail
	c.last = id
	o.line(`{"type":"api-request","sessionId":"`, claudeSession, `","id":"`, id, `","timestamp":"`, stamp(k), `","version":"2.1.337","querySource":"sdk","shapeHash":"`, claudeShapeHash,
		`","params":{"model":"claude-opus-5-5","betas":["claude-code-20250219"],"max_tokens":128000,"thinking":{"type":"adaptive","display":"omitted"}},"thread":{"type":"none"},`,
		base, `"keep":`, strconv.Itoa(keep), `,"tail":[`, hashes, `],"requestDigest":"`, fmt.Sprintf("%064x", c.req), `"}`+"\n")
}

// assistant writes the model's answer to the last request.
func (c *claudeTurns) assistant(o *agentOut, k int, content, stop string) {
	o.line(`{"parentUuid":"u`, strconv.Itoa(k), `","isSidechain":false,"message":{"content":`, content, `,"id":"msg_`, c.last, `","model":"claude-opus-5-5","role":"assistant","stop_reason":"`, stop,
		`","stop_sequence":null,"type":"message","usage":{"input_tokens":`, strconv.Itoa(12000+c.msgs*60), `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":12}},"requestRef":"`, c.last,
		`","type":"assistant","uuid":"a`, strconv.Itoa(k), `","timestamp":"`, stamp(k), `","userType":"external","entrypoint":"sdk-cli","cwd":"/home/user/project","sessionId":"`, claudeSession, `","version":"2.1.337","gitBranch":"HEAD"}`+"\n")
}

// call writes a turn up to the tool's call: the prompt, its request and the tool_use answer.
func (c *claudeTurns) call(o *agentOut, k int) string {
	c.user(o, k, fmt.Sprintf(`"Take screenshot %d of the page and say what changed."`, k), nil)
	tail := 2 // the last answer and the prompt
	if k == 0 {
		tail = 0 // the first request sends the prompt as its opening blob
	}
	c.request(o, k, tail)
	id := fmt.Sprintf("toolu_%06d", k)
	c.assistant(o, k, `[{"id":"`+id+`","input":{},"name":"mcp__shots__screenshot","type":"tool_use"}]`, "tool_use")
	return id
}

// answer writes the request after the tool's result and its text answer.
func (c *claudeTurns) answer(o *agentOut, k int) {
	c.request(o, k, 2)
	c.assistant(o, k, fmt.Sprintf(`[{"text":"Screenshot %d shows the strata-eval page.","type":"text"}]`, k), "end_turn")
}

func (c *claudeTurns) turn(o *agentOut, k int, shot string) {
	id := c.call(o, k)
	blocks := `[{"type":"text","text":"{\"page\":\"http://localhost:3000/\"}"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + shot + `"}}]`
	c.user(o, k, `[{"tool_use_id":"`+id+`","type":"tool_result","content":`+blocks+`}]`, func() { o.line(blocks) })
	c.answer(o, k)
}

// hugeTurn: Claude Code refuses a result over its token cap; the text it sent in its place
// names the file it saved the result to, and the result is kept beside (toolUseResult).
func (c *claudeTurns) hugeTurn(o *agentOut, k int, huge func(quote string)) error {
	id := c.call(o, k)
	sent := `"<persisted-output>\nOutput too large. Full output saved to: /home/user/.claude/projects/-home-user-project/` + claudeSession + `/tool-results/` + id + `.json\n</persisted-output>"`
	c.user(o, k, `[{"tool_use_id":"`+id+`","type":"tool_result","content":`+sent+`}]`, func() {
		o.line(`[{"type":"text","text":"`)
		huge(`\"`)
		o.line(`"}]`)
	})
	c.answer(o, k)
	return o.err
}

// compact writes the summary Claude Code starts from after compacting the conversation.
func (c *claudeTurns) compact(o *agentOut, k int) {
	c.summary = fmt.Sprintf("%064x", k*16)
	c.blob(o, c.summary, fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"This session is being continued from a previous conversation. Summary: %d screenshots of the page were taken."}]}`, k))
}

func (c *claudeTurns) hugePerTurn() int64 { return 1 }
