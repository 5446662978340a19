package prompt

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/strata-eval/strata-eval/corpora"
)

// Image marker texts of the built-in templates, as the chat templates write them.
const (
	qwenImageMarker    = "<|vision_start|><|image_pad|><|vision_end|>"
	llamaImageMarker   = "<|image|>"
	gemmaImageMarker   = "<start_of_image>"
	mistralImageMarker = "[IMG]"
)

// toolJSONs returns toolJSON of each declared tool.
func toolJSONs(tools []serverTool, indent int) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		out = append(out, toolJSON(t, indent))
	}
	return out
}

// qwenTemplate is the Qwen3 chat template (tokenizer_config.json of Qwen3, the template of the
// Qwen3 GGUFs) rendered by construction, as llama.cpp's server renders it: ChatML turns, a
// "# Tools" system block, <tool_call> framing in assistant turns, consecutive tool results
// grouped in one user turn as <tool_response> blocks. An assistant turn's reasoning
// (reasoning_content, else the <think>…</think> its content starts with) is dropped before the
// last user query and re-emitted in a <think> block after it; pictures are Qwen-VL's vision
// markers. Text the template cuts out of a content string (the answer after </think>) is
// counted as framing, as the Jinja renderer counts it (docs/pipeline.md §13.3).
type qwenTemplate struct{ wire *wireMemo }

func (qwenTemplate) Name() string { return "qwen" }

func (t qwenTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools, t.wire)
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
	qwenSystem(w, req.tools, firstSystem, func() { put(contents[0], true) })
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
			if reasoning == "" {
				content, reasoning, cut = qwenSplitThink(content)
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

// qwenSystem writes Qwen3's system turn: the tools block, after the system message (system
// writes it) when the conversation starts with one; or the system message alone; or nothing.
func qwenSystem(w *segmentWriter, tools []serverTool, firstSystem bool, system func()) {
	if len(tools) == 0 {
		if firstSystem {
			w.special("<|im_start|>system\n")
			system()
			w.special("<|im_end|>\n")
		}
		return
	}
	w.special("<|im_start|>system\n")
	if firstSystem {
		system()
		w.special("\n\n")
	}
	w.special("# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>")
	for _, t := range tools {
		w.special("\n")
		w.text(toolJSON(t, -1))
	}
	w.special("\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n")
}

// qwenSplitThink splits an assistant's content string at its last </think> as Qwen3's template
// does: the answer after it, and the reasoning of the <think> block before it; cut is false
// (and content is returned as is) when it holds no </think>.
func qwenSplitThink(content string) (answer, reasoning string, cut bool) {
	if !strings.Contains(content, "</think>") {
		return content, "", false
	}
	parts := strings.Split(content, "</think>")
	answer = strings.TrimLeft(parts[len(parts)-1], "\n")
	r := strings.Split(strings.TrimRight(parts[0], "\n"), "<think>")
	return answer, strings.TrimLeft(r[len(r)-1], "\n"), true
}

// listedParts returns a message's text parts when llama-server hands its content to a
// template that shows lists of parts (Gemma 3, Mistral Small 3.2) as such a list: two or more
// text parts and no picture. Otherwise nil: the content is the joined text.
func listedParts(m serverMessage) []string {
	var parts []string
	for _, it := range m.content {
		if it.image != nil {
			return nil
		}
		parts = append(parts, it.text)
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
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

// llama3Template is the Llama 3.1 / 3.2 / 3.3 template (meta-llama's chat_template) as
// llama-server renders it: a system turn with the knowledge date and today's (the template
// date: WithTemplateDate) and the system message trimmed; with tools,
// "Environment: ipython" and the tools, as JSON indented by 4, at the head of the first user
// message; content trimmed; one tool call per assistant turn as
// {"name": …, "parameters": …} (its text dropped); tool results in ipython turns as JSON
// strings. Pictures are Llama 3.2 Vision's <|image|>. What the template refuses (two calls
// in one turn, tools without a user message) is an error, as the server answers it.
type llama3Template struct {
	date time.Time
	wire *wireMemo
}

func (llama3Template) Name() string { return "llama3" }

func (t llama3Template) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools, t.wire)
	pm := newPromptMarkers(&req)
	w := &segmentWriter{}
	var err error
	put := func(s string) {
		if e := pm.emit(w, s, true, llamaImageMarker); e != nil && err == nil {
			err = e
		}
	}
	trim := func(m serverMessage) string { return strings.TrimSpace(pm.content(m.content)) }
	w.special("<|begin_of_text|>")
	rest := req.msgs
	system := ""
	if len(rest) > 0 && rest[0].role == corpora.RoleSystem {
		system, rest = trim(rest[0]), rest[1:]
	}
	w.special("<|start_header_id|>system<|end_header_id|>\n\n")
	if len(req.tools) > 0 {
		w.special("Environment: ipython\n")
	}
	w.special("Cutting Knowledge Date: December 2023\nToday Date: " + templateDate(t.date).Format("02 Jan 2006") + "\n\n")
	put(system)
	w.special("<|eot_id|>")
	if len(req.tools) > 0 {
		if len(rest) == 0 {
			return nil, fmt.Errorf("llama3 template: cannot put tools in the first user message when there's no first user message")
		}
		first := trim(rest[0])
		rest = rest[1:]
		w.special("<|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\nRespond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.Do not use variables.\n\n")
		for _, t := range req.tools {
			w.text(toolJSON(t, 4))
			w.special("\n\n")
		}
		put(first)
		w.special("<|eot_id|>")
	}
	for _, m := range rest {
		switch {
		case m.role == corpora.RoleTool:
			w.special("<|start_header_id|>ipython<|end_header_id|>\n\n")
			put(serverToJSON(jsonNode{kind: jsonString, s: pm.content(m.content)}, -1))
			w.special("<|eot_id|>")
		case len(m.calls) > 0:
			if len(m.calls) != 1 {
				return nil, fmt.Errorf("llama3 template at %s: this model only supports single tool-calls at once", m.loc)
			}
			c := m.calls[0]
			w.special("<|start_header_id|>assistant<|end_header_id|>\n\n{\"name\": \"" + c.name + "\", \"parameters\": ")
			w.text(c.argsToJSON())
			w.special("}<|eot_id|>")
		default:
			w.special("<|start_header_id|>" + string(m.role) + "<|end_header_id|>\n\n")
			put(trim(m))
			w.special("<|eot_id|>")
		}
	}
	w.special("<|start_header_id|>assistant<|end_header_id|>\n\n")
	if err != nil {
		return nil, fmt.Errorf("llama3 template: %w", err)
	}
	return w.segs, nil
}

// gemmaTemplate is the Gemma 3 template (google/gemma-3 chat_template) as llama-server
// renders it: user and model turns with trimmed content, the system text and a blank line at
// the head of the first turn. The template takes no tools (they are not shown) and refuses a
// conversation whose roles do not alternate user/assistant, tool results included: that is
// an error, as the server answers it. Pictures are <start_of_image>.
type gemmaTemplate struct{ wire *wireMemo }

func (gemmaTemplate) Name() string { return "gemma" }

func (t gemmaTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools, t.wire)
	pm := newPromptMarkers(&req)
	w := &segmentWriter{}
	var err error
	put := func(s string) {
		if e := pm.emit(w, s, true, gemmaImageMarker); e != nil && err == nil {
			err = e
		}
	}
	w.special("<bos>")
	rest := req.msgs
	prefix := ""
	if len(rest) > 0 && rest[0].role == corpora.RoleSystem {
		prefix, rest = pm.content(rest[0].content), rest[1:]
		if parts := listedParts(req.msgs[0]); parts != nil {
			prefix = parts[0] // the template takes the first part of a list
		}
	}
	for i, m := range rest {
		if (m.role == corpora.RoleUser) != (i%2 == 0) {
			return nil, fmt.Errorf("gemma template at %s: conversation roles must alternate user/assistant/user/assistant/... (a %s message)", m.loc, m.role)
		}
		role := string(m.role)
		if m.role == corpora.RoleAssistant {
			role = "model"
		}
		w.special("<start_of_turn>" + role + "\n")
		if i == 0 && prefix != "" {
			put(prefix)
			w.special("\n\n")
		}
		if parts := listedParts(m); parts != nil {
			for _, p := range parts {
				put(strings.TrimSpace(p)) // each part trimmed, none between them
			}
		} else {
			put(strings.TrimSpace(pm.content(m.content)))
		}
		w.special("<end_of_turn>\n")
	}
	w.special("<start_of_turn>model\n")
	if err != nil {
		return nil, fmt.Errorf("gemma template: %w", err)
	}
	return w.segs, nil
}

// mistralTemplate is Mistral Small 3.2's template (mistralai/Mistral-Small-3.2-24B-Instruct-2506)
// as llama-server renders it: [SYSTEM_PROMPT] with the system message or the template's
// default one (today's date in it), [INST] user turns, [AVAILABLE_TOOLS] before the last user
// turn, assistant text closed by </s>, calls as [TOOL_CALLS]name[CALL_ID]id[ARGS]{…} and
// results as [TOOL_RESULTS]id[TOOL_CONTENT]…[/TOOL_RESULTS]; no generation prompt. What the
// template refuses (roles not alternating, a call id that is not 9 characters long) is an
// error, as the server answers it. Pictures are [IMG].
type mistralTemplate struct {
	date time.Time
	wire *wireMemo
}

func (mistralTemplate) Name() string { return "mistral" }

func (t mistralTemplate) Render(msgs []corpora.Message, tools []corpora.ToolDef) ([]Segment, error) {
	req := newServerRequest(msgs, tools, t.wire)
	pm := newPromptMarkers(&req)
	w := &segmentWriter{}
	var err error
	put := func(s string) {
		if e := pm.emit(w, s, true, mistralImageMarker); e != nil && err == nil {
			err = e
		}
	}
	rest := req.msgs
	system, haveSystem := "", false
	if len(rest) > 0 && rest[0].role == corpora.RoleSystem {
		system, haveSystem, rest = pm.content(rest[0].content), true, rest[1:]
		if parts := listedParts(req.msgs[0]); parts != nil {
			system = parts[0] // the template takes the first part of a list
		}
	}
	contents, lastUser, rerr := mistralContents(pm, rest)
	if rerr != nil {
		return nil, rerr
	}
	w.special("<s>[SYSTEM_PROMPT]")
	if haveSystem {
		put(system)
	} else {
		w.special(mistralSystemBefore + templateDate(t.date).Format("2006-01-02") + mistralSystemAfter)
	}
	w.special("[/SYSTEM_PROMPT]")
	for i, m := range rest {
		switch m.role {
		case corpora.RoleSystem:
			w.special("[SYSTEM_PROMPT]")
			put(contents[i])
			w.special("[/SYSTEM_PROMPT]")
		case corpora.RoleUser:
			// The template compares the message with the last user message as a whole.
			if len(req.tools) > 0 && contents[i] == contents[lastUser] && m.name == rest[lastUser].name {
				w.special("[AVAILABLE_TOOLS]")
				w.text("[" + strings.Join(toolJSONs(req.tools, -1), ", ") + "]")
				w.special("[/AVAILABLE_TOOLS]")
			}
			w.special("[INST]")
			put(contents[i])
			w.special("[/INST]")
		case corpora.RoleAssistant:
			if len(m.calls) == 0 {
				put(contents[i])
			}
			for _, c := range m.calls {
				if e := mistralCheckID(c.id, m); e != nil {
					return nil, e
				}
				w.special("[TOOL_CALLS]" + c.name + "[CALL_ID]" + c.id + "[ARGS]")
				w.text(c.argsToJSON())
			}
			w.special("</s>")
		case corpora.RoleTool:
			if e := mistralCheckID(m.toolCallID, m); e != nil {
				return nil, e
			}
			w.special("[TOOL_RESULTS]" + m.toolCallID + "[TOOL_CONTENT]")
			put(contents[i])
			w.special("[/TOOL_RESULTS]")
		default:
			return nil, fmt.Errorf("mistral template at %s: only system, user, assistant, and tool roles are supported (got %q)", m.loc, m.role)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("mistral template: %w", err)
	}
	return w.segs, nil
}

// mistralContents returns the contents of the messages after the system message, as Mistral
// Small 3.2's template writes them (a list of text parts joined), and the index of the last user
// message (-1 when none); it fails where the user and assistant messages (calls and results
// aside) do not alternate, as the template does.
func mistralContents(pm *promptMarkers, msgs []serverMessage) ([]string, int, error) {
	contents := make([]string, len(msgs))
	lastUser := -1
	n := 0
	for i, m := range msgs {
		contents[i] = pm.content(m.content)
		if parts := listedParts(m); parts != nil && m.role != corpora.RoleTool {
			contents[i] = strings.Join(parts, "") // the template writes the parts one after another
		}
		if m.role == corpora.RoleUser {
			lastUser = i
		}
		if m.role == corpora.RoleTool || len(m.calls) > 0 {
			continue
		}
		if (m.role == corpora.RoleUser) != (n%2 == 0) {
			return nil, -1, fmt.Errorf("mistral template at %s: after the optional system message, conversation roles must alternate user/assistant/user/assistant/... (a %s message)", m.loc, m.role)
		}
		n++
	}
	return contents, lastUser, nil
}

// mistralCheckID fails on a tool call id (of message m) that is not 9 characters long, as
// Mistral Small 3.2's template does.
func mistralCheckID(id string, m serverMessage) error {
	if utf8.RuneCountInString(id) != 9 {
		return fmt.Errorf("mistral template at %s: tool call IDs should be alphanumeric strings with length 9 (got %q)", m.loc, id)
	}
	return nil
}

// mistralSystemBefore and mistralSystemAfter are the default system prompt of Mistral Small
// 3.2's template, around today's date (YYYY-MM-DD).
const (
	mistralSystemBefore = "You are Mistral Small 3, a Large Language Model (LLM) created by Mistral AI, a French startup headquartered in Paris.\n" +
		"Your knowledge base was last updated on 2023-10-01. The current date is "
	mistralSystemAfter = ".\n" +
		"\n" +
		"When you're not sure about some information or when the user's request requires up-to-date or specific data, you must use the available tools to fetch the information. Do not hesitate to use tools whenever they can provide a more accurate or complete response. If no relevant tools are available, then clearly state that you don't have the information and avoid making up anything.\n" +
		"\n" +
		"If the user's question is not clear, ambiguous, or does not provide enough context for you to accurately answer the question, you do not try to answer it right away and you rather ask the user to clarify their request (e.g. \"What are some good restaurants around me?\" => \"Where are you?\" or \"When is the next flight to Tokyo\" => \"Where do you travel from?\").\n" +
		"You are always very attentive to dates, and when asked about information at specific dates, you discard information that is at another date.\n" +
		"You follow these instructions in all languages, and always respond to the user in the language they use or request.\n" +
		"Next sections describe the capabilities that you have.\n" +
		"\n" +
		"# WEB BROWSING INSTRUCTIONS\n" +
		"\n" +
		"You cannot perform any web search or access internet to open URLs, links etc. If it seems like the user is expecting you to do so, you clarify the situation and ask the user to copy paste the text directly in the chat.\n" +
		"\n" +
		"# MULTI-MODAL INSTRUCTIONS\n" +
		"\n" +
		"You have the ability to read images, but you cannot generate images. You also cannot transcribe audio files or videos.\n" +
		"You cannot read nor transcribe audio files or videos.\n" +
		"\n" +
		"# TOOL CALLING INSTRUCTIONS\n" +
		"\n" +
		"You may have access to tools that you can use to fetch information or perform actions. You must use these tools in the following situations:\n" +
		"\n" +
		"1. When the request requires up-to-date information.\n" +
		"2. When the request requires specific data that you do not have in your knowledge base.\n" +
		"3. When the request involves actions that you cannot perform without tools.\n" +
		"\n" +
		"Always prioritize using tools to provide the most accurate and helpful response. If tools are not available, inform the user that you cannot perform the requested action at the moment."
)
