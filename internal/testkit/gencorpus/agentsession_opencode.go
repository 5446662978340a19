package gencorpus

import (
	"fmt"
)

// opencodeTurns writes an OpenCode session as `opencode export <id>` prints it (JSON.stringify
// with two spaces): the session's info, then its messages, each with its parts; a compaction is
// a user message with a compaction part answered by a summary.
type opencodeTurns struct {
	messages, ids int
	prompt        string // the id of the last user message, the parent of the answers after it
}

// opencodeSession is the id of the session written.
const opencodeSession = "ses_dadb4fdc9ffe1FxK0DDMSUxOJE"

// id returns the next id of a message or part (msg_…, prt_…).
func (c *opencodeTurns) id(kind string) string {
	c.ids++
	return fmt.Sprintf("%s_%012x%014d", kind, 0x2524b041f001+c.ids, c.ids)
}

// ms is the time of turn k in milliseconds.
func ms(k int) int { return 1796676977206 + k*3000 }

func (c *opencodeTurns) head(o *agentOut) {
	o.line("{\n  \"info\": ")
	o.pretty(jsObject{{"id", opencodeSession}, {"slug", "swift-tiger"}, {"projectID", "global"}, {"directory", "/home/user/project"},
		{"path", "home/user/project"}, {"title", "Screenshots of the page"}, {"agent", "build"},
		{"model", jsObject{{"id", "gpt-4.1"}, {"providerID", "agentsim"}, {"variant", "default"}}}, {"version", "1.18.33"},
		{"summary", jsObject{{"additions", 0}, {"deletions", 0}, {"files", 0}}}, {"cost", 0},
		{"time", jsObject{{"created", ms(0)}, {"updated", ms(0)}}}}, 1)
	o.line(",\n  \"messages\": [")
}

// message writes message msg of info and parts (each part given its ids).
func (c *opencodeTurns) message(o *agentOut, msg string, info jsObject, parts ...jsObject) {
	if c.messages > 0 {
		o.line(",")
	}
	c.messages++
	info = append(info, jsMember{"id", msg}, jsMember{"sessionID", opencodeSession})
	var ps []any
	for _, p := range parts {
		ps = append(ps, append(p, jsMember{"id", c.id("prt")}, jsMember{"sessionID", opencodeSession}, jsMember{"messageID", msg}))
	}
	o.line("\n    ")
	o.pretty(jsObject{{"info", info}, {"parts", ps}}, 2)
}

// user writes a user message of parts.
func (c *opencodeTurns) user(o *agentOut, k int, parts ...jsObject) {
	c.prompt = c.id("msg")
	c.message(o, c.prompt, jsObject{{"role", "user"}, {"time", jsObject{{"created", ms(k)}}}, {"agent", "build"},
		{"model", jsObject{{"providerID", "agentsim"}, {"modelID", "gpt-4.1"}}}, {"summary", jsObject{{"diffs", []any{}}}}}, parts...)
}

// assistant writes assistant message msg of one step: step-start, parts, step-finish with the
// step's usage (finish names why it ended; mode is build, or compaction for a summary).
func (c *opencodeTurns) assistant(o *agentOut, msg string, k int, mode, finish string, input int, parts ...jsObject) {
	tokens := jsObject{{"total", input + 12}, {"input", input}, {"output", 12}, {"reasoning", 0}, {"cache", jsObject{{"write", 0}, {"read", 0}}}}
	info := jsObject{{"role", "assistant"}, {"mode", mode}, {"agent", mode}, {"path", jsObject{{"cwd", "/home/user/project"}, {"root", "/"}}}}
	if mode == "compaction" {
		info = append(info, jsMember{"summary", true})
	}
	info = append(info, jsObject{{"cost", 0}, {"tokens", tokens}, {"modelID", "gpt-4.1"}, {"providerID", "agentsim"},
		{"time", jsObject{{"created", ms(k)}, {"completed", ms(k) + 400}}}, {"finish", finish}}...)
	all := append([]jsObject{{{"type", "step-start"}}}, parts...)
	all = append(all, jsObject{{"reason", finish}, {"type", "step-finish"}, {"tokens", tokens}, {"cost", 0}})
	c.message(o, msg, append(jsObject{{"parentID", c.prompt}}, info...), all...)
}

// exchange writes a turn: the prompt, the screenshot tool's call with its output and
// attachments, the answer.
func (c *opencodeTurns) exchange(o *agentOut, k int, output any, shot string) {
	c.user(o, k, jsObject{{"type", "text"}, {"text", fmt.Sprintf("Take screenshot %d of the page and say what changed.", k)}})
	msg := c.id("msg")
	state := jsObject{{"status", "completed"}, {"input", jsObject{}}, {"output", output}, {"metadata", jsObject{{"truncated", false}}},
		{"title", ""}, {"time", jsObject{{"start", ms(k) + 100}, {"end", ms(k) + 300}}}}
	if shot != "" {
		state = append(state, jsMember{"attachments", []any{jsObject{{"type", "file"}, {"mime", "image/png"}, {"url", "data:image/png;base64," + shot},
			{"id", c.id("prt")}, {"sessionID", opencodeSession}, {"messageID", msg}}}})
	}
	c.assistant(o, msg, k, "build", "tool-calls", 11000+k%8*9000,
		jsObject{{"type", "tool"}, {"tool", "shots_screenshot"}, {"callID", fmt.Sprintf("call_%06d", k)}, {"state", state}})
	c.assistant(o, c.id("msg"), k, "build", "stop", 21000+k%8*9000, jsObject{{"type", "text"}, {"text", fmt.Sprintf("Screenshot %d shows the strata-eval page.", k)},
		{"time", jsObject{{"start", ms(k) + 500}, {"end", ms(k) + 600}}}})
}

// turn: the MCP result's text (a JSON of the screenshot) is the output, its image block an
// attachment.
func (c *opencodeTurns) turn(o *agentOut, k int, shot string) {
	c.exchange(o, k, `{"page":"http://localhost:3000/","screenshot":{"data":"`+shot+`","mimeType":"image/png"}}`, shot)
}

// hugeTurn: the MCP result's text is the output (it returned no image block).
func (c *opencodeTurns) hugeTurn(o *agentOut, k int, huge func(quote string)) error {
	c.exchange(o, k, jsStream(func() { huge(`\"`) }), "")
	return o.err
}

// compact writes a compaction: its user message and the summary that answers it.
func (c *opencodeTurns) compact(o *agentOut, k int) {
	c.user(o, k, jsObject{{"type", "compaction"}, {"auto", true}})
	c.assistant(o, c.id("msg"), k, "compaction", "stop", 30000, jsObject{{"type", "text"},
		{"text", fmt.Sprintf("Summary of the conversation so far: %d screenshots of the page were taken.", k)}})
}

func (c *opencodeTurns) tail(o *agentOut) { o.line("\n  ]\n}\n") }

func (c *opencodeTurns) hugePerTurn() int64 { return 1 }
