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

// toolCallJSON is the `{"name": …, "arguments": …}` object of a call; the arguments are the
// JSON text as recorded (Hugging Face templates print a string argument verbatim).
func toolCallJSON(c *corpora.ToolCall, argsKey string) string {
	args := strings.TrimSpace(c.Arguments)
	if args == "" {
		args = "{}"
	}
	return `{"name": ` + pyString(c.Name) + `, "` + argsKey + `": ` + args + `}`
}

// toolCallJSONs returns toolCallJSON of each of a message's tool calls.
func toolCallJSONs(m corpora.Message, argsKey string) []string {
	var out []string
	for _, c := range toolCalls(m) {
		out = append(out, toolCallJSON(c, argsKey))
	}
	return out
}

// toolJSONs returns toolJSON of each declared tool.
func toolJSONs(tools []corpora.ToolDef, indent int) ([]string, error) {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		j, err := toolJSON(t, indent)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// chatMLToolsSystem opens the ChatML system turn that declares tools: the system message's
// content (when msgs starts with one) and a blank line, then header and one JSON line per
// tool. It returns the messages still to render; the caller closes the turn.
func chatMLToolsSystem(w *segmentWriter, msgs []corpora.Message, tools []corpora.ToolDef, header string) ([]corpora.Message, error) {
	js, err := toolJSONs(tools, 0)
	if err != nil {
		return nil, err
	}
	w.special("<|im_start|>system\n")
	if len(msgs) > 0 && msgs[0].Role == corpora.RoleSystem {
		writeContent(w, flattenContent(msgs[0]), qwenImageMarker, false)
		w.text("\n\n")
		msgs = msgs[1:]
	}
	w.text(header + "\n" + strings.Join(js, "\n"))
	return msgs, nil
}

// qwenTemplate is the Qwen2.5 / Qwen3 template (tokenizer_config.json of Qwen3): ChatML turns,
// a "# Tools" system block, <tool_call> framing in assistant turns, and consecutive tool
// results grouped in one user turn as <tool_response> blocks. Reasoning from earlier turns is
// not re-sent (Qwen3's template strips it); pictures are Qwen-VL's vision markers.
type qwenTemplate struct{}

func (qwenTemplate) Name() string { return "qwen" }

func (qwenTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	w := &segmentWriter{}
	rest := msgs
	if len(tools) > 0 {
		var err error
		rest, err = chatMLToolsSystem(w, msgs, tools, "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>")
		if err != nil {
			return nil, err
		}
		w.text("\n</tools>\n\nFor each function call, return a json object with function name and arguments within ")
		w.special("<tool_call></tool_call>")
		w.text(" XML tags:\n")
		w.special("<tool_call>")
		w.text("\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n")
		w.special("</tool_call><|im_end|>\n")
	}
	for i, m := range rest {
		switch m.Role {
		case corpora.RoleSystem, corpora.RoleUser:
			w.special("<|im_start|>" + string(m.Role) + "\n")
			writeContent(w, flattenContent(m), qwenImageMarker, false)
			w.special("<|im_end|>\n")
		case corpora.RoleAssistant:
			w.special("<|im_start|>assistant\n")
			writeContent(w, flattenContent(m), qwenImageMarker, false)
			hasContent := contentText(m) != ""
			for j, c := range toolCallJSONs(m, "arguments") {
				if j > 0 || hasContent {
					w.text("\n")
				}
				w.special("<tool_call>")
				w.text("\n" + c + "\n")
				w.special("</tool_call>")
			}
			w.special("<|im_end|>\n")
		case corpora.RoleTool:
			if i == 0 || rest[i-1].Role != corpora.RoleTool {
				w.special("<|im_start|>user")
			}
			w.text("\n")
			w.special("<tool_response>")
			w.text("\n")
			writeContent(w, flattenContent(m), qwenImageMarker, false)
			w.text("\n")
			w.special("</tool_response>")
			if i == len(rest)-1 || rest[i+1].Role != corpora.RoleTool {
				w.special("<|im_end|>\n")
			}
		default:
			return nil, fmt.Errorf("qwen template at %s: unknown role %q", m.Loc, m.Role)
		}
	}
	w.special("<|im_start|>assistant\n")
	return w.segs, nil
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
	w := &segmentWriter{}
	rest := msgs
	if len(tools) > 0 {
		var err error
		if rest, err = chatMLToolsSystem(w, msgs, tools, "Tools:"); err != nil {
			return nil, err
		}
		w.special("<|im_end|>\n")
	}
	for _, m := range rest {
		w.special("<|im_start|>" + string(m.Role) + "\n")
		items := flattenContent(m)
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
	w := &segmentWriter{}
	w.special("<|begin_of_text|>")
	rest := msgs
	if len(tools) > 0 || len(msgs) > 0 && msgs[0].Role == corpora.RoleSystem {
		w.special("<|start_header_id|>system<|end_header_id|>\n\n")
		if len(tools) > 0 {
			w.text("Environment: ipython\n")
		}
		w.text("Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n")
		if len(msgs) > 0 && msgs[0].Role == corpora.RoleSystem {
			writeContent(w, flattenContent(msgs[0]), llamaImageMarker, true)
			rest = msgs[1:]
		}
		if len(tools) > 0 {
			w.text("\n\nYou have access to the following functions. To call a function, respond with JSON for a function call in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}. Do not use variables.\n\n")
			js, err := toolJSONs(tools, 4)
			if err != nil {
				return nil, err
			}
			for _, j := range js {
				w.text(j + "\n\n")
			}
		}
		w.special("<|eot_id|>")
	}
	for _, m := range rest {
		role := string(m.Role)
		if m.Role == corpora.RoleTool {
			role = "ipython"
		}
		w.special("<|start_header_id|>" + role + "<|end_header_id|>\n\n")
		writeContent(w, flattenContent(m), llamaImageMarker, true)
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
	w := &segmentWriter{}
	w.special("<bos>")
	var prefix []contentItem
	rest := msgs
	if len(msgs) > 0 && msgs[0].Role == corpora.RoleSystem {
		prefix = trimItems(flattenContent(msgs[0]))
		rest = msgs[1:]
	}
	if len(tools) > 0 {
		js, err := toolJSONs(tools, 0)
		if err != nil {
			return nil, err
		}
		prefix = append(prefix, contentItem{text: "Tools:\n" + strings.Join(js, "\n")})
	}
	for i, m := range rest {
		role := "user"
		if m.Role == corpora.RoleAssistant {
			role = "model"
		}
		w.special("<start_of_turn>" + role + "\n")
		if i == 0 && len(prefix) > 0 {
			writeContent(w, prefix, gemmaImageMarker, false)
			w.text("\n\n")
		}
		writeContent(w, flattenContent(m), gemmaImageMarker, true)
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
	w := &segmentWriter{}
	w.special("<s>")
	lastUser := -1
	for i, m := range msgs {
		if m.Role == corpora.RoleUser {
			lastUser = i
		}
	}
	for i, m := range msgs {
		switch m.Role {
		case corpora.RoleSystem:
			w.special("[SYSTEM_PROMPT]")
			writeContent(w, flattenContent(m), mistralImageMarker, false)
			w.special("[/SYSTEM_PROMPT]")
		case corpora.RoleUser:
			if i == lastUser && len(tools) > 0 {
				js, err := toolJSONs(tools, 0)
				if err != nil {
					return nil, err
				}
				w.special("[AVAILABLE_TOOLS]")
				w.text("[" + strings.Join(js, ", ") + "]")
				w.special("[/AVAILABLE_TOOLS]")
			}
			w.special("[INST]")
			writeContent(w, flattenContent(m), mistralImageMarker, false)
			w.special("[/INST]")
		case corpora.RoleAssistant:
			writeContent(w, flattenContent(m), mistralImageMarker, false)
			if calls := toolCallJSONs(m, "arguments"); len(calls) > 0 {
				w.special("[TOOL_CALLS]")
				w.text("[" + strings.Join(calls, ", ") + "]")
			}
			w.special("</s>")
		case corpora.RoleTool:
			w.special("[TOOL_RESULTS]")
			items := flattenContent(m)
			w.text(`{"content": `)
			if hasImage(items) {
				writeContent(w, items, mistralImageMarker, false)
			} else {
				w.text(pyString(contentText(m)))
			}
			if m.ToolCallID != "" {
				w.text(`, "call_id": ` + pyString(m.ToolCallID))
			}
			w.text("}")
			w.special("[/TOOL_RESULTS]")
		default:
			return nil, fmt.Errorf("mistral template at %s: unknown role %q", m.Loc, m.Role)
		}
	}
	return w.segs, nil
}
