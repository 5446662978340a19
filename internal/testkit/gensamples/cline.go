package main

// clineSession: a Cline CLI session's messages file of two requests, in the shape Cline 3.0.65
// writes it (<id>.messages.json, indented): the user's text wrapped in <user_input>, each answer
// with its model and metrics, the MCP result as the string Cline made of it (the screenshot as
// base64 inside JSON text and as an image block), the system prompt after the messages.
func clineSession(p *pictures) (sampleFile, error) {
	g := &ids{state: 122}
	const session = "1764495906000_k3f9q"
	toolID := "toolu_01" + g.alnum(22)
	inText := picture(p.portPNG, "base64-in-text", "tool", expectLift)
	block := picture(p.portPNG, "base64", "tool", expectLift)
	answer := func(in int, content arr) obj {
		return obj{{"id", "msg_" + g.alnum(8)}, {"role", "assistant"}, {"content", content}, {"ts", 1764495907000 + in},
			{"modelInfo", obj{{"id", "claude-sonnet-4-5"}, {"provider", "anthropic"}, {"family", "claude-sonnet"}}},
			{"metrics", obj{{"inputTokens", in}, {"outputTokens", 14}, {"cacheReadTokens", 0}, {"cacheWriteTokens", 0}, {"cost", 0.016}}}}
	}
	result := obj{{"content", arr{
		obj{{"type", "text"}, {"text", textBlob(`{"page":"http://localhost:8080/","screenshot":{"mimeType":"image/png","data":"`, inText, `"}}`)}},
		obj{{"type", "image"}, {"data", b64blob(block)}, {"mimeType", "image/png"}},
	}}}
	doc := obj{
		{"version", 1}, {"updated_at", "2026-11-30T09:45:09.000Z"}, {"agent", "lead"}, {"sessionId", session},
		{"origin", obj{{"source", "cli"}, {"mode", "user"}, {"sessionId", session}, {"version", "3.0.65"}}},
		{"messages", arr{
			obj{{"id", g.uuid()}, {"role", "user"}, {"content", arr{obj{{"type", "text"},
				{"text", `<user_input mode="act">Take a screenshot of the dev server page and tell me which port it shows.</user_input>`}}}}, {"ts", 1764495906100}},
			answer(5210, arr{obj{{"type", "tool_use"}, {"id", toolID}, {"name", "browser__screenshot"}, {"input", obj{}}}}),
			obj{{"id", "msg_" + g.alnum(8)}, {"role", "user"}, {"content", arr{obj{{"type", "tool_result"}, {"tool_use_id", toolID},
				{"name", "browser__screenshot"}, {"content", nested{doc: result}}}}}, {"ts", 1764495908000}},
			answer(9120, arr{obj{{"type", "text"}, {"text", "The page shows port 8080."}}}),
		}},
		{"system_prompt", "You are Cline, an AI coding agent. Your primary goal is to assist users with various coding tasks."},
	}
	return jsonFile(session+".messages.json", "cline", doc, pretty, false,
		conversation{Title: "Cline: the first request",
			Expect: expectation{Question: "Which tool do you call to see the dev server page?", Scorer: "icontains", Answer: "screenshot"}},
		conversation{Title: "Cline: the MCP screenshot as JSON text and image block, in the string Cline made of the result",
			Expect: expectation{Question: "Which port does the dev server page show?", Scorer: "contains", Answer: "8080"}})
}
