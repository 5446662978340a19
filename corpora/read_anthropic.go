package corpora

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// anthropicAPI is the Anthropic Messages request format.
func anthropicAPI() apiFormat {
	return apiFormat{format: FormatAnthropic, isRequest: apiHas("messages"), parse: parseAnthropicRequest, messages: "messages"}
}

// sniffAnthropic: an Anthropic Messages body has tool_use/tool_result blocks, an
// anthropic_version, media_type sources, a claude- model, or max_tokens with a top-level system
// (not a system role).
func sniffAnthropic(f fileHead) bool {
	return f.has(`"tool_result"`) || f.has(`"tool_use"`) || f.has(`"anthropic_version"`) || f.has(`"media_type"`) ||
		f.has(`"model":"claude-`) || f.has(`"model": "claude-`) ||
		(f.has(`"max_tokens"`) && f.has(`"system"`) && !f.has(`"role":"system"`) && !f.has(`"role": "system"`))
}

func readAnthropic(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return newRequestLogReader(name, anthropicAPI(), e).read(ctx, r)
}

// parseAnthropicRequest reads an Anthropic Messages request body.
//
// A user message's tool_result blocks become RoleTool messages of their own, one per block,
// and the user message is split at them so that everything keeps the recorded block order:
// content [tool_result A, tool_result B, text] gives tool(A), tool(B), user(text). A message
// that holds no tool_result keeps Raw = the message; the pieces of a split message have
// Raw = the tool_result block (tool messages, Loc = the block) or nil (the user pieces, which
// match no single recorded value; Loc = the message).
func parseAnthropicRequest(p *apiParse, req jwNode, f jwFields) *ReadError {
	var rerr *ReadError
	if p.conv.Model, rerr = f.str("model"); rerr != nil {
		return rerr
	}
	if rerr := p.flatTools(f, "input_schema"); rerr != nil {
		return rerr
	}
	if sys, ok := f.has("system"); ok && !sys.isNull() {
		parts, rerr := p.anthropicBlocks(sys, OriginUser)
		if rerr != nil {
			return rerr
		}
		p.conv.Messages = append(p.conv.Messages, Message{Role: RoleSystem, Parts: parts, Loc: sys.loc, Raw: json.RawMessage(sys.raw)})
	}
	return p.messages(f, p.anthropicMessage)
}

// anthropicMessage reads one message, splitting out tool_result blocks.
func (p *apiParse) anthropicMessage(m jwNode) *ReadError {
	f, err := m.fields()
	if err != nil {
		return asReadError(m, err)
	}
	role, rerr := f.str("role")
	if rerr != nil {
		return rerr
	}
	var r Role
	origin := OriginUser
	switch role {
	case "user":
		r = RoleUser
	case "assistant":
		r, origin = RoleAssistant, OriginAssistant
	case "system": // not in the API, but some proxies log it so
		r = RoleSystem
	case "":
		return m.errorf("message has no role")
	default:
		return f.get("role").errorf("unknown message role %q", role)
	}
	content := f.get("content")
	if content.kind() != '[' {
		parts, rerr := p.anthropicBlocks(content, origin)
		if rerr != nil {
			return rerr
		}
		p.conv.Messages = append(p.conv.Messages, Message{Role: r, Parts: parts, Loc: m.loc, Raw: json.RawMessage(m.raw)})
		return nil
	}
	var out []Message
	cur := Message{Role: r, Parts: []Part{}, Loc: m.loc}
	split := false
	err = content.elements(func(_ int, b jwNode) error {
		bf, err := b.fields()
		if b.kind() == '{' && err != nil {
			return err
		}
		if typ, _ := bf.str("type"); b.kind() == '{' && typ == "tool_result" {
			split = true
			if len(cur.Parts) > 0 {
				out = append(out, cur)
				cur = Message{Role: r, Parts: []Part{}, Loc: m.loc}
			}
			tm, rerr := p.anthropicToolResult(b, bf)
			if rerr != nil {
				return rerr
			}
			out = append(out, tm)
			return nil
		}
		part, rerr := p.anthropicBlock(b, origin)
		if rerr != nil {
			return rerr
		}
		cur.Parts = append(cur.Parts, part)
		return nil
	})
	if err != nil {
		return asReadError(content, err)
	}
	if !split {
		cur.Raw = json.RawMessage(m.raw)
		out = append(out, cur)
	} else if len(cur.Parts) > 0 {
		out = append(out, cur)
	}
	p.conv.Messages = append(p.conv.Messages, out...)
	return nil
}

// anthropicToolResult reads a tool_result block into a RoleTool message.
func (p *apiParse) anthropicToolResult(b jwNode, f jwFields) (Message, *ReadError) {
	id, rerr := f.str("tool_use_id")
	if rerr != nil {
		return Message{}, rerr
	}
	res := &ToolResult{CallID: id, Name: p.callNames[id]}
	if res.IsError, rerr = f.get("is_error").boolean(); rerr != nil {
		return Message{}, rerr
	}
	content, ok := f.has("content")
	loc := content.loc
	if !ok {
		loc = b.loc
	}
	switch content.kind() {
	case '"':
		if res.Text, rerr = content.text(); rerr != nil {
			return Message{}, rerr
		}
		res.IsText = true
	case 0, 'n':
		res.IsText = true
	case '[':
		if res.Parts, rerr = p.anthropicBlocks(content, OriginTool); rerr != nil {
			return Message{}, rerr
		}
	default:
		return Message{}, content.errorf("tool_result content must be a string or an array of blocks, found %s", content.kindName())
	}
	return Message{Role: RoleTool, Name: res.Name, ToolCallID: id, Loc: b.loc, Raw: json.RawMessage(b.raw),
		Parts: []Part{{Kind: PartToolResult, ToolResult: res, Loc: loc}}}, nil
}

// anthropicBlocks reads content that is absent, a string, or an array of blocks (no tool_result
// splitting: used for system and tool_result content).
func (p *apiParse) anthropicBlocks(content jwNode, origin Origin) ([]Part, *ReadError) {
	return apiContentParts(content, "blocks", func(b jwNode) (Part, bool, *ReadError) {
		part, rerr := p.anthropicBlock(b, origin)
		return part, true, rerr
	})
}

// anthropicBlock reads one content block; unknown blocks are kept opaque. thinking and
// redacted_thinking blocks are kept opaque whole (Text = the block as recorded), so their
// signatures stay byte-identical and are never scanned.
func (p *apiParse) anthropicBlock(b jwNode, origin Origin) (Part, *ReadError) {
	if b.kind() != '{' {
		return p.opaqueNoted(b, "content block that is not an object"), nil
	}
	f, err := b.fields()
	if err != nil {
		return Part{}, asReadError(b, err)
	}
	typ, rerr := f.str("type")
	if rerr != nil {
		return Part{}, rerr
	}
	switch typ {
	case "text":
		part, _, rerr := apiTextPart(f.get("text"))
		return part, rerr
	case "thinking", "redacted_thinking":
		return apiOpaque(b), nil
	case "tool_use", "server_tool_use", "mcp_tool_use":
		id, rerr := f.str("id")
		if rerr != nil {
			return Part{}, rerr
		}
		name, rerr := f.str("name")
		if rerr != nil {
			return Part{}, rerr
		}
		args, rerr := apiArguments(f.get("input"))
		if rerr != nil {
			return Part{}, rerr
		}
		if id != "" {
			p.nameCall(id, name)
		}
		return Part{Kind: PartToolCall, ToolCall: &ToolCall{ID: id, Name: name, Arguments: args}, Loc: b.loc}, nil
	case "image":
		return p.anthropicSource(b, f, origin, true)
	case "document":
		return p.anthropicSource(b, f, origin, false)
	}
	return p.opaqueNoted(b, fmt.Sprintf("content block of type %q", typ)), nil
}

// anthropicSource reads the source of an image or document block: base64 images become image
// parts, url and file sources references, anything else opaque.
func (p *apiParse) anthropicSource(b jwNode, f jwFields, origin Origin, isImage bool) (Part, *ReadError) {
	src, ok := f.has("source")
	if !ok || src.kind() != '{' {
		return p.opaqueNoted(b, "block without a source object"), nil
	}
	sf, err := src.fields()
	if err != nil {
		return Part{}, asReadError(src, err)
	}
	st, rerr := sf.str("type")
	if rerr != nil {
		return Part{}, rerr
	}
	switch st {
	case "base64":
		if !isImage {
			return p.opaqueNoted(b, "base64 document block"), nil
		}
		mt, rerr := sf.str("media_type")
		if rerr != nil {
			return Part{}, rerr
		}
		return p.base64Image(sf.get("data"), mt, origin)
	case "url":
		u, rerr := sf.get("url").text()
		if rerr != nil {
			return Part{}, rerr
		}
		reason := "remote URL; never fetched"
		if isImage {
			reason = "remote image URL; never fetched"
		}
		return Part{Kind: PartReference, Loc: sf.get("url").loc, Ref: &Reference{Kind: "url", Target: u, Origin: origin, Reason: reason}}, nil
	case "file":
		id, rerr := sf.get("file_id").text()
		if rerr != nil {
			return Part{}, rerr
		}
		return Part{Kind: PartReference, Loc: sf.get("file_id").loc, Ref: &Reference{Kind: "file", Target: id, Origin: origin,
			Reason: "file id of the provider's file store; not in the recording"}}, nil
	}
	return p.opaqueNoted(b, fmt.Sprintf("block with a %q source", st)), nil
}
