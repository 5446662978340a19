package measure

import (
	"fmt"
	"strings"

	"github.com/strata-eval/strata-eval/corpora"
)

// Image marker texts of the built-in templates, as the chat templates write them.
const (
	qwenImageMarker    = "<|vision_start|><|image_pad|><|vision_end|>"
	llamaImageMarker   = "<|image|>"
	gemmaImageMarker   = "<start_of_image>"
	mistralImageMarker = "[IMG]"
)

// toolCallJSON is the `{"name": …, "<argsKey>": …}` object of a call with the arguments as
// the server's tojson writes the parsed object.
func toolCallJSON(c serverCall, argsKey string) string {
	return `{"name": ` + pyString(c.name) + `, "` + argsKey + `": ` + c.argsJSON(-1) + `}`
}

// toolCallJSONs returns toolCallJSON of each of a message's tool calls.
func toolCallJSONs(m serverMessage, argsKey string) []string {
	var out []string
	for _, c := range m.calls {
		out = append(out, toolCallJSON(c, argsKey))
	}
	return out
}

// toolJSONs returns toolJSON of each declared tool.
func toolJSONs(tools []serverTool, indent int) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		out = append(out, toolJSON(t, indent))
	}
	return out
}

// chatMLToolsSystem opens the ChatML system turn that declares tools: the system message's
// content (when msgs starts with one) and a blank line, then header and one JSON line per
// tool. It returns the messages still to render; the caller closes the turn.
func chatMLToolsSystem(w *segmentWriter, msgs []serverMessage, tools []serverTool, header string) []serverMessage {
	w.special("<|im_start|>system\n")
	if len(msgs) > 0 && msgs[0].role == corpora.RoleSystem {
		writeContent(w, msgs[0].content, qwenImageMarker, false)
		w.special("\n\n")
		msgs = msgs[1:]
	}
	w.text(header + "\n" + strings.Join(toolJSONs(tools, -1), "\n"))
	return msgs
}

// qwenTemplate is the Qwen3 chat template (tokenizer_config.json of Qwen3, the template of the
// Qwen3 GGUFs) rendered by construction, as llama.cpp's server renders it: ChatML turns, a
// "# Tools" system block, <tool_call> framing in assistant turns, consecutive tool results
// grouped in one user turn as <tool_response> blocks. An assistant turn's reasoning
// (reasoning_content, else the <think>…</think> its content starts with) is dropped before the
// last user query and re-emitted in a <think> block after it; pictures are Qwen-VL's vision
// markers. Text the template cuts out of a content string (the answer after </think>) is
// counted as framing, as the Jinja renderer counts it (docs/pipeline.md §13.3).
type qwenTemplate struct{}

func (qwenTemplate) Name() string { return "qwen" }

func (qwenTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools)
	pm := newPromptMarkers(&req)
	contents := make([]string, len(req.msgs))
	for i, m := range req.msgs {
		contents[i] = pm.content(m.content)
	}
	w := &segmentWriter{}
	var err error
	put := func(s string, content bool) {
		if e := pm.emit(w, s, content, qwenImageMarker); e != nil && err == nil {
			err = e
		}
	}
	firstSystem := len(req.msgs) > 0 && req.msgs[0].role == corpora.RoleSystem
	if len(req.tools) > 0 {
		w.special("<|im_start|>system\n")
		if firstSystem {
			put(contents[0], true)
			w.special("\n\n")
		}
		w.special("# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>")
		for _, t := range req.tools {
			w.special("\n")
			w.text(toolJSON(t, -1))
		}
		w.special("\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n")
	} else if firstSystem {
		w.special("<|im_start|>system\n")
		put(contents[0], true)
		w.special("<|im_end|>\n")
	}
	lastQuery := qwenLastQuery(req.msgs, contents)
	for i, m := range req.msgs {
		switch {
		case m.role == corpora.RoleUser || m.role == corpora.RoleSystem && i > 0:
			w.special("<|im_start|>" + string(m.role) + "\n")
			put(contents[i], true)
			w.special("<|im_end|>\n")
		case m.role == corpora.RoleAssistant:
			content, reasoning := contents[i], m.reasoning
			cut := false // content and reasoning were cut out of the content string
			if reasoning == "" && strings.Contains(content, "</think>") {
				parts := strings.Split(content, "</think>")
				content = strings.TrimLeft(parts[len(parts)-1], "\n")
				r := strings.Split(strings.TrimRight(parts[0], "\n"), "<think>")
				reasoning = strings.TrimLeft(r[len(r)-1], "\n")
				cut = true
			}
			w.special("<|im_start|>assistant\n")
			if i > lastQuery && (i == len(req.msgs)-1 || reasoning != "") {
				w.special("<think>\n")
				put(strings.Trim(reasoning, "\n"), !cut)
				w.special("\n</think>\n\n")
				put(strings.TrimLeft(content, "\n"), !cut)
			} else {
				put(content, !cut)
			}
			for j, c := range m.calls {
				if j > 0 || content != "" {
					w.special("\n")
				}
				w.special("<tool_call>\n{\"name\": \"" + c.name + "\", \"arguments\": ")
				w.text(c.argsJSON(-1))
				w.special("}\n</tool_call>")
			}
			w.special("<|im_end|>\n")
		case m.role == corpora.RoleTool:
			if i == 0 || req.msgs[i-1].role != corpora.RoleTool {
				w.special("<|im_start|>user")
			}
			w.special("\n<tool_response>\n")
			put(contents[i], true)
			w.special("\n</tool_response>")
			if i == len(req.msgs)-1 || req.msgs[i+1].role != corpora.RoleTool {
				w.special("<|im_end|>\n")
			}
		}
	}
	w.special("<|im_start|>assistant\n")
	if err != nil {
		return nil, fmt.Errorf("qwen template: %w", err)
	}
	return w.segs, nil
}

// qwenLastQuery is Qwen3's last_query_index: the last user message, passing over trailing
// user messages that are tool responses wrapped in <tool_response>…</tool_response>;
// len(msgs)-1 when there is none.
func qwenLastQuery(msgs []serverMessage, contents []string) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		c := contents[i]
		if msgs[i].role == corpora.RoleUser && !(strings.HasPrefix(c, "<tool_response>") && strings.HasSuffix(c, "</tool_response>")) {
			return i
		}
	}
	return len(msgs) - 1
}

func hasImage(items []contentItem) bool {
	for _, it := range items {
		if it.image != nil {
			return true
		}
	}
	return false
}

// chatMLTemplate is plain ChatML: every message as <|im_start|>role … <|im_end|>, tools
// declared as JSON lines in the system turn, tool calls as JSON lines.
type chatMLTemplate struct{}

func (chatMLTemplate) Name() string { return "chatml" }

func (chatMLTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools)
	w := &segmentWriter{}
	rest := req.msgs
	if len(req.tools) > 0 {
		rest = chatMLToolsSystem(w, req.msgs, req.tools, "Tools:")
		w.special("<|im_end|>\n")
	}
	for _, m := range rest {
		w.special("<|im_start|>" + string(m.role) + "\n")
		items := m.content
		writeContent(w, items, qwenImageMarker, false)
		if calls := toolCallJSONs(m, "arguments"); len(calls) > 0 {
			if len(items) > 0 {
				w.text("\n")
			}
			w.text(strings.Join(calls, "\n"))
		}
		w.special("<|im_end|>\n")
	}
	w.special("<|im_start|>assistant\n")
	return w.segs, nil
}

// llama3Template is Llama 3.x: header-framed turns with trimmed content, tools listed in the
// system turn with the "Environment: ipython" line of Llama 3.1, calls as
// {"name", "parameters"} JSON, results in ipython turns. Pictures are Llama 3.2 Vision's
// <|image|>.
type llama3Template struct{}

func (llama3Template) Name() string { return "llama3" }

func (llama3Template) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools)
	w := &segmentWriter{}
	w.special("<|begin_of_text|>")
	rest := req.msgs
	if len(req.tools) > 0 || len(rest) > 0 && rest[0].role == corpora.RoleSystem {
		w.special("<|start_header_id|>system<|end_header_id|>\n\n")
		if len(req.tools) > 0 {
			w.text("Environment: ipython\n")
		}
		w.text("Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n")
		if len(rest) > 0 && rest[0].role == corpora.RoleSystem {
			writeContent(w, rest[0].content, llamaImageMarker, true)
			rest = rest[1:]
		}
		if len(req.tools) > 0 {
			w.text("\n\nYou have access to the following functions. To call a function, respond with JSON for a function call in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}. Do not use variables.\n\n")
			for _, j := range toolJSONs(req.tools, 4) {
				w.text(j + "\n\n")
			}
		}
		w.special("<|eot_id|>")
	}
	for _, m := range rest {
		role := string(m.role)
		if m.role == corpora.RoleTool {
			role = "ipython"
		}
		w.special("<|start_header_id|>" + role + "<|end_header_id|>\n\n")
		writeContent(w, m.content, llamaImageMarker, true)
		w.text(strings.Join(toolCallJSONs(m, "parameters"), "\n"))
		w.special("<|eot_id|>")
	}
	w.special("<|start_header_id|>assistant<|end_header_id|>\n\n")
	return w.segs, nil
}

// gemmaTemplate is Gemma 3: user/model turns with trimmed content, the system text prefixed
// to the first user turn, tool results as user turns and tool calls as JSON text (Gemma 3's
// template has no tool syntax). Pictures are <start_of_image>.
type gemmaTemplate struct{}

func (gemmaTemplate) Name() string { return "gemma" }

func (gemmaTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools)
	w := &segmentWriter{}
	w.special("<bos>")
	var prefix []contentItem
	rest := req.msgs
	if len(rest) > 0 && rest[0].role == corpora.RoleSystem {
		prefix = trimItems(rest[0].content)
		rest = rest[1:]
	}
	if len(req.tools) > 0 {
		prefix = append(prefix, contentItem{text: "Tools:\n" + strings.Join(toolJSONs(req.tools, -1), "\n")})
	}
	for i, m := range rest {
		role := "user"
		if m.role == corpora.RoleAssistant {
			role = "model"
		}
		w.special("<start_of_turn>" + role + "\n")
		if i == 0 && len(prefix) > 0 {
			writeContent(w, prefix, gemmaImageMarker, false)
			w.text("\n\n")
		}
		writeContent(w, m.content, gemmaImageMarker, true)
		w.text(strings.Join(toolCallJSONs(m, "arguments"), "\n"))
		w.special("<end_of_turn>\n")
	}
	w.special("<start_of_turn>model\n")
	return w.segs, nil
}

// mistralTemplate is the Mistral v7 (Tekken) template of Mistral Small 3.x: a
// [SYSTEM_PROMPT] block, [INST] user turns, assistant text closed by </s>,
// [AVAILABLE_TOOLS] before the last user turn, [TOOL_CALLS] and [TOOL_RESULTS]. Pictures are
// [IMG].
type mistralTemplate struct{}

func (mistralTemplate) Name() string { return "mistral" }

func (mistralTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools)
	w := &segmentWriter{}
	w.special("<s>")
	lastUser := -1
	for i, m := range req.msgs {
		if m.role == corpora.RoleUser {
			lastUser = i
		}
	}
	for i, m := range req.msgs {
		switch m.role {
		case corpora.RoleSystem:
			w.special("[SYSTEM_PROMPT]")
			writeContent(w, m.content, mistralImageMarker, false)
			w.special("[/SYSTEM_PROMPT]")
		case corpora.RoleUser:
			if i == lastUser && len(req.tools) > 0 {
				w.special("[AVAILABLE_TOOLS]")
				w.text("[" + strings.Join(toolJSONs(req.tools, -1), ", ") + "]")
				w.special("[/AVAILABLE_TOOLS]")
			}
			w.special("[INST]")
			writeContent(w, m.content, mistralImageMarker, false)
			w.special("[/INST]")
		case corpora.RoleAssistant:
			writeContent(w, m.content, mistralImageMarker, false)
			if calls := toolCallJSONs(m, "arguments"); len(calls) > 0 {
				w.special("[TOOL_CALLS]")
				w.text("[" + strings.Join(calls, ", ") + "]")
			}
			w.special("</s>")
		case corpora.RoleTool:
			w.special("[TOOL_RESULTS]")
			items := m.content
			w.text(`{"content": `)
			if hasImage(items) {
				writeContent(w, items, mistralImageMarker, false)
			} else {
				w.text(pyString(joinContent(items, nil)))
			}
			if m.toolCallID != "" {
				w.text(`, "call_id": ` + pyString(m.toolCallID))
			}
			w.text("}")
			w.special("[/TOOL_RESULTS]")
		default:
			return nil, fmt.Errorf("mistral template at %s: unknown role %q", m.loc, m.role)
		}
	}
	return w.segs, nil
}
