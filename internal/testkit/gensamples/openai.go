package main

import (
	"fmt"
	"strings"
)

// chatboxSystem is the system message Chatbox prepends (note the stray space before
// "Additional").
func chatboxSystem(toolInfo, prompt string) string {
	return "Current model: " + chatboxModel + "\nCurrent date: " + chatboxDate +
		"\n Additional info for this conversation: " + toolInfo + "\n\n" + prompt
}

const chatboxToolInfo = "You can use the tools of the MCP servers the user enabled (playwright). Call a tool when it helps to answer; the results of earlier tool calls are not kept between turns."

// mcpTool is an MCP tool as the AI SDK OpenAI-compatible provider sends it: the server's
// inputSchema with properties defaulted and additionalProperties:false appended.
func mcpTool(name, description string, properties obj, required ...string) obj {
	params := obj{{"type", "object"}, {"properties", properties}}
	if len(required) > 0 {
		req := arr{}
		for _, r := range required {
			req = append(req, r)
		}
		params = append(params, kv{"required", req})
	}
	params = append(params, kv{"additionalProperties", false})
	return obj{{"type", "function"}, {"function", obj{{"name", name}, {"description", description}, {"parameters", params}}}}
}

func playwrightTools() arr {
	return arr{
		mcpTool("mcp__playwright__browser_navigate", "Navigate to a URL",
			obj{{"url", obj{{"type", "string"}, {"description", "The URL to navigate to"}}}}, "url"),
		mcpTool("mcp__playwright__browser_take_screenshot", "Take a screenshot of the current page. You can't perform actions based on the screenshot, use browser_snapshot for actions.",
			obj{
				{"type", obj{{"type", "string"}, {"enum", arr{"png", "jpeg"}}, {"default", "png"}, {"description", "Image format for the screenshot. Default is png."}}},
				{"filename", obj{{"type", "string"}, {"description", "File name to save the screenshot to. Defaults to `page-{timestamp}.{png|jpeg}` if not specified."}}},
				{"fullPage", obj{{"type", "boolean"}, {"description", "When true, takes a screenshot of the full scrollable page, instead of the currently visible viewport."}}},
			}),
		mcpTool("mcp__playwright__browser_snapshot", "Capture accessibility snapshot of the current page, this is better than screenshot", obj{}),
	}
}

func toolCall(id, name, arguments string) obj {
	return obj{{"id", id}, {"type", "function"}, {"function", obj{{"name", name}, {"arguments", arguments}}}}
}

func assistantCalls(calls ...obj) obj {
	list := arr{}
	for _, c := range calls {
		list = append(list, c)
	}
	return obj{{"role", "assistant"}, {"content", ""}, {"tool_calls", list}}
}

func toolMessage(callID string, content any) obj {
	return obj{{"role", "tool"}, {"tool_call_id", callID}, {"content", content}}
}

// chatBody is an OpenAI Chat Completions body in the key order of the AI SDK's getArgs.
func chatBody(model string, messages arr, tools arr) obj {
	body := obj{{"model", model}, {"messages", messages}}
	if len(tools) > 0 {
		body = append(body, kv{"tools", tools}, kv{"tool_choice", "auto"})
	}
	return append(body, kv{"stream", true})
}

// aiSDKText and aiSDKImage are elements of the AI SDK 6 "content" tool output.
func aiSDKText(text any) obj { return obj{{"type", "text"}, {"text", text}} }
func aiSDKImage(p payload) obj {
	return obj{{"type", "image-data"}, {"data", b64blob(p)}, {"mediaType", p.Type}}
}

// openAIHeadline is the headline case: Chatbox 1.20 with a custom OpenAI-compatible provider,
// the Playwright MCP server's screenshot stringified into the tool message.
func openAIHeadline(p *pictures) (sampleFile, error) {
	g := &ids{state: 101}
	navID, shotID := "call_"+g.alnum(24), "call_"+g.alnum(24)
	shot := picture(p.headline, "base64", "tool", expectLift)
	toolContent := arr{aiSDKText(headlineCaption), aiSDKImage(shot)}
	text, _, err := encodeJSON(toolContent, compact)
	if err != nil {
		return sampleFile{}, err
	}
	if len(text) != headlineToolMessage {
		return sampleFile{}, fmt.Errorf("headline tool message is %d characters, want %d (caption %d characters)", len(text), headlineToolMessage, len(headlineCaption))
	}
	messages := arr{
		obj{{"role", "system"}, {"content", chatboxSystem(chatboxToolInfo, "You are a helpful assistant. Answer briefly.")}},
		obj{{"role", "user"}, {"content", "Open the orders page of the shop admin and take a screenshot. What colour is the square under STATUS?"}},
		assistantCalls(toolCall(navID, "mcp__playwright__browser_navigate", `{"url":"https://shop.example.test/admin/orders"}`)),
		toolMessage(navID, nested{doc: arr{aiSDKText("### Ran Playwright code\n```js\nawait page.goto('https://shop.example.test/admin/orders');\n```\n\n### Page state\n- Page URL: https://shop.example.test/admin/orders\n- Page Title: Orders - Shop Admin")}}),
		assistantCalls(toolCall(shotID, "mcp__playwright__browser_take_screenshot", `{}`)),
		toolMessage(shotID, nested{doc: toolContent}),
	}
	return jsonFile("openai-chat-chatbox-screenshot.json", "openai-chat", chatBody(chatboxModel, messages, playwrightTools()), compact, false,
		conversation{Title: "headline: Chatbox screenshot stringified in a tool message",
			Expect: expectation{Question: "What colour is the square under STATUS in the screenshot?", Scorer: "icontains", Answer: "red"}})
}

// openAITinyPNG: a picture whose base64 is under 1024 characters, in a tool message.
func openAITinyPNG(p *pictures) (sampleFile, error) {
	g := &ids{state: 102}
	id := "call_" + g.alnum(24)
	icon := picture(p.tinyPNG, "base64", "tool", expectShort)
	messages := arr{
		obj{{"role", "system"}, {"content", chatboxSystem(chatboxToolInfo, "You are a helpful assistant.")}},
		obj{{"role", "user"}, {"content", "Fetch the favicon of shop.example.test. What colour is it?"}},
		assistantCalls(toolCall(id, "mcp__web__fetch_favicon", `{"site":"shop.example.test"}`)),
		toolMessage(id, nested{doc: arr{aiSDKText("favicon.png (8x8)"), aiSDKImage(icon)}}),
	}
	tools := arr{mcpTool("mcp__web__fetch_favicon", "Download the favicon of a site", obj{{"site", obj{{"type", "string"}}}}, "site")}
	return jsonFile("openai-chat-tiny-png.json", "openai-chat", chatBody(chatboxModel, messages, tools), compact, false,
		conversation{Title: "a picture under the minimum run",
			Expect: expectation{Question: "What colour is the favicon?", Scorer: "icontains", Answer: "blue"}})
}

// openAINotAPicture: long base64 that is not a picture (a gzip file, and random bytes
// labelled image/png) in tool messages.
func openAINotAPicture(p *pictures) (sampleFile, error) {
	g := &ids{state: 103}
	exportID, blobID := "call_"+g.alnum(24), "call_"+g.alnum(24)
	var csv strings.Builder
	csv.WriteString("order_id,customer,total_eur,status\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&csv, "%d,customer-%03d,%d.%02d,%s\n", 4000+i, g.next()%500, 5+g.next()%300, g.next()%100, []string{"paid", "open", "refunded"}[g.next()%3])
	}
	gz := opaque(gzipOf([]byte(csv.String())), "application/gzip", "base64-in-text", "tool", expectKeep)
	random := opaque(g.bytes(3000), "application/octet-stream", "base64", "tool", expectKeep)
	messages := arr{
		obj{{"role", "system"}, {"content", "You are a data assistant."}},
		obj{{"role", "user"}, {"content", "Export the November orders and fetch the cached thumbnail blob. What is the file name of the export?"}},
		assistantCalls(toolCall(exportID, "export_orders", `{"month":"2026-11"}`), toolCall(blobID, "get_cached_blob", `{"key":"thumb:4711"}`)),
		// A Python tool: json.dumps with its default separators.
		toolMessage(exportID, blob{text: `{"filename": "orders-2026-11.csv.gz", "encoding": "base64", "content": "` + b64(gz.Data) + `"}`, notes: []payload{gz}}),
		// The label says image/png; the bytes are not a picture.
		toolMessage(blobID, nested{doc: arr{aiSDKText("cached blob thumb:4711"), obj{{"type", "image-data"}, {"data", b64blob(random)}, {"mediaType", "image/png"}}}}),
	}
	tools := arr{
		mcpTool("export_orders", "Export the orders of a month as gzip'd CSV", obj{{"month", obj{{"type", "string"}}}}, "month"),
		mcpTool("get_cached_blob", "Read a blob from the cache", obj{{"key", obj{{"type", "string"}}}}, "key"),
	}
	return jsonFile("openai-chat-not-a-picture.json", "openai-chat", chatBody("gpt-4.1-mini", messages, tools), compact, false,
		conversation{Title: "base64 that is not a picture",
			Expect: expectation{Question: "What is the file name of the export?", Scorer: "contains", Answer: "orders-2026-11.csv.gz"}})
}

// openAIUserPasted: base64 of a picture pasted by the user into their own message.
func openAIUserPasted(p *pictures) (sampleFile, error) {
	pasted := picture(p.pastedPNG, "base64-in-text", "user", expectUser)
	messages := arr{
		obj{{"role", "system"}, {"content", "You are a helpful assistant."}},
		obj{{"role", "user"}, {"content", textBlob("I pasted a PNG as base64 below. Please do not decode it; just tell me the first eight characters.\n\n", pasted, "\n\nThanks!")}},
	}
	return jsonFile("openai-chat-user-pasted-base64.json", "openai-chat", chatBody("gpt-4.1-mini", messages, nil), compact, false,
		conversation{Title: "base64 pasted by the user",
			Expect: expectation{Question: "What are the first eight characters of the base64 I pasted?", Scorer: "contains", Answer: "iVBORw0K"}})
}

// openAITextOnly: a conversation without pictures, which both arms must leave byte-identical.
func openAITextOnly(p *pictures) (sampleFile, error) {
	g := &ids{state: 104}
	id := "call_" + g.alnum(24)
	messages := arr{
		obj{{"role", "system"}, {"content", chatboxSystem("You can use the tools of the MCP servers the user enabled (weather).", "You are a helpful assistant.")}},
		obj{{"role", "user"}, {"content", "What's the weather in Berlin right now?"}},
		assistantCalls(toolCall(id, "mcp__weather__get_current", `{"city":"Berlin"}`)),
		toolMessage(id, nested{doc: arr{aiSDKText(`{"city":"Berlin","temp_c":4,"conditions":"light rain","wind_kmh":18}`)}}),
	}
	tools := arr{mcpTool("mcp__weather__get_current", "Current weather for a city", obj{{"city", obj{{"type", "string"}}}}, "city")}
	return jsonFile("openai-chat-text-only.json", "openai-chat", chatBody(chatboxModel, messages, tools), compact, false,
		conversation{Title: "text only",
			Expect: expectation{Question: "What are the conditions in Berlin?", Scorer: "icontains", Answer: "rain"}})
}

// openAIAISDK5: the older stringified CallToolResult object (Chatbox 1.14–1.18), and an
// AI SDK 6 embedded resource whose base64 sits two escaping levels deep.
func openAIAISDK5(p *pictures) (sampleFile, error) {
	g := &ids{state: 105}
	squareID, chartID := "call_"+g.alnum(24), "call_"+g.alnum(24)
	square := picture(p.purplePNG, "base64", "tool", expectLift)
	chart := picture(p.resourcePNG, "base64", "tool", expectLift)
	resource := obj{{"type", "resource"}, {"resource", obj{{"uri", "chart://answers/42.png"}, {"mimeType", "image/png"}, {"blob", b64blob(chart)}}}}
	messages := arr{
		obj{{"role", "system"}, {"content", chatboxSystem("You can use the tools of the MCP servers the user enabled (canvas).", "You are a helpful assistant.")}},
		obj{{"role", "user"}, {"content", "Draw the status square, then render the answer chart. What colour is the square, and what number is on the chart?"}},
		assistantCalls(toolCall(squareID, "mcp__canvas__draw_square", `{}`), toolCall(chartID, "mcp__canvas__render_chart", `{"name":"answers"}`)),
		toolMessage(squareID, nested{doc: obj{{"content", arr{
			obj{{"type", "text"}, {"text", "Drew the status square."}},
			obj{{"type", "image"}, {"data", b64blob(square)}, {"mimeType", "image/png"}},
		}}, {"isError", false}}}),
		toolMessage(chartID, nested{doc: arr{aiSDKText(nested{doc: resource})}}),
	}
	tools := arr{
		mcpTool("mcp__canvas__draw_square", "Draw the status square", obj{}),
		mcpTool("mcp__canvas__render_chart", "Render a named chart", obj{{"name", obj{{"type", "string"}}}}, "name"),
	}
	return jsonFile("openai-chat-aisdk5-calltoolresult.json", "openai-chat", chatBody(chatboxModel, messages, tools), compact, false,
		conversation{Title: "stringified CallToolResult and embedded resource",
			Expect: expectation{Question: "What colour is the square?", Scorer: "icontains", Answer: "purple"}})
}

// responsesGIF: an OpenAI Responses request whose function_call_output carries an
// input_image (an animated GIF).
func responsesGIF(p *pictures) (sampleFile, error) {
	g := &ids{state: 106}
	id := "call_" + g.alnum(24)
	gif := picture(p.framesGIF, "data-url", "tool", expectNative)
	body := obj{
		{"model", "gpt-4.1"},
		{"input", arr{
			obj{{"role", "developer"}, {"content", "You are a UI review assistant."}},
			obj{{"role", "user"}, {"content", arr{obj{{"type", "input_text"}, {"text", "Render the countdown animation. Which digit is shown in its first frame?"}}}}},
			obj{{"type", "function_call"}, {"call_id", id}, {"name", "render_animation"}, {"arguments", `{"name":"countdown"}`}},
			obj{{"type", "function_call_output"}, {"call_id", id}, {"output", arr{
				obj{{"type", "input_text"}, {"text", "Rendered countdown.gif (3 frames, 90x60)"}},
				obj{{"type", "input_image"}, {"image_url", textBlob("", gif, "")}},
			}}},
		}},
		{"tools", arr{obj{{"type", "function"}, {"name", "render_animation"}, {"description", "Render a named UI animation as a GIF"},
			{"parameters", obj{{"type", "object"}, {"properties", obj{{"name", obj{{"type", "string"}}}}}, {"required", arr{"name"}}, {"additionalProperties", false}}}, {"strict", true}}}},
		{"tool_choice", "auto"},
		{"stream", true},
	}
	return jsonFile("openai-responses-gif.json", "openai-responses", body, compact, false,
		conversation{Title: "Responses input_image GIF",
			Expect: expectation{Question: "Which digit is shown in the first frame of the animation?", Scorer: "contains", Answer: "3"}})
}

// responsesBMP: a Responses function_call_output whose output is a string holding a data URL
// of a BMP.
func responsesBMP(p *pictures) (sampleFile, error) {
	g := &ids{state: 107}
	id := "call_" + g.alnum(24)
	bmp := picture(p.chartBMP, "data-url", "tool", expectLift)
	body := obj{
		{"model", "gpt-4.1"},
		{"input", arr{
			obj{{"role", "user"}, {"content", arr{obj{{"type", "input_text"}, {"text", "Render the background swatch of the dashboard theme. What colour is it?"}}}}},
			obj{{"type", "function_call"}, {"call_id", id}, {"name", "render_swatch"}, {"arguments", `{"theme":"dashboard"}`}},
			obj{{"type", "function_call_output"}, {"call_id", id}, {"output", textBlob("Swatch rendered (64x48): ", bmp, "")}},
		}},
		{"tools", arr{obj{{"type", "function"}, {"name", "render_swatch"}, {"description", "Render a theme's background swatch"},
			{"parameters", obj{{"type", "object"}, {"properties", obj{{"theme", obj{{"type", "string"}}}}}, {"required", arr{"theme"}}, {"additionalProperties", false}}}, {"strict", true}}}},
	}
	return jsonFile("openai-responses-bmp-dataurl.json", "openai-responses", body, compact, false,
		conversation{Title: "Responses string output with a BMP data URL",
			Expect: expectation{Question: "What colour is the swatch?", Scorer: "icontains", Answer: "yellow"}})
}

// anthropicWebP: an Anthropic Messages request with a thinking block (signature), a
// tool_result with a WebP image block, and a tool_result whose string content is the base64
// of a PNG.
func anthropicWebP(p *pictures) (sampleFile, error) {
	g := &ids{state: 108}
	photoID, codeID := "toolu_01"+g.alnum(22), "toolu_01"+g.alnum(22)
	signature := opaque(g.bytes(1100), "application/octet-stream", "base64", "assistant", expectOpaque)
	webp := picture(p.labelWebP, "base64", "tool", expectNative)
	barcode := picture(p.barcodePNG, "base64", "tool", expectLift)
	body := obj{
		{"model", "claude-sonnet-4-5-20250929"},
		{"max_tokens", 4096},
		{"system", arr{obj{{"type", "text"}, {"text", "You are a warehouse assistant. Answer with the code only."}}}},
		{"messages", arr{
			obj{{"role", "user"}, {"content", "Read the shelf label photo and the lot barcode of shelf B. What shelf code is on the label?"}},
			obj{{"role", "assistant"}, {"content", arr{
				obj{{"type", "thinking"}, {"thinking", "I need the label photo and the barcode render for shelf B; both tools take the shelf letter."}, {"signature", b64blob(signature)}},
				obj{{"type", "tool_use"}, {"id", photoID}, {"name", "get_label_photo"}, {"input", obj{{"shelf", "B"}}}},
				obj{{"type", "tool_use"}, {"id", codeID}, {"name", "render_lot_barcode"}, {"input", obj{{"shelf", "B"}}}},
			}}},
			obj{{"role", "user"}, {"content", arr{
				obj{{"type", "tool_result"}, {"tool_use_id", photoID}, {"content", arr{
					obj{{"type", "text"}, {"text", "Label photo of shelf B"}},
					obj{{"type", "image"}, {"source", obj{{"type", "base64"}, {"media_type", "image/webp"}, {"data", b64blob(webp)}}}},
				}}},
				obj{{"type", "tool_result"}, {"tool_use_id", codeID}, {"content", b64blob(barcode)}},
			}}},
		}},
		{"tools", arr{
			obj{{"name", "get_label_photo"}, {"description", "Photograph the label of a shelf"}, {"input_schema", obj{{"type", "object"}, {"properties", obj{{"shelf", obj{{"type", "string"}}}}}, {"required", arr{"shelf"}}}}},
			obj{{"name", "render_lot_barcode"}, {"description", "Render the lot barcode of a shelf as PNG; returns base64"}, {"input_schema", obj{{"type", "object"}, {"properties", obj{{"shelf", obj{{"type", "string"}}}}}, {"required", arr{"shelf"}}}}},
		}},
		{"thinking", obj{{"type", "enabled"}, {"budget_tokens", 2048}}},
		{"stream", true},
	}
	return jsonFile("anthropic-tool-result-webp.json", "anthropic", body, compact, false,
		conversation{Title: "Anthropic tool_result WebP image block and base64 string",
			Expect: expectation{Question: "What shelf code is on the label?", Scorer: "contains", Answer: "7B"}})
}
