package main

// Samples of the session files of coding agents, in the shape the real agents write them
// (corpora/testdata/agents holds sessions the agents themselves wrote, by make agent-sessions).

// claudeCodeSession: a Claude Code session of two requests, recorded as Claude Code 2.1.337
// records them: the system prompt and tools once (api-request-shape), the prompt as sent
// (api-request-blob), each request as the messages it keeps of the one before plus those it
// adds (api-request), beside the transcript. The MCP screenshot comes back as base64 inside JSON
// text and as an image block.
func claudeCodeSession(p *pictures) (sampleFile, error) {
	g := &ids{state: 120}
	session, shapeHash, promptHash := g.uuid(), hex64(g), hex64(g)
	callHash, resultHash := hex64(g), hex64(g)
	first, second := g.uuid(), g.uuid()
	toolID := "toolu_01" + g.alnum(22)
	inText := picture(p.portPNG, "base64-in-text", "tool", expectLift)
	block := picture(p.portPNG, "base64", "tool", expectNative)
	const prompt = "Take a screenshot of the dev server page and tell me which port it shows."
	const model = "claude-opus-5-5"
	common := func(o obj) obj {
		return append(o, obj{{"sessionId", session}, {"version", "2.1.337"}, {"cwd", "/home/user/app"}}...)
	}
	usage := func(in int) obj {
		return obj{{"input_tokens", in}, {"cache_read_input_tokens", 0}, {"output_tokens", 24}}
	}
	tools := arr{
		obj{{"name", "Read"}, {"description", "Reads a file from the local filesystem."}, {"input_schema", schema(obj{{"file_path", obj{{"type", "string"}}}}, "file_path")}},
		obj{{"name", "mcp__browser__screenshot"}, {"description", "Capture a screenshot of the browser page"}, {"input_schema", obj{{"type", "object"}, {"properties", obj{}}}}},
	}
	lines := []line{
		{doc: common(obj{{"parentUuid", nil}, {"isSidechain", false}, {"type", "user"}, {"uuid", g.uuid()},
			{"message", obj{{"role", "user"}, {"content", prompt}}}})},
		{doc: obj{{"type", "api-request-shape"}, {"sessionId", session}, {"shapeHash", shapeHash},
			{"shape", obj{{"system", arr{obj{{"type", "text"}, {"text", "You are Claude Code, Anthropic's CLI for software engineering tasks."}}}}, {"tools", tools}}}}},
		{doc: obj{{"type", "api-request-blob"}, {"sessionId", session}, {"hash", promptHash},
			{"message", obj{{"role", "user"}, {"content", arr{obj{{"type", "text"}, {"text", prompt}}}}}}}},
		{doc: obj{{"type", "api-request"}, {"sessionId", session}, {"id", first}, {"shapeHash", shapeHash},
			{"params", obj{{"model", model}, {"max_tokens", 32000}}}, {"keep", 0}, {"tail", arr{promptHash}}}},
		{doc: common(obj{{"isSidechain", false}, {"type", "assistant"}, {"uuid", g.uuid()}, {"requestRef", first},
			{"message", obj{{"id", "msg_01" + g.alnum(22)}, {"role", "assistant"}, {"model", model},
				{"content", arr{obj{{"type", "tool_use"}, {"id", toolID}, {"name", "mcp__browser__screenshot"}, {"input", obj{}}}}},
				{"usage", usage(412)}}}})},
		{doc: common(obj{{"isSidechain", false}, {"type", "user"}, {"uuid", g.uuid()},
			{"message", obj{{"role", "user"}, {"content", arr{obj{{"type", "tool_result"}, {"tool_use_id", toolID}, {"content", arr{
				obj{{"type", "text"}, {"text", textBlob(`{"page":"http://localhost:8080/","screenshot":{"mimeType":"image/png","data":"`, inText, `"}}`)}},
				obj{{"type", "image"}, {"source", obj{{"type", "base64"}, {"media_type", "image/png"}, {"data", b64blob(block)}}}},
			}}}}}}}})},
		{doc: obj{{"type", "api-request"}, {"sessionId", session}, {"id", second}, {"base", first}, {"shapeHash", shapeHash},
			{"params", obj{{"model", model}, {"max_tokens", 32000}}}, {"keep", 1}, {"tail", arr{callHash, resultHash}}}},
		{doc: common(obj{{"isSidechain", false}, {"type", "assistant"}, {"uuid", g.uuid()}, {"requestRef", second},
			{"message", obj{{"id", "msg_01" + g.alnum(22)}, {"role", "assistant"}, {"model", model},
				{"content", arr{obj{{"type", "text"}, {"text", "The page shows port 8080."}}}}, {"usage", usage(3118)}}}})},
	}
	name := session + ".jsonl"
	return linesFile(name, "claude-code", lines,
		conversation{Title: "Claude Code: the first request",
			Expect: expectation{Question: "Which tool do you call to see the dev server page?", Scorer: "icontains", Answer: "screenshot"}},
		conversation{Title: "Claude Code: the MCP screenshot as JSON text and image block",
			Expect: expectation{Question: "Which port does the dev server page show?", Scorer: "contains", Answer: "8080"}})
}

// codexRollout: a Codex CLI rollout of two requests, recorded as Codex CLI 0.171.0 records
// them: base instructions in session_meta, Responses items, a token_count event after each
// answer. The MCP result carries the screenshot as base64 inside JSON text and as an
// input_image data URL.
func codexRollout(p *pictures) (sampleFile, error) {
	g := &ids{state: 121}
	session := g.uuid()
	callID := "call_" + g.alnum(24)
	inText := picture(p.buildPNG, "base64-in-text", "tool", expectLift)
	image := picture(p.buildPNG, "data-url", "tool", expectNative)
	count := func(in, out int) obj {
		u := obj{{"input_tokens", in}, {"cached_input_tokens", 0}, {"output_tokens", out}, {"total_tokens", in + out}}
		return obj{{"timestamp", "2026-11-30T09:45:08.000Z"}, {"type", "event_msg"}, {"payload", obj{{"type", "token_count"},
			{"info", obj{{"total_token_usage", u}, {"last_token_usage", u}, {"model_context_window", 258400}}}}}}
	}
	item := func(o obj) obj {
		return obj{{"timestamp", "2026-11-30T09:45:07.000Z"}, {"type", "response_item"}, {"payload", o}}
	}
	lines := []line{
		{doc: obj{{"timestamp", "2026-11-30T09:45:06.000Z"}, {"type", "session_meta"}, {"payload", obj{{"id", session},
			{"cwd", "/home/user/app"}, {"originator", "codex_exec"}, {"cli_version", "0.171.0"}, {"model_provider", "openai"},
			{"base_instructions", obj{{"text", "You are Codex, a coding agent. Be precise, safe, and helpful."}}}}}}},
		{doc: obj{{"timestamp", "2026-11-30T09:45:06.000Z"}, {"type", "turn_context"}, {"payload", obj{{"cwd", "/home/user/app"}, {"model", "gpt-5.5"}}}}},
		{doc: item(obj{{"type", "message"}, {"role", "user"}, {"content", arr{obj{{"type", "input_text"}, {"text", "Open the build page and tell me the build number."}}}}})},
		{doc: item(obj{{"type", "function_call"}, {"name", "screenshot"}, {"namespace", "mcp__browser"}, {"arguments", "{}"}, {"call_id", callID}})},
		{doc: count(3951, 18)},
		{doc: item(obj{{"type", "function_call_output"}, {"call_id", callID}, {"output", arr{
			obj{{"type", "input_text"}, {"text", textBlob(`{"page":"http://localhost:3000/build","screenshot":{"mimeType":"image/png","data":"`, inText, `"}}`)}},
			obj{{"type", "input_image"}, {"image_url", textBlob("", image, "")}},
		}}})},
		{doc: item(obj{{"type", "message"}, {"role", "assistant"}, {"content", arr{obj{{"type", "output_text"}, {"text", "The build page shows build 17."}}}}})},
		{doc: count(6420, 12)},
	}
	return linesFile("rollout-2026-11-30T09-45-06-"+session+".jsonl", "codex", lines,
		conversation{Title: "Codex CLI: the first request",
			Expect: expectation{Question: "Which tool do you call to see the build page?", Scorer: "icontains", Answer: "screenshot"}},
		conversation{Title: "Codex CLI: the MCP screenshot as JSON text and input_image",
			Expect: expectation{Question: "Which build number does the page show?", Scorer: "contains", Answer: "17"}})
}

// hex64 is 64 hex digits, the shape of Claude Code's record hashes.
func hex64(g *ids) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 64)
	for i := range b {
		b[i] = digits[g.next()%16]
	}
	return string(b)
}

// geminiCLISession: a Gemini CLI session of two requests, recorded as Gemini CLI 0.61.0 records
// them: a header, the messages, each model turn with its tool calls and tokens. The MCP result
// carries the screenshot as base64 inside JSON text and as inlineData.
func geminiCLISession(p *pictures) (sampleFile, error) {
	g := &ids{state: 122}
	session := g.uuid()
	callID := "mcp_shots_screenshot_1764495907000_0"
	inText := picture(p.logoPNG, "base64-in-text", "tool", expectLift)
	inline := picture(p.logoPNG, "base64", "tool", expectNative)
	const model = "gemini-3.8-flash"
	tokens := func(in int) obj {
		return obj{{"input", in}, {"output", 14}, {"cached", 0}, {"thoughts", 0}, {"tool", 0}, {"total", in + 14}}
	}
	call := obj{{"id", "mcp_shots_screenshot__" + callID}, {"name", "mcp_shots_screenshot"}, {"args", obj{}}, {"status", "success"}}
	lines := []line{
		{doc: obj{{"sessionId", session}, {"projectHash", hex64(g)}, {"startTime", "2026-11-30T09:45:06.000Z"}, {"lastUpdated", "2026-11-30T09:45:06.000Z"}, {"kind", "main"}}},
		{doc: obj{{"id", g.uuid()}, {"timestamp", "2026-11-30T09:45:06.100Z"}, {"type", "user"},
			{"content", arr{obj{{"text", "Take a screenshot of the app and tell me which version its logo shows."}}}}}},
		{doc: obj{{"id", "turn-1"}, {"timestamp", "2026-11-30T09:45:07.000Z"}, {"type", "gemini"}, {"content", ""}, {"tokens", tokens(3120)}, {"model", model},
			{"toolCalls", arr{call}}}},
		{doc: obj{{"id", g.uuid()}, {"timestamp", "2026-11-30T09:45:07.200Z"}, {"type", "user"}, {"content", arr{
			obj{{"functionResponse", obj{{"id", "mcp_shots_screenshot__" + callID}, {"name", "mcp_shots_screenshot"},
				{"response", obj{{"output", textBlob(`{"page":"http://localhost:5173/","screenshot":{"mimeType":"image/png","data":"`, inText, `"}}`)}}}}}},
			obj{{"inlineData", obj{{"mimeType", "image/png"}, {"data", b64blob(inline)}}}},
		}}}},
		{doc: obj{{"id", "turn-2"}, {"timestamp", "2026-11-30T09:45:08.000Z"}, {"type", "gemini"}, {"content", "The logo shows version 2.4."},
			{"tokens", tokens(4410)}, {"model", model}}},
	}
	return linesFile("session-2026-11-30T09-45-gemini.jsonl", "gemini-cli", lines,
		conversation{Title: "Gemini CLI: the first request",
			Expect: expectation{Question: "Which tool do you call to see the app?", Scorer: "icontains", Answer: "screenshot"}},
		conversation{Title: "Gemini CLI: the MCP screenshot as JSON text and inlineData",
			Expect: expectation{Question: "Which version does the logo show?", Scorer: "contains", Answer: "2.4"}})
}

// opencodeExport: an OpenCode session of two requests, exported as OpenCode 1.18.33's
// `opencode export` writes it: the session's info, then each message with its parts (the
// steps of an answer, a tool call with its output and attachments, the usage of each step). The
// MCP result carries the screenshot as base64 inside JSON text and as an attachment, which
// OpenCode sends to a Chat Completions provider in a user message after the tool's result.
func opencodeExport(p *pictures) (sampleFile, error) {
	g := &ids{state: 123}
	session := "ses_" + g.alnum(26)
	inText := picture(p.logoPNG, "base64-in-text", "tool", expectLift)
	attached := picture(p.logoPNG, "data-url", "tool", expectNative)
	const model = "gpt-4.1"
	tokens := func(in int) obj {
		return obj{{"total", in + 12}, {"input", in}, {"output", 12}, {"reasoning", 0}, {"cache", obj{{"write", 0}, {"read", 0}}}}
	}
	assistant := func(id string, in int, finish string, parts ...obj) obj {
		all := arr{obj{{"type", "step-start"}, {"id", "prt_" + g.alnum(26)}}}
		for _, part := range parts {
			all = append(all, part)
		}
		all = append(all, obj{{"reason", finish}, {"type", "step-finish"}, {"tokens", tokens(in)}, {"cost", 0}})
		return obj{{"info", obj{{"role", "assistant"}, {"modelID", model}, {"providerID", "openai"}, {"tokens", tokens(in)},
			{"finish", finish}, {"id", id}, {"sessionID", session}}}, {"parts", all}}
	}
	callID := "call_" + g.alnum(24)
	tool := obj{{"type", "tool"}, {"tool", "browser_screenshot"}, {"callID", callID}, {"state", obj{{"status", "completed"}, {"input", obj{}},
		{"output", textBlob(`{"page":"http://localhost:5173/","screenshot":{"mimeType":"image/png","data":"`, inText, `"}}`)},
		{"title", ""}, {"attachments", arr{obj{{"type", "file"}, {"mime", "image/png"}, {"url", textBlob("", attached, "")}}}}}}}
	doc := obj{
		{"info", obj{{"id", session}, {"slug", "quiet-harbor"}, {"projectID", "global"}, {"directory", "/home/user/app"},
			{"title", "Logo version"}, {"version", "1.18.33"}, {"model", obj{{"id", model}, {"providerID", "openai"}}}}},
		{"messages", arr{
			obj{{"info", obj{{"role", "user"}, {"id", "msg_" + g.alnum(26)}, {"sessionID", session}}},
				{"parts", arr{obj{{"type", "text"}, {"text", "Take a screenshot of the app and tell me which version its logo shows."}}}}},
			assistant("msg_"+g.alnum(26), 3120, "tool-calls", tool),
			assistant("msg_"+g.alnum(26), 4410, "stop", obj{{"type", "text"}, {"text", "The logo shows version 2.4."}}),
		}},
	}
	return jsonFile(session+".json", "opencode", doc, pretty, true,
		conversation{Title: "OpenCode: the first request",
			Expect: expectation{Question: "Which tool do you call to see the app?", Scorer: "icontains", Answer: "screenshot"}},
		conversation{Title: "OpenCode: the MCP screenshot as JSON text and an attachment",
			Expect: expectation{Question: "Which version does the logo show?", Scorer: "contains", Answer: "2.4"}})
}
