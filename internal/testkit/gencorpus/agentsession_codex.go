package gencorpus

import (
	"fmt"
	"strconv"
)

// codexTurns writes a Codex CLI rollout ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl):
// its Responses items and the token_count events after each response.
type codexTurns struct{ ordinal int }

// record writes one {timestamp, ordinal, type, payload} line; payload writes the payload.
func (c *codexTurns) record(o *agentOut, k int, typ string, payload ...string) {
	c.recordWith(o, k, typ, func() { o.line(payload...) })
}

// recordWith writes one line whose payload payload writes.
func (c *codexTurns) recordWith(o *agentOut, k int, typ string, payload func()) {
	o.line(`{"timestamp":"`, stamp(k), `","ordinal":`, strconv.Itoa(c.ordinal), `,"type":"`, typ, `","payload":`)
	payload()
	o.line("}\n")
	c.ordinal++
}

func (c *codexTurns) head(o *agentOut) {
	c.record(o, 0, "session_meta", `{"session_id":"01a2519b-a9b4-7243-87a6-138b3b487201","id":"01a2519b-a9b4-7243-87a6-138b3b487201","timestamp":"`, stamp(0),
		`","cwd":"/home/user/project","originator":"codex_exec","cli_version":"0.171.0","model_provider":"agentsim",`+
			`"base_instructions":{"text":"You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals."}}`)
	c.record(o, 0, "response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>"}]}`)
}

// usage writes the token_count event of a response.
func (c *codexTurns) usage(o *agentOut, k, input int) {
	c.record(o, k, "event_msg", `{"type":"token_count","info":{"total_token_usage":{"input_tokens":`, strconv.Itoa(input*(k+1)),
		`,"cached_input_tokens":0,"output_tokens":12,"reasoning_output_tokens":0,"total_tokens":0},"last_token_usage":{"input_tokens":`, strconv.Itoa(input),
		`,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":12,"reasoning_output_tokens":0,"total_tokens":`, strconv.Itoa(input+12), `},"model_context_window":258400}}`)
}

// call writes a turn up to the tool's call, and returns the call's id.
func (c *codexTurns) call(o *agentOut, k int) string {
	c.record(o, k, "turn_context", `{"turn_id":"turn-`, strconv.Itoa(k), `","cwd":"/home/user/project","approval_policy":"never","model":"gpt-5.5","effort":"medium","summary":"auto"}`)
	c.record(o, k, "response_item", fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":"Take screenshot %d of the page and say what changed."}]}`, k))
	id := fmt.Sprintf("call_%06d", k)
	c.record(o, k, "response_item", `{"type":"function_call","status":"completed","name":"screenshot","namespace":"mcp__shots","arguments":"{}","call_id":"`, id, `"}`)
	c.usage(o, k, 10000)
	return id
}

// answer writes the model's text answer after the tool's output.
func (c *codexTurns) answer(o *agentOut, k int) {
	c.usage(o, k, 20000)
	c.record(o, k, "response_item", fmt.Sprintf(`{"type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Screenshot %d shows the strata-eval page.","annotations":[]}]}`, k))
	c.usage(o, k, 21000)
}

// turn: the picture comes back as view_image sends it, an input_image data URL.
func (c *codexTurns) turn(o *agentOut, k int, shot string) {
	id := c.call(o, k)
	c.record(o, k, "response_item", `{"type":"function_call_output","call_id":"`, id, `","output":[{"type":"input_text","text":"Wall time: 0.0064 seconds\nOutput:"},{"type":"input_image","image_url":"data:image/png;base64,`, shot, `"}]}`)
	c.answer(o, k)
}

// hugeTurn: an MCP result's text, as Codex records it (it keeps the whole text).
func (c *codexTurns) hugeTurn(o *agentOut, k int, huge func(quote string)) error {
	id := c.call(o, k)
	c.recordWith(o, k, "response_item", func() {
		o.line(`{"type":"function_call_output","call_id":"`, id, `","output":[{"type":"input_text","text":"Wall time: 0.0064 seconds\nOutput:"},{"type":"input_text","text":"`)
		huge(`\"`)
		o.line(`"}]}`)
	})
	c.answer(o, k)
	return o.err
}

// compact writes the compacted record whose replacement_history the requests after it start
// from.
func (c *codexTurns) compact(o *agentOut, k int) {
	summary := fmt.Sprintf("Summary of the conversation so far: %d screenshots of the page were taken.", k)
	c.record(o, k, "compacted", `{"message":"`, summary, `","replacement_history":[`+
		`{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>"}]},`+
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"`, summary, `"}]}]}`)
}

func (c *codexTurns) hugePerTurn() int64 { return 1 }
