package gencorpus

import (
	"strings"
)

// documentHugeLine is the HugeLineFormat of a format whose file is one JSON document written as
// JSON.stringify(v, null, 2) writes it (OpenCode's export, Cline's messages): doc, whose
// string picture(prefix) is prefix then the picture's base64.
func documentHugeLine(name, file, carries string, doc func(picture func(prefix string) jsStream) jsObject) HugeLineFormat {
	var b strings.Builder
	o := &agentOut{cw: &countingWriter{w: &b}}
	o.pretty(doc(func(prefix string) jsStream { return func() { o.line(prefix, "\x00") } }), 0)
	o.line("\n")
	head, tail, _ := strings.Cut(b.String(), "\x00")
	return HugeLineFormat{Name: name, File: file, Carries: carries, head: head, tail: tail}
}

// opencodeHugeLine is an OpenCode export whose read tool's attachment is the picture's data URL.
func opencodeHugeLine(picture func(prefix string) jsStream) jsObject {
	tokens := func(input int) jsObject {
		return jsObject{{"total", input + 12}, {"input", input}, {"output", 12}, {"reasoning", 0}, {"cache", jsObject{{"write", 0}, {"read", 0}}}}
	}
	answer := func(id, finish string, input int, parts ...any) jsObject {
		info := jsObject{{"parentID", "msg_1"}, {"role", "assistant"}, {"tokens", tokens(input)}, {"modelID", "gpt-4.1"}, {"providerID", "agentsim"},
			{"finish", finish}, {"id", id}, {"sessionID", opencodeSession}}
		parts = append(append([]any{jsObject{{"type", "step-start"}}}, parts...), jsObject{{"reason", finish}, {"type", "step-finish"}, {"tokens", tokens(input)}, {"cost", 0}})
		return jsObject{{"info", info}, {"parts", parts}}
	}
	state := jsObject{{"status", "completed"}, {"input", jsObject{{"filePath", "/home/user/project/screen.png"}}}, {"output", "Image read successfully"},
		{"title", "home/user/project/screen.png"}, {"attachments", []any{jsObject{{"type", "file"}, {"mime", "image/png"},
			{"url", picture("data:image/png;base64,")}}}}}
	return jsObject{{"info", jsObject{{"id", opencodeSession}, {"projectID", "global"}, {"directory", "/home/user/project"}, {"version", "1.18.33"}}},
		{"messages", []any{
			jsObject{{"info", jsObject{{"role", "user"}, {"id", "msg_1"}, {"sessionID", opencodeSession}}}, {"parts", []any{jsObject{{"type", "text"}, {"text", "look at screen.png"}}}}},
			answer("msg_2", "tool-calls", 900, jsObject{{"type", "tool"}, {"tool", "read"}, {"callID", "call_1"}, {"state", state}}),
			answer("msg_3", "stop", 1900, jsObject{{"type", "text"}, {"text", "A page."}}),
		}}}
}

// clineHugeLine is a Cline session whose read_files result holds the picture as an image block.
func clineHugeLine(picture func(prefix string) jsStream) jsObject {
	model := jsObject{{"id", "claude-sonnet-4-5"}, {"provider", "anthropic"}, {"family", "claude-sonnet"}}
	metrics := func(input int) jsObject {
		return jsObject{{"inputTokens", input}, {"outputTokens", 12}, {"cacheReadTokens", 0}, {"cacheWriteTokens", 0}, {"cost", 0.0027}}
	}
	read := jsObject{{"query", "/home/user/project/screen.png"}, {"result", []any{jsObject{{"type", "text"}, {"text", "Successfully read image"}},
		jsObject{{"type", "image"}, {"data", picture("")}, {"mediaType", "image/png"}}}}, {"success", true}}
	return jsObject{{"version", 1}, {"updated_at", "2026-12-07T20:57:47.178Z"}, {"agent", "lead"}, {"sessionId", clineSession},
		{"origin", jsObject{{"source", "cli"}, {"mode", "user"}, {"sessionId", clineSession}, {"version", "3.0.65"}}},
		{"messages", []any{
			jsObject{{"id", "msg_1"}, {"role", "user"}, {"content", []any{jsObject{{"type", "text"}, {"text", `<user_input mode="act">look at screen.png</user_input>`}}}}, {"ts", ms(0)}},
			jsObject{{"id", "msg_2"}, {"role", "assistant"}, {"content", []any{jsObject{{"type", "tool_use"}, {"id", "toolu_read"}, {"name", "read_files"},
				{"input", jsObject{{"files", []any{jsObject{{"path", "/home/user/project/screen.png"}}}}}}}}}, {"ts", ms(1)}, {"modelInfo", model}, {"metrics", metrics(900)}},
			jsObject{{"id", "msg_3"}, {"role", "user"}, {"content", []any{jsObject{{"type", "tool_result"}, {"tool_use_id", "toolu_read"}, {"name", "read_files"},
				{"content", []any{read}}}}}, {"ts", ms(2)}},
			jsObject{{"id", "msg_4"}, {"role", "assistant"}, {"content", []any{jsObject{{"type", "text"}, {"text", "A page."}}}}, {"ts", ms(3)}, {"modelInfo", model}, {"metrics", metrics(1900)}},
		}},
		{"system_prompt", "You are Cline, an AI coding agent."}}
}
