package main

// Chatbox data backup (docs/pipeline.md §11.2): one line of JSON.stringify'd
// key-value store, IndexedDB keys in key order, then the file-backed keys, then the markers.

const chatboxBackupName = "chatbox-exported-data-2026-11-30.json"

// chatboxMessage is a current-shape message: id, role, contentParts, then extra fields.
func chatboxMessage(id, role string, parts arr, extra ...kv) obj {
	return append(obj{{"id", id}, {"role", role}, {"contentParts", parts}}, extra...)
}

func cbText(text string) obj { return obj{{"type", "text"}, {"text", text}} }

// cbToolCall is a tool-call part in state "result" whose result is the raw MCP CallToolResult.
func cbToolCall(id, name string, args obj, content arr) obj {
	return obj{{"type", "tool-call"}, {"state", "result"}, {"toolCallId", id}, {"toolName", name}, {"args", args},
		{"result", obj{{"content", content}, {"isError", false}}}}
}

func mcpTextBlock(text string) obj { return obj{{"type", "text"}, {"text", text}} }

func mcpImageBlock(p payload) obj {
	return obj{{"type", "image"}, {"data", b64blob(p)}, {"mimeType", p.Type}}
}

func chatboxBackup(p *pictures) (sampleFile, error) {
	g := &ids{state: 201}
	sessionID, legacyID := g.uuid(), g.uuid()
	threadID, forkListID := "", ""
	providerID := "custom-provider-" + g.uuid()
	sysID, userID, answerID := g.uuid(), g.uuid(), g.uuid()
	navID, shotID, oldShotID := "call_"+g.alnum(24), "call_"+g.alnum(24), "call_"+g.alnum(24)
	const t0 = int64(1764495600000) // 2026-11-30T09:40:00Z
	shot := picture(p.headline, "base64", "tool", expectMCP)
	oldShot := picture(p.forkJPEG, "base64", "tool", expectMCP)
	assistantExtra := func(ts int64) []kv {
		return []kv{{"timestamp", ts}, {"aiProvider", providerID}, {"model", chatboxModel}, {"generating", false},
			{"usage", obj{{"inputTokens", 1412}, {"outputTokens", 38}, {"totalTokens", 1450}}}, {"finishReason", "stop"}}
	}
	system := chatboxMessage(sysID, "system", arr{cbText("You are a helpful assistant. Answer briefly.")}, kv{"timestamp", t0})
	user := chatboxMessage(userID, "user", arr{cbText("Open the orders page of the shop admin and take a screenshot. What colour is the square under STATUS?")}, kv{"timestamp", t0 + 5000})
	answer := chatboxMessage(answerID, "assistant", arr{
		obj{{"type", "reasoning"}, {"text", "I should open the page, then take a screenshot and look at the square."}, {"startTime", t0 + 5400}, {"duration", 1200}},
		cbToolCall(navID, "mcp__playwright__browser_navigate", obj{{"url", "https://shop.example.test/admin/orders"}},
			arr{mcpTextBlock("### Ran Playwright code\n```js\nawait page.goto('https://shop.example.test/admin/orders');\n```\n\n### Page state\n- Page URL: https://shop.example.test/admin/orders\n- Page Title: Orders - Shop Admin")}),
		cbToolCall(shotID, "mcp__playwright__browser_take_screenshot", obj{},
			arr{mcpTextBlock(headlineCaption), mcpImageBlock(shot)}),
		cbText("The square under STATUS is red."),
	}, assistantExtra(t0+9000)...)
	oldAnswer := chatboxMessage(g.uuid(), "assistant", arr{
		cbToolCall(oldShotID, "mcp__playwright__browser_take_screenshot", obj{{"type", "jpeg"}},
			arr{mcpTextBlock("Captured the viewport as a 640x400 JPEG"), mcpImageBlock(oldShot)}),
		cbText("The square under STATUS is blue."),
	}, assistantExtra(t0+7000)...)
	warmUp := arr{
		chatboxMessage(g.uuid(), "system", arr{cbText("You are a helpful assistant. Answer briefly.")}, kv{"timestamp", t0 - 600000}),
		chatboxMessage(g.uuid(), "user", arr{cbText("Which browser does the Playwright MCP server use by default?")}, kv{"timestamp", t0 - 590000}),
		chatboxMessage(g.uuid(), "assistant", arr{cbText("Chromium, unless you pass --browser.")}, assistantExtra(t0-585000)...),
	}
	threadID, forkListID = g.uuid(), g.uuid()
	session := obj{
		{"id", sessionID},
		{"name", "Shop admin check"},
		{"type", "chat"},
		{"messages", arr{system, user, answer}},
		{"settings", obj{{"provider", providerID}, {"modelId", chatboxModel}, {"temperature", 0.7}, {"maxContextMessageCount", 20}, {"stream", true}}},
		{"threads", arr{obj{{"id", threadID}, {"name", "Warm-up"}, {"messages", warmUp}, {"createdAt", t0 - 580000}}}},
		{"threadName", "Orders screenshot"},
		{"messageForksHash", obj{{userID, obj{
			{"position", 1},
			{"lists", arr{
				obj{{"id", "fork_list_" + forkListID}, {"messages", arr{oldAnswer}}},
				obj{{"id", "fork_list_" + g.uuid()}, {"messages", arr{}}},
			}},
			{"createdAt", t0 + 8000},
		}}}},
	}
	legacy := chatboxLegacySession(g, legacyID) // its ids are drawn after the session's
	backup := chatboxBackupObject(providerID, sessionID, session, legacy)
	return jsonFile(chatboxBackupName, "chatbox", backup, compact, false,
		conversation{Key: chatboxBackupName + "#" + legacyID, Title: "Receipt",
			Expect: expectation{Question: "What is the total on the receipt?", Scorer: "contains", Answer: "12.40"}},
		conversation{Key: chatboxBackupName + "#" + sessionID, Title: "Shop admin check",
			Expect: expectation{Question: "What colour is the square under STATUS in the screenshot?", Scorer: "icontains", Answer: "red"}},
		conversation{Key: chatboxBackupName + "#" + sessionID + "/thread/" + threadID, Title: "Warm-up",
			Expect: expectation{Question: "Which browser does the Playwright MCP server use by default?", Scorer: "icontains", Answer: "chromium"}},
		conversation{Key: chatboxBackupName + "#" + sessionID + "/fork/" + userID + "/0", Title: "Shop admin check (fork)",
			Expect: expectation{Question: "What colour is the square under STATUS in the earlier screenshot?", Scorer: "icontains", Answer: "blue"}},
	)
}

// chatboxLegacySession is the backup's session in the legacy chat-sessions array: string
// contents and pictures by storage key (ids drawn from g).
func chatboxLegacySession(g *ids, legacyID string) obj {
	return obj{
		{"id", legacyID},
		{"name", "Receipt"},
		{"type", "chat"},
		{"messages", arr{
			obj{{"id", g.uuid()}, {"role", "system"}, {"content", "You are a helpful assistant."}, {"timestamp", int64(1717400000000)}},
			obj{{"id", g.uuid()}, {"role", "user"}, {"content", "What is the total on this receipt?"},
				{"pictures", arr{obj{{"storageKey", "picture:input-box:" + g.uuid()}}, obj{{"storageKey", "picture:input-box:" + g.uuid()}}}}, {"timestamp", int64(1717400005000)}},
			obj{{"id", g.uuid()}, {"role", "assistant"}, {"content", "The total on the receipt is 12.40 EUR."}, {"timestamp", int64(1717400009000)},
				{"aiProvider", "openai"}, {"model", "gpt-4o"}, {"wordCount", 8}, {"tokenCount", 11}},
		}},
		{"starred", false},
	}
}

// chatboxBackupObject is the backup around its two sessions: the settings, the session list and
// the other keys a Chatbox export holds.
func chatboxBackupObject(providerID, sessionID string, session, legacy obj) obj {
	return obj{
		{"chat-session-settings", obj{{"provider", providerID}, {"modelId", chatboxModel}, {"temperature", 0.7}, {"maxContextMessageCount", 20}}},
		{"chat-sessions", arr{legacy}},
		{"chat-sessions-list", arr{obj{{"id", sessionID}, {"name", "Shop admin check"}, {"type", "chat"}}}},
		{"myCopilots", arr{}},
		{"session:" + sessionID, session},
		{"configVersion", 14},
		{"settings", obj{
			{"providers", obj{{providerID, obj{{"apiHost", "http://127.0.0.1:8080/v1"}, {"models", arr{obj{{"modelId", chatboxModel}, {"capabilities", arr{"vision", "tool_use"}}}}}}}}},
			{"language", "en"}, {"theme", 1}, {"fontSize", 14}, {"showWordCount", false}, {"autoGenerateTitle", true},
		}},
		{"__exported_items", arr{"setting", "key", "conversations", "copilot"}},
		{"__exported_at", "2026-11-30T09:52:11.480Z"},
	}
}
