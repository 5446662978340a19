package gencorpus

import (
	"fmt"
)

// clineTurns writes a Cline CLI session's messages (~/.cline/data/sessions/<id>/<id>.messages.json,
// JSON.stringify with two spaces): the session's head, its messages in Anthropic form, an MCP
// result stringified into the tool_result's content, and the system prompt after them. Cline
// records no compaction.
type clineTurns struct{ messages int }

// clineSession is the id of the session written.
const clineSession = "1796677063915_oulg3"

func (c *clineTurns) head(o *agentOut) {
	o.line(`{
  "version": 1,
  "updated_at": "2026-12-07T20:57:47.178Z",
  "agent": "lead",
  "sessionId": "`, clineSession, `",
  "origin": `)
	o.pretty(jsObject{{"source", "cli"}, {"mode", "user"}, {"sessionId", clineSession}, {"version", "3.0.65"}}, 1)
	o.line(`,
  "messages": [`)
}

// message writes one message of role and content at turn k; an assistant's carries its model
// and usage (input tokens).
func (c *clineTurns) message(o *agentOut, k int, role string, input int, content any) {
	if c.messages > 0 {
		o.line(",")
	}
	c.messages++
	m := jsObject{{"id", fmt.Sprintf("msg_%08d", c.messages)}, {"role", role}, {"content", content}, {"ts", ms(k) + (c.messages-1)%4*200}}
	if role == "assistant" {
		m = append(m, jsMember{"modelInfo", jsObject{{"id", "claude-sonnet-4-5"}, {"provider", "anthropic"}, {"family", "claude-sonnet"}}},
			jsMember{"metrics", jsObject{{"inputTokens", input}, {"outputTokens", 12}, {"cacheReadTokens", 0}, {"cacheWriteTokens", 0}, {"cost", 0.016821}}})
	}
	o.line("\n    ")
	o.pretty(m, 2)
}

// exchange writes a turn: the prompt, the screenshot tool's call, its result (result is the
// tool_result's content), the answer.
func (c *clineTurns) exchange(o *agentOut, k int, result any) {
	text := fmt.Sprintf(`<user_input mode="act">Take screenshot %d of the page and say what changed.</user_input>`, k)
	c.message(o, k, "user", 0, []any{jsObject{{"type", "text"}, {"text", text}}})
	id := fmt.Sprintf("toolu_%06d", k)
	c.message(o, k, "assistant", 5500+k%8*9000, []any{jsObject{{"type", "tool_use"}, {"id", id}, {"name", "shots__screenshot"}, {"input", jsObject{}}}})
	c.message(o, k, "user", 0, []any{jsObject{{"type", "tool_result"}, {"tool_use_id", id}, {"name", "shots__screenshot"}, {"content", result}}})
	c.message(o, k, "assistant", 7600+k%8*9000, []any{jsObject{{"type", "text"}, {"text", fmt.Sprintf("Screenshot %d shows the strata-eval page.", k)}}})
}

// turn: the MCP result, stringified: its text (a JSON of the screenshot) and its image block.
func (c *clineTurns) turn(o *agentOut, k int, shot string) {
	text := `{"page":"http://localhost:3000/","screenshot":{"data":"` + shot + `","mimeType":"image/png"}}`
	c.exchange(o, k, `{"content":[{"type":"text","text":`+o.scalar(text)+`},{"type":"image","mimeType":"image/png","data":"`+shot+`"}]}`)
}

// hugeTurn: the MCP result, stringified, holds its text only (it returned no image block).
func (c *clineTurns) hugeTurn(o *agentOut, k int, huge func(quote string)) error {
	c.exchange(o, k, jsStream(func() {
		o.line(`{\"content\":[{\"type\":\"text\",\"text\":\"`)
		huge(`\\\"`)
		o.line(`\"}]}`)
	}))
	return o.err
}

// compact writes nothing: Cline records no compaction.
func (c *clineTurns) compact(*agentOut, int) {}

func (c *clineTurns) tail(o *agentOut) {
	o.line("\n  ],\n  \"system_prompt\": ", o.scalar("You are Cline, an AI coding agent. Your primary goal is to assist users with various coding tasks."), "\n}\n")
}

func (c *clineTurns) hugePerTurn() int64 { return 1 }
