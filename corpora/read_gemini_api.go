package corpora

// geminiAPI is the Gemini API generateContent request, as Gemini CLI's sessions are rebuilt into:
// contents of user and model turns whose parts are text, inlineData, functionCall and
// functionResponse.
func geminiAPI() apiFormat {
	return apiFormat{format: FormatGeminiCLI, isRequest: apiHas("contents"), parse: parseGeminiRequest, messages: "contents"}
}

// parseGeminiRequest reads a generateContent request body. A functionResponse part becomes a
// tool message of its own, with the inlineData parts that follow it in the same content (the
// pictures a tool returned, as Gemini CLI sends them).
func parseGeminiRequest(p *apiParse, req jwNode, f jwFields) *ReadError {
	if m, ok := f.has("model"); ok && m.kind() == '"' {
		model, rerr := m.text()
		if rerr != nil {
			return rerr
		}
		p.conv.Model = model
	}
	contents := f.get("contents")
	if contents.kind() != '[' {
		return contents.errorf("contents must be an array, found %s", contents.kindName())
	}
	return p.eachMessage(contents, p.geminiContent)
}

// geminiContent reads one content (a turn) into messages.
func (p *apiParse) geminiContent(c jwNode) *ReadError {
	f, err := c.fields()
	if err != nil {
		return asReadError(c, err)
	}
	origin, r, rerr := geminiRole(f)
	if rerr != nil {
		return rerr
	}
	cur := &Message{Role: r, Loc: c.loc}
	var tool *Message // the tool message the inlineData parts join
	flush := func() {
		if len(cur.Parts) > 0 {
			p.conv.Messages = append(p.conv.Messages, *cur)
		}
		cur = &Message{Role: r, Loc: c.loc}
	}
	parts := f.get("parts")
	if parts.kind() != '[' {
		return parts.errorf("parts must be an array, found %s", parts.kindName())
	}
	rerr = asReadError(parts, parts.elements(func(_ int, el jwNode) error {
		pf, err := el.fields()
		if err != nil {
			return asReadError(el, err)
		}
		switch {
		case has(pf, "text"):
			text, rerr := pf.get("text").text()
			if rerr != nil {
				return rerr
			}
			tool = nil
			cur.Parts = append(cur.Parts, Part{Kind: PartText, Text: text, Loc: el.loc})
		case has(pf, "inlineData"):
			part, rerr := p.geminiInline(pf.get("inlineData"), origin)
			if rerr != nil {
				return rerr
			}
			if tool != nil {
				res := tool.Parts[0].ToolResult
				if part.Image != nil { // not when its base64 did not decode (an opaque part)
					part.Image.Origin = OriginTool
				}
				res.Parts = append(res.Parts, part)
				return nil
			}
			cur.Parts = append(cur.Parts, part)
		case has(pf, "functionCall"):
			part, rerr := p.geminiCall(pf.get("functionCall"))
			if rerr != nil {
				return rerr
			}
			tool = nil
			cur.Parts = append(cur.Parts, part)
		case has(pf, "functionResponse"):
			flush()
			msg, rerr := p.geminiResponse(pf.get("functionResponse"))
			if rerr != nil {
				return rerr
			}
			p.conv.Messages = append(p.conv.Messages, msg)
			tool = &p.conv.Messages[len(p.conv.Messages)-1]
		default:
			tool = nil
			cur.Parts = append(cur.Parts, p.opaqueNoted(el, "a part other than text, inlineData, functionCall or functionResponse"))
		}
		return nil
	}))
	if rerr != nil {
		return rerr
	}
	flush()
	return nil
}

// has says whether the fields hold key.
func has(f jwFields, key string) bool {
	_, ok := f.has(key)
	return ok
}

// geminiInline reads an inlineData part: base64 data and its mimeType.
func (p *apiParse) geminiInline(n jwNode, origin Origin) (Part, *ReadError) {
	f, err := n.fields()
	if err != nil {
		return Part{}, asReadError(n, err)
	}
	mime, _ := f.str("mimeType")
	return p.base64Image(f.get("data"), mime, origin)
}

// geminiCall reads a functionCall part.
func (p *apiParse) geminiCall(n jwNode) (Part, *ReadError) {
	f, err := n.fields()
	if err != nil {
		return Part{}, asReadError(n, err)
	}
	name, rerr := f.str("name")
	if rerr != nil {
		return Part{}, rerr
	}
	id, _ := f.str("id")
	args, rerr := apiArguments(f.get("args"))
	if rerr != nil {
		return Part{}, rerr
	}
	if id != "" {
		p.nameCall(id, name)
	}
	return Part{Kind: PartToolCall, ToolCall: &ToolCall{ID: id, Name: name, Arguments: args}, Loc: n.loc}, nil
}

// geminiResponse reads a functionResponse part into a tool message: its response object as text.
func (p *apiParse) geminiResponse(n jwNode) (Message, *ReadError) {
	f, err := n.fields()
	if err != nil {
		return Message{}, asReadError(n, err)
	}
	name, rerr := f.str("name")
	if rerr != nil {
		return Message{}, rerr
	}
	id, _ := f.str("id")
	resp := f.get("response")
	text := string(resp.raw)
	if rf, err := resp.fields(); err == nil && has(rf, "output") && rf.get("output").kind() == '"' {
		if out, rerr := rf.get("output").text(); rerr == nil && len(rf.members) == 1 {
			text = out // Gemini CLI's {"output": text}: the text is what the model reads
		}
	}
	res := &ToolResult{CallID: id, Name: name, Parts: []Part{{Kind: PartText, Text: text, Loc: resp.loc}}}
	return Message{Role: RoleTool, Name: name, ToolCallID: id, Loc: n.loc,
		Parts: []Part{{Kind: PartToolResult, ToolResult: res, Loc: n.loc}}}, nil
}

// geminiRole is the role of a content (user when absent) and the origin of its pictures.
func geminiRole(f jwFields) (Origin, Role, *ReadError) {
	role, rerr := f.str("role")
	if rerr != nil {
		return "", "", rerr
	}
	switch role {
	case "user", "":
		return OriginUser, RoleUser, nil
	case "model":
		return OriginAssistant, RoleAssistant, nil
	}
	return "", "", f.get("role").errorf("unknown content role %q", role)
}
