package corpora

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// This file holds the OpenAI Chat Completions request format, read by the request-log reader
// (requestlog.go).

// chatAPI is the OpenAI Chat Completions request format.
func chatAPI() apiFormat {
	return apiFormat{format: FormatOpenAIChat, isRequest: apiHas("messages"), parse: parseChatRequest, messages: "messages"}
}

// sniffOpenAIChat: a Chat Completions body has messages (tried last: other formats have them too).
func sniffOpenAIChat(f fileHead) bool { return f.has(`"messages"`) }

func readOpenAIChat(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return newRequestLogReader(name, chatAPI(), e).read(ctx, r)
}

// parseChatRequest reads an OpenAI Chat Completions request body.
func parseChatRequest(p *apiParse, req jwNode, f jwFields) *ReadError {
	var rerr *ReadError
	if p.conv.Model, rerr = f.str("model"); rerr != nil {
		return rerr
	}
	if rerr := p.chatTools(f); rerr != nil {
		return rerr
	}
	return p.messages(f, p.chatMessage)
}

// chatTools reads tools (and the deprecated functions) into ToolDefs.
func (p *apiParse) chatTools(f jwFields) *ReadError {
	for _, key := range []string{"tools", "functions"} {
		list, ok := f.has(key)
		if !ok || list.isNull() {
			continue
		}
		err := list.elements(func(_ int, t jwNode) error {
			tf, err := t.fields()
			if err != nil {
				return err
			}
			if fn, ok := tf.has("function"); ok && fn.kind() == '{' {
				if tf, err = fn.fields(); err != nil {
					return err
				}
			}
			def, rerr := apiToolDef(tf, "parameters")
			if rerr != nil {
				return rerr
			}
			if def.Name == "" {
				def.Name, _ = tf.str("type")
			}
			p.conv.Tools = append(p.conv.Tools, def)
			return nil
		})
		if err != nil {
			return asReadError(list, err)
		}
	}
	return nil
}

// chatMessage reads one Chat Completions message.
func (p *apiParse) chatMessage(m jwNode) *ReadError {
	f, err := m.fields()
	if err != nil {
		return asReadError(m, err)
	}
	role, rerr := f.str("role")
	if rerr != nil {
		return rerr
	}
	msg := Message{Loc: m.loc, Raw: json.RawMessage(m.raw), Parts: []Part{}}
	if msg.Name, rerr = f.str("name"); rerr != nil {
		return rerr
	}
	content := f.get("content")
	switch role {
	case "system", "developer":
		msg.Role = RoleSystem
		msg.Parts, rerr = p.chatContent(content, OriginUser)
	case "user":
		msg.Role = RoleUser
		msg.Parts, rerr = p.chatContent(content, OriginUser)
	case "assistant":
		msg.Role = RoleAssistant
		rerr = p.chatAssistant(&msg, f)
	case "tool", "function":
		msg.Role = RoleTool
		rerr = p.chatToolResult(&msg, f, role == "function")
	case "":
		return m.errorf("message has no role")
	default:
		return f.get("role").errorf("unknown message role %q", role)
	}
	if rerr != nil {
		return rerr
	}
	p.conv.Messages = append(p.conv.Messages, msg)
	return nil
}

// chatAssistant reads an assistant message: reasoning (opaque), content, refusal, tool calls.
func (p *apiParse) chatAssistant(msg *Message, f jwFields) *ReadError {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		if v, ok := f.has(key); ok && !v.isNull() && string(v.raw) != `""` {
			msg.Parts = append(msg.Parts, apiOpaque(v))
		}
	}
	parts, rerr := p.chatContent(f.get("content"), OriginAssistant)
	if rerr != nil {
		return rerr
	}
	msg.Parts = append(msg.Parts, parts...)
	if v, ok := f.has("refusal"); ok && !v.isNull() {
		part, nonEmpty, rerr := apiTextPart(v)
		if rerr != nil {
			return rerr
		}
		if nonEmpty {
			msg.Parts = append(msg.Parts, part)
		}
	}
	if calls, ok := f.has("tool_calls"); ok && !calls.isNull() {
		err := calls.elements(func(_ int, c jwNode) error {
			part, rerr := p.chatToolCall(c)
			if rerr != nil {
				return rerr
			}
			msg.Parts = append(msg.Parts, part)
			return nil
		})
		if err != nil {
			return asReadError(calls, err)
		}
	}
	if fc, ok := f.has("function_call"); ok && !fc.isNull() {
		part, rerr := p.chatFunction(fc, "")
		if rerr != nil {
			return rerr
		}
		msg.Parts = append(msg.Parts, part)
	}
	return nil
}

// chatToolCall reads one tool_calls entry.
func (p *apiParse) chatToolCall(c jwNode) (Part, *ReadError) {
	cf, err := c.fields()
	if err != nil {
		return Part{}, asReadError(c, err)
	}
	id, rerr := cf.str("id")
	if rerr != nil {
		return Part{}, rerr
	}
	fn, ok := cf.has("function")
	if !ok {
		fn, ok = cf.has("custom")
	}
	if !ok {
		return p.opaqueNoted(c, "tool call without a function"), nil
	}
	part, rerr := p.chatFunction(fn, id)
	part.Loc = c.loc
	return part, rerr
}

// chatFunction reads {name, arguments} (or a custom tool's {name, input}).
func (p *apiParse) chatFunction(fn jwNode, id string) (Part, *ReadError) {
	ff, err := fn.fields()
	if err != nil {
		return Part{}, asReadError(fn, err)
	}
	name, rerr := ff.str("name")
	if rerr != nil {
		return Part{}, rerr
	}
	argNode, ok := ff.has("arguments")
	if !ok {
		argNode = ff.get("input")
	}
	args, rerr := apiArguments(argNode)
	if rerr != nil {
		return Part{}, rerr
	}
	if id != "" {
		p.nameCall(id, name)
	}
	return Part{Kind: PartToolCall, ToolCall: &ToolCall{ID: id, Name: name, Arguments: args}, Loc: fn.loc}, nil
}

// chatToolResult reads a tool (or deprecated function) message.
func (p *apiParse) chatToolResult(msg *Message, f jwFields, legacyFunction bool) *ReadError {
	var rerr *ReadError
	if !legacyFunction {
		if msg.ToolCallID, rerr = f.str("tool_call_id"); rerr != nil {
			return rerr
		}
	}
	name := msg.Name
	if name == "" {
		name = p.callNames[msg.ToolCallID]
	}
	res := &ToolResult{CallID: msg.ToolCallID, Name: name}
	content, ok := f.has("content")
	loc := content.loc
	if !ok {
		loc = msg.Loc
	}
	if done, rerr := apiToolResultContent(res, content, func() ([]Part, *ReadError) { return p.chatContent(content, OriginTool) }); rerr != nil {
		return rerr
	} else if !done {
		return content.errorf("tool message content must be a string or an array of parts, found %s", content.kindName())
	}
	msg.Parts = []Part{{Kind: PartToolResult, ToolResult: res, Loc: loc}}
	return nil
}

// chatContent reads a Chat Completions content value: absent, null, a string or an array of parts.
func (p *apiParse) chatContent(content jwNode, origin Origin) ([]Part, *ReadError) {
	return apiContentParts(content, "parts", func(el jwNode) (Part, bool, *ReadError) { return p.chatPart(el, origin) })
}

// chatPart reads one content part; unknown parts are kept opaque.
func (p *apiParse) chatPart(el jwNode, origin Origin) (Part, bool, *ReadError) {
	if el.kind() == '"' { // a bare string in a content array, as some clients write
		part, _, rerr := apiTextPart(el)
		return part, true, rerr
	}
	if el.kind() != '{' {
		return p.opaqueNoted(el, "content part that is not an object"), true, nil
	}
	f, err := el.fields()
	if err != nil {
		return Part{}, false, asReadError(el, err)
	}
	typ, rerr := f.str("type")
	if rerr != nil {
		return Part{}, false, rerr
	}
	switch typ {
	case "text", "input_text", "output_text":
		part, _, rerr := apiTextPart(f.get("text"))
		return part, true, rerr
	case "refusal":
		part, _, rerr := apiTextPart(f.get("refusal"))
		return part, true, rerr
	case "image_url":
		iu := f.get("image_url")
		detail := ""
		urlNode := iu
		if iu.kind() == '{' {
			iuf, err := iu.fields()
			if err != nil {
				return Part{}, false, asReadError(iu, err)
			}
			urlNode = iuf.get("url")
			if detail, rerr = iuf.str("detail"); rerr != nil {
				return Part{}, false, rerr
			}
		}
		part, rerr := p.imageURL(urlNode, origin, detail)
		return part, true, rerr
	case "file":
		file := f.get("file")
		if file.kind() == '{' {
			ff, err := file.fields()
			if err != nil {
				return Part{}, false, asReadError(file, err)
			}
			if id, _ := ff.str("file_id"); id != "" && ff.get("file_data").isNull() {
				return Part{Kind: PartReference, Loc: ff.get("file_id").loc, Ref: &Reference{Kind: "file", Target: id, Origin: origin,
					Reason: "file id of the provider's file store; not in the recording"}}, true, nil
			}
		}
		return p.opaqueNoted(el, "file part"), true, nil
	case "input_audio":
		return p.opaqueNoted(el, "input_audio part"), true, nil
	}
	return p.opaqueNoted(el, fmt.Sprintf("content part of type %q", typ)), true, nil
}
