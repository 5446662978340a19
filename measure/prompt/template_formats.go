package prompt

import (
	"slices"
	"strings"

	"github.com/ardanlabs/jinja"
	"github.com/strata-eval/strata-eval/corpora"
)

// serverFormat is what llama-server's handler of a chat format (common/chat.cpp and
// common/parsers of the release) does to the messages before the template renders them. The
// server picks the handler by strings of the template's source; a template no handler claims
// renders the messages as they are.
type serverFormat struct {
	name   string
	detect func(src string) bool
	// adjust, when not nil, changes the template's messages (dicts built from req.msgs, in
	// that order); suffix, when not nil, is framing the server adds after the rendering.
	adjust func(in formatInput, msgs []jinja.Value) []jinja.Value
	suffix func(prompt string) string
}

// formatInput is what a handler's adjust reads besides the messages.
type formatInput struct {
	src      string         // the template's source
	req      *serverRequest // the request, one message per dict
	contents []string       // each message's joined content, unmarked
	// str makes a content string (bracketed by the content markers in the marked rendering).
	str func(string) jinja.Value
}

// serverFormats are the release's handlers in its order of detection (the first that claims
// a template renders it); those without adjust render the messages as they are.
var serverFormats = []serverFormat{
	{name: "ministral-3", detect: func(src string) bool {
		return containsAll("[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]")(src) && !strings.Contains(src, "[CALL_ID]")
	}, adjust: ministral3Messages},
	{name: "gpt-oss", detect: containsAll("<|channel|>"), adjust: gptOSSMessages},
	{name: "muse-glimmer", detect: containsAll("<atem:function_calls>", "<|eom|>")},
	{name: "functionary-v3.2", detect: containsAll(">>>all", ">>>${recipient}")},
	{name: "kimi-k2", detect: containsAll("<|tool_calls_section_begin|>", "<|tool_call_begin|>")},
	{name: "kimi-k3", detect: containsAll("<|open|>", "<|close|>", "<|end_of_msg|>")},
	{name: "ling-3", detect: containsAll("<role>ASSISTANT</role>", "<arg_key>")},
	{name: "cohere2moe", detect: containsAll("<|START_TEXT|>", "<|START_ACTION|>")},
	{name: "lfm2", detect: containsAll("<|tool_list_start|>", "<|tool_list_end|>"), adjust: thinkingMessages},
	{name: "lfm2.5", detect: func(src string) bool {
		return strings.Contains(src, "List of tools: [") && !strings.Contains(src, "<|tool_list_start|>")
	}, adjust: thinkingMessages},
	{name: "gigachat-v3", detect: func(src string) bool {
		return containsAll("<|role_sep|>", "<|message_sep|>")(src) && !strings.Contains(src, "<|function_call|>")
	}},
	{name: "minimax-m3", detect: containsAll("]<]minimax[>[", "<tool_call>", "<invoke name=")},
	{name: "deepseek-v3.2", detect: containsAll("dsml_token", "DSML", "function_calls")},
	{name: "deepseek-v4", detect: containsAll("dsml_token", "DSML", "tool_calls"), adjust: deepseekV4Messages},
	{name: "gemma4", detect: containsAll("'<|tool_call>call:'"), adjust: gemma4Messages, suffix: gemma4Suffix},
}

// formatOf is the handler llama-server picks for a template's source (nil: none).
func formatOf(src string) *serverFormat {
	for i := range serverFormats {
		if serverFormats[i].detect(src) {
			return &serverFormats[i]
		}
	}
	return nil
}

// containsAll detects a source holding every one of subs.
func containsAll(subs ...string) func(string) bool {
	return func(src string) bool {
		for _, s := range subs {
			if !strings.Contains(src, s) {
				return false
			}
		}
		return true
	}
}

// thinkingMessages: LFM2's templates read reasoning as "thinking".
func thinkingMessages(_ formatInput, msgs []jinja.Value) []jinja.Value {
	for _, v := range msgs {
		if reasoning, ok := v.AsDict().Get("reasoning_content"); ok {
			v.AsDict().Set("thinking", reasoning)
		}
	}
	return msgs
}

// ministral3Messages: a system or assistant message's content becomes a list of blocks, its
// reasoning a {"type": "thinking"} block first, then its content as a {"type": "text"} block
// (or its own blocks).
func ministral3Messages(in formatInput, msgs []jinja.Value) []jinja.Value {
	for i, v := range msgs {
		if role := in.req.msgs[i].role; role != corpora.RoleSystem && role != corpora.RoleAssistant {
			continue
		}
		d := v.AsDict()
		var blocks []jinja.Value
		if reasoning, ok := d.Get("reasoning_content"); ok {
			blocks = append(blocks, block("thinking", "thinking", reasoning))
			deleteKey(d, "reasoning_content")
		}
		switch content, ok := d.Get("content"); {
		case !ok:
		case content.IsString():
			blocks = append(blocks, block("text", "text", content))
		default:
			blocks = append(blocks, content.AsList().Items...)
		}
		d.Set("content", jinja.NewList(blocks))
	}
	return msgs
}

// block is a content block {"type": kind, key: value}.
func block(kind, key string, value jinja.Value) jinja.Value {
	b := jinja.NewDict()
	b.AsDict().Set("type", jinja.NewString(kind))
	b.AsDict().Set(key, value)
	return b
}

// deepseekV4Messages: DeepSeek V4 (the DSML template without "function_calls") renders a run
// of user and tool messages as one user block with the tool results in the order of the calls
// of the assistant message before (by call id; a result of no call sorts first), stably.
func deepseekV4Messages(in formatInput, msgs []jinja.Value) []jinja.Value {
	req := in.req
	order := map[string]int{}
	for i := 0; i < len(msgs); {
		m := req.msgs[i]
		if m.role == corpora.RoleAssistant && len(m.calls) > 0 {
			order = map[string]int{}
			for k, c := range m.calls {
				if c.id != "" {
					order[c.id] = k
				}
			}
			i++
			continue
		}
		if m.role != corpora.RoleUser && m.role != corpora.RoleTool {
			i++
			continue
		}
		var at []int
		end := i
		for ; end < len(msgs) && (req.msgs[end].role == corpora.RoleUser || req.msgs[end].role == corpora.RoleTool); end++ {
			if req.msgs[end].role == corpora.RoleTool {
				at = append(at, end)
			}
		}
		if len(at) > 1 && len(order) > 0 {
			sorted := slices.Clone(at)
			slices.SortStableFunc(sorted, func(a, b int) int { return order[req.msgs[a].toolCallID] - order[req.msgs[b].toolCallID] })
			results := make([]jinja.Value, len(sorted))
			for k, j := range sorted {
				results[k] = msgs[j]
			}
			for k, j := range at {
				msgs[j] = results[k]
			}
		}
		i = end
	}
	return msgs
}

// gemma4Messages: gemma4 templates older than the one that reads OpenAI's messages get each
// assistant turn with tool calls as one message: its calls, the tool results after it as
// tool_responses ({"name": the call's name, else the result's call id; "response": the
// result's text parsed as JSON, else the text}), the content of the next assistant message when
// it has content and no calls, and its own reasoning; its own content is dropped.
func gemma4Messages(in formatInput, msgs []jinja.Value) []jinja.Value {
	if strings.Contains(in.src, "{#- OpenAI Chat Completions:") {
		return msgs
	}
	var out []jinja.Value
	for i := 0; i < len(msgs); {
		m, start := in.req.msgs[i], i
		if m.role != corpora.RoleAssistant || len(m.calls) == 0 {
			out = append(out, msgs[i])
			i++
			continue
		}
		turn := jinja.NewDict()
		td := turn.AsDict()
		td.Set("role", jinja.NewString("assistant"))
		calls, _ := msgs[i].AsDict().Get("tool_calls")
		td.Set("tool_calls", calls)
		var responses []jinja.Value
		for i++; i < len(msgs) && in.req.msgs[i].role == corpora.RoleTool; i++ {
			responses = append(responses, gemma4Response(in, msgs[i], i, len(responses), m.calls))
		}
		if len(responses) > 0 {
			td.Set("tool_responses", jinja.NewList(responses))
		}
		if i < len(msgs) && in.req.msgs[i].role == corpora.RoleAssistant && len(in.req.msgs[i].calls) == 0 {
			if content, ok := msgs[i].AsDict().Get("content"); ok && hasContent(content) {
				td.Set("content", content)
				i++
			}
		}
		if m.reasoning != "" {
			reasoning, _ := msgs[start].AsDict().Get("reasoning_content")
			td.Set("reasoning_content", reasoning)
		}
		out = append(out, turn)
	}
	return out
}

// gemma4Response is tool result msg (message i), the k-th after an assistant message with
// calls: its text parsed as JSON, else its content as it is.
func gemma4Response(in formatInput, msg jinja.Value, i, k int, calls []serverCall) jinja.Value {
	name := in.req.msgs[i].toolCallID
	if k < len(calls) && calls[k].name != "" {
		name = calls[k].name
	}
	r := jinja.NewDict()
	r.AsDict().Set("name", jinja.NewString(name))
	content, _ := msg.AsDict().Get("content")
	if n, err := parseServerJSON([]byte(in.contents[i])); err == nil && !content.IsList() {
		content = jinjaNode(n, in.str)
	}
	r.AsDict().Set("response", content)
	return r
}

// hasContent says whether a message's content is a non-empty string or list.
func hasContent(v jinja.Value) bool {
	switch {
	case v.IsString():
		return v.AsString() != ""
	case v.IsList():
		return v.AsList().Len() > 0
	}
	return false
}

// gemma4Suffix: when the rendering ends with a closed turn, the server opens the model's.
func gemma4Suffix(prompt string) string {
	if strings.HasSuffix(prompt, "<turn|>\n") {
		return "<|turn>model\n"
	}
	return ""
}

// gptOSSMessages: gpt-oss's template reads reasoning as "thinking"; a message with reasoning
// and tool calls loses its content (the template refuses both).
func gptOSSMessages(in formatInput, msgs []jinja.Value) []jinja.Value {
	for i, v := range msgs {
		d := v.AsDict()
		reasoning, ok := d.Get("reasoning_content")
		if !ok {
			continue
		}
		if len(in.req.msgs[i].calls) > 0 {
			deleteKey(d, "content")
		}
		d.Set("thinking", reasoning)
	}
	return msgs
}

// deleteKey removes key from d, the other keys keeping their order.
func deleteKey(d *jinja.Dict, key string) {
	if !d.Has(key) {
		return
	}
	delete(d.Data, key)
	for i, k := range d.Keys {
		if k == key {
			d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
			break
		}
	}
}

// trimsContent says whether llama-server trims the white space around every message's content,
// text parts and reasoning before the template renders (StepFun's templates, which it knows by
// their tools preamble).
func trimsContent(src string) bool {
	return strings.Contains(src, "You have access to the following functions in JSONSchema format")
}

// trimContent trims the request's texts as the server does (C's isspace: space, \t, \n, \v,
// \f, \r).
func trimContent(req *serverRequest) {
	const space = " \t\n\v\f\r"
	for i := range req.msgs {
		m := &req.msgs[i]
		m.reasoning = strings.Trim(m.reasoning, space)
		for j := range m.content {
			if m.content[j].image == nil {
				m.content[j].text = strings.Trim(m.content[j].text, space)
			}
		}
	}
}
