package corpora

// FlattenToolResults turns tool result parts into the parts a client sends: a string result's
// text (an MCP result's stringified text), or the result's content parts.
func FlattenToolResults(m Message) Message {
	has := false
	for _, p := range m.Parts {
		if p.Kind == PartToolResult {
			has = true
		}
	}
	if !has {
		return m
	}
	out := m
	out.Parts = nil
	for _, p := range m.Parts {
		if p.Kind != PartToolResult || p.ToolResult == nil {
			out.Parts = append(out.Parts, p)
			continue
		}
		r := p.ToolResult
		if out.ToolCallID == "" {
			out.ToolCallID = r.CallID
		}
		switch {
		case len(r.Parts) > 0 && !r.IsText:
			out.Parts = append(out.Parts, r.Parts...)
		case r.Text != "" || r.IsText:
			out.Parts = append(out.Parts, Part{Kind: PartText, Text: r.Text, Loc: p.Loc})
		case r.MCP != nil && len(r.MCP.Raw) > 0:
			out.Parts = append(out.Parts, Part{Kind: PartText, Text: string(r.MCP.Raw), Loc: p.Loc})
		}
	}
	return out
}
