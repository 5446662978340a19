package corpora

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// responsesAPI is the OpenAI Responses request format.
func responsesAPI() apiFormat {
	return apiFormat{format: FormatOpenAIResponses, isRequest: apiHas("input", "instructions"), parse: parseResponsesRequest, messages: "input"}
}

// sniffOpenAIResponses: a Responses body has an input, with Responses-only item or part types
// or without Chat's messages.
func sniffOpenAIResponses(f fileHead) bool {
	return f.has(`"input"`) && (f.has(`"function_call_output"`) || f.has(`"input_text"`) ||
		f.has(`"input_image"`) || !f.has(`"messages"`))
}

func readOpenAIResponses(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return newRequestLogReader(name, responsesAPI(), e).read(ctx, r)
}

// parseResponsesRequest reads an OpenAI Responses request body. Every input item becomes one
// message (Raw = the item), so that an item can be written back byte for byte; consecutive
// function_call items are therefore separate assistant messages.
func parseResponsesRequest(p *apiParse, req jwNode, f jwFields) *ReadError {
	var rerr *ReadError
	if p.conv.Model, rerr = f.str("model"); rerr != nil {
		return rerr
	}
	if rerr := p.flatTools(f, "parameters"); rerr != nil {
		return rerr
	}
	if prev, _ := f.str("previous_response_id"); prev != "" {
		p.note("previous_response_id %q: earlier turns are stored by the provider, not in the recording", prev)
	}
	if ins, ok := f.has("instructions"); ok && !ins.isNull() {
		switch ins.kind() {
		case '"':
			part, nonEmpty, rerr := apiTextPart(ins)
			if rerr != nil {
				return rerr
			}
			msg := Message{Role: RoleSystem, Parts: []Part{}, Loc: ins.loc, Raw: json.RawMessage(ins.raw)}
			if nonEmpty {
				msg.Parts = append(msg.Parts, part)
			}
			p.conv.Messages = append(p.conv.Messages, msg)
		case '[':
			if rerr := p.responsesItems(ins); rerr != nil {
				return rerr
			}
		default:
			return ins.errorf("instructions must be a string or an array of items, found %s", ins.kindName())
		}
	}
	in, ok := f.has("input")
	switch {
	case !ok || in.isNull():
		return nil
	case in.kind() == '"':
		part, nonEmpty, rerr := apiTextPart(in)
		if rerr != nil {
			return rerr
		}
		msg := Message{Role: RoleUser, Parts: []Part{}, Loc: in.loc, Raw: json.RawMessage(in.raw)}
		if nonEmpty {
			msg.Parts = append(msg.Parts, part)
		}
		p.conv.Messages = append(p.conv.Messages, msg)
		return nil
	case in.kind() == '[':
		return p.responsesItems(in)
	}
	return in.errorf("input must be a string or an array of items, found %s", in.kindName())
}

// flatTools reads a "tools" array of flat declarations {name, description, <schemaKey>}; a
// built-in tool without a name is named by its type.
func (p *apiParse) flatTools(f jwFields, schemaKey string) *ReadError {
	list, ok := f.has("tools")
	if !ok || list.isNull() {
		return nil
	}
	err := list.elements(func(_ int, t jwNode) error {
		tf, err := t.fields()
		if err != nil {
			return err
		}
		def, rerr := apiToolDef(tf, schemaKey)
		if rerr != nil {
			return rerr
		}
		if def.Name == "" {
			def.Name, _ = tf.str("type")
		}
		p.conv.Tools = append(p.conv.Tools, def)
		return nil
	})
	return asReadError(list, err)
}

// responsesItems reads an array of input items.
func (p *apiParse) responsesItems(items jwNode) *ReadError {
	return p.eachMessage(items, p.responsesItem)
}

// responsesItem reads one input item.
func (p *apiParse) responsesItem(it jwNode) *ReadError {
	f, err := it.fields()
	if err != nil {
		return asReadError(it, err)
	}
	typ, rerr := f.str("type")
	if rerr != nil {
		return rerr
	}
	role, rerr := f.str("role")
	if rerr != nil {
		return rerr
	}
	msg := Message{Loc: it.loc, Raw: json.RawMessage(it.raw), Parts: []Part{}}
	switch {
	case typ == "message" || (typ == "" && role != ""):
		origin := OriginUser
		switch role {
		case "user":
			msg.Role = RoleUser
		case "system", "developer":
			msg.Role = RoleSystem
		case "assistant":
			msg.Role, origin = RoleAssistant, OriginAssistant
		default:
			return f.get("role").errorf("unknown message role %q", role)
		}
		if msg.Parts, rerr = p.responsesContent(f.get("content"), origin); rerr != nil {
			return rerr
		}
	case typ == "function_call" || typ == "custom_tool_call":
		msg.Role = RoleAssistant
		part, rerr := p.responsesCall(it, f, "")
		if rerr != nil {
			return rerr
		}
		msg.Parts = append(msg.Parts, part)
	case typ == "computer_call":
		msg.Role = RoleAssistant
		part, rerr := p.responsesCall(it, f, "computer")
		if rerr != nil {
			return rerr
		}
		msg.Parts = append(msg.Parts, part)
	case typ == "function_call_output" || typ == "custom_tool_call_output" || typ == "computer_call_output":
		msg.Role = RoleTool
		if rerr := p.responsesOutput(&msg, f, it); rerr != nil {
			return rerr
		}
	case typ == "reasoning":
		msg.Role = RoleAssistant
		msg.Parts = append(msg.Parts, apiOpaque(it))
	default:
		msg.Role = RoleAssistant
		msg.Parts = append(msg.Parts, p.opaqueNoted(it, fmt.Sprintf("input item of type %q", typ)))
	}
	p.conv.Messages = append(p.conv.Messages, msg)
	return nil
}

// responsesCall reads a function_call, custom_tool_call or computer_call item (name is the
// fixed tool name of a computer_call).
func (p *apiParse) responsesCall(it jwNode, f jwFields, name string) (Part, *ReadError) {
	id, rerr := f.str("call_id")
	if rerr != nil {
		return Part{}, rerr
	}
	if name == "" {
		if name, rerr = f.str("name"); rerr != nil {
			return Part{}, rerr
		}
	}
	argNode, ok := f.has("arguments")
	if !ok {
		if argNode, ok = f.has("input"); !ok {
			argNode = f.get("action")
		}
	}
	args, rerr := apiArguments(argNode)
	if rerr != nil {
		return Part{}, rerr
	}
	if id != "" {
		p.nameCall(id, name)
	}
	return Part{Kind: PartToolCall, ToolCall: &ToolCall{ID: id, Name: name, Arguments: args}, Loc: it.loc}, nil
}

// responsesOutput reads a *_call_output item into a tool message.
func (p *apiParse) responsesOutput(msg *Message, f jwFields, it jwNode) *ReadError {
	var rerr *ReadError
	if msg.ToolCallID, rerr = f.str("call_id"); rerr != nil {
		return rerr
	}
	res := &ToolResult{CallID: msg.ToolCallID, Name: p.callNames[msg.ToolCallID]}
	msg.Name = res.Name
	out, ok := f.has("output")
	loc := out.loc
	if !ok {
		loc = it.loc
	}
	done, rerr := apiToolResultContent(res, out, func() ([]Part, *ReadError) { return p.responsesContent(out, OriginTool) })
	switch {
	case rerr != nil:
		return rerr
	case done:
	case out.kind() == '{': // computer_call_output: one screenshot object
		part, rerr := p.responsesPart(out, OriginTool)
		if rerr != nil {
			return rerr
		}
		res.Parts = []Part{part}
	default:
		return out.errorf("output must be a string or an array of parts, found %s", out.kindName())
	}
	msg.Parts = []Part{{Kind: PartToolResult, ToolResult: res, Loc: loc}}
	return nil
}

// responsesContent reads message content or an output array: a string or an array of parts.
func (p *apiParse) responsesContent(content jwNode, origin Origin) ([]Part, *ReadError) {
	return apiContentParts(content, "parts", func(el jwNode) (Part, bool, *ReadError) {
		part, rerr := p.responsesPart(el, origin)
		return part, true, rerr
	})
}

// responsesPart reads one content part; unknown parts are kept opaque.
func (p *apiParse) responsesPart(el jwNode, origin Origin) (Part, *ReadError) {
	if el.kind() != '{' {
		return p.opaqueNoted(el, "content part that is not an object"), nil
	}
	f, err := el.fields()
	if err != nil {
		return Part{}, asReadError(el, err)
	}
	typ, rerr := f.str("type")
	if rerr != nil {
		return Part{}, rerr
	}
	switch typ {
	case "input_text", "output_text", "text", "summary_text":
		part, _, rerr := apiTextPart(f.get("text"))
		return part, rerr
	case "refusal":
		part, _, rerr := apiTextPart(f.get("refusal"))
		return part, rerr
	case "input_image", "computer_screenshot", "image_url":
		detail, rerr := f.str("detail")
		if rerr != nil {
			return Part{}, rerr
		}
		if u, ok := f.has("image_url"); ok && !u.isNull() {
			if u.kind() == '{' { // Chat-style {url} object, as some proxies rewrite it
				uf, err := u.fields()
				if err != nil {
					return Part{}, asReadError(u, err)
				}
				u = uf.get("url")
			}
			return p.imageURL(u, origin, detail)
		}
		if id, ok := f.has("file_id"); ok && !id.isNull() {
			target, rerr := id.text()
			if rerr != nil {
				return Part{}, rerr
			}
			return Part{Kind: PartReference, Loc: id.loc, Ref: &Reference{Kind: "file", Target: target, Origin: origin,
				Reason: "file id of the provider's file store; not in the recording"}}, nil
		}
		return p.opaqueNoted(el, "image part without image_url or file_id"), nil
	case "input_file":
		if u, ok := f.has("file_url"); ok && !u.isNull() {
			target, rerr := u.text()
			if rerr != nil {
				return Part{}, rerr
			}
			return Part{Kind: PartReference, Loc: u.loc, Ref: &Reference{Kind: "url", Target: target, Origin: origin,
				Reason: "remote file URL; never fetched"}}, nil
		}
		if id, ok := f.has("file_id"); ok && !id.isNull() && f.get("file_data").isNull() {
			target, rerr := id.text()
			if rerr != nil {
				return Part{}, rerr
			}
			return Part{Kind: PartReference, Loc: id.loc, Ref: &Reference{Kind: "file", Target: target, Origin: origin,
				Reason: "file id of the provider's file store; not in the recording"}}, nil
		}
		return p.opaqueNoted(el, "input_file part"), nil
	}
	return p.opaqueNoted(el, fmt.Sprintf("content part of type %q", typ)), nil
}
