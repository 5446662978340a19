package main

import (
	"fmt"
	"strings"
)

// JSON-RPC frames in the key orders docs/pipeline.md §11.4 gives: the TS SDK client
// writes {method, params, jsonrpc, id}; zod-validated readers log {jsonrpc, id, result}.

func rpcRequest(id any, method string, params obj) obj {
	return obj{{"method", method}, {"params", params}, {"jsonrpc", "2.0"}, {"id", id}}
}

func rpcNotification(method string, params obj) obj {
	if params == nil {
		return obj{{"method", method}, {"jsonrpc", "2.0"}}
	}
	return obj{{"method", method}, {"params", params}, {"jsonrpc", "2.0"}}
}

func rpcResult(id any, result obj) obj {
	return obj{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}
}

func rpcError(id any, code int, message string) obj {
	return obj{{"jsonrpc", "2.0"}, {"id", id}, {"error", obj{{"code", code}, {"message", message}}}}
}

func toolsCall(id any, name string, args obj, progressToken any) obj {
	params := obj{{"name", name}, {"arguments", args}}
	if progressToken != nil {
		params = append(params, kv{"_meta", obj{{"progressToken", progressToken}}})
	}
	return rpcRequest(id, "tools/call", params)
}

func initialize(version, client string) obj {
	return rpcRequest(0, "initialize", obj{{"protocolVersion", version}, {"capabilities", obj{}}, {"clientInfo", obj{{"name", client}, {"version", "1.0.0"}}}})
}

func initialized(version, server string) obj {
	return rpcResult(0, obj{{"protocolVersion", version}, {"capabilities", obj{{"tools", obj{{"listChanged", true}}}, {"logging", obj{}}}},
		{"serverInfo", obj{{"name", server}, {"version", "0.4.2"}}}})
}

func schema(props obj, required ...string) obj {
	s := obj{{"type", "object"}, {"properties", props}}
	if len(required) > 0 {
		r := arr{}
		for _, x := range required {
			r = append(r, x)
		}
		s = append(s, kv{"required", r})
	}
	return s
}

func frames(objs ...obj) []line {
	out := make([]line, len(objs))
	for i, o := range objs {
		out[i] = line{doc: o}
	}
	return out
}

// mcpStdio20250618: JSON Lines of a stdio session, revision 2025-06-18, with every block kind.
func mcpStdio20250618(p *pictures) (sampleFile, error) {
	const v = "2025-06-18"
	shot := picture(p.mcpJPEG, "base64", "tool", expectMCP)
	chart := picture(p.chartPNG, "base64", "tool", expectMCP)
	thumb := picture(p.thumbPNG, "base64", "tool", expectMCP)
	thumbCopy := picture(p.thumbPNG, "base64", "tool", expectStructure)
	audio := opaque(wavOf(0.3), "audio/wav", "base64", "tool", expectKeep)
	structured := obj{{"title", "Order 4711 status card"}, {"thumbnail", obj{{"mimeType", "image/png"}, {"data", b64blob(thumbCopy)}}}}
	tools := arr{
		obj{{"name", "take_screenshot"}, {"title", "Take screenshot"}, {"description", "Capture a display as JPEG"}, {"inputSchema", schema(obj{{"display", obj{{"type", "integer"}}}}, "display")}},
		obj{{"name", "render_chart"}, {"description", "Render a chart as an embedded PNG resource"}, {"inputSchema", schema(obj{{"name", obj{{"type", "string"}}}}, "name")}},
		obj{{"name", "status_card"}, {"description", "The status card of an order, as a picture and structured data"}, {"inputSchema", schema(obj{{"order", obj{{"type", "integer"}}}}, "order")},
			{"outputSchema", schema(obj{{"title", obj{{"type", "string"}}}, {"thumbnail", obj{{"type", "object"}}}}, "title")}},
		obj{{"name", "record_audio"}, {"description", "Record a short audio clip"}, {"inputSchema", schema(obj{{"seconds", obj{{"type", "number"}}}})}},
		obj{{"name", "find_file"}, {"description", "Find a file and link to it"}, {"inputSchema", schema(obj{{"name", obj{{"type", "string"}}}}, "name")}},
		obj{{"name", "read_file"}, {"description", "Read a text file"}, {"inputSchema", schema(obj{{"path", obj{{"type", "string"}}}}, "path")}},
	}
	lines := frames(
		initialize(v, "strata-demo-client"),
		initialized(v, "desktop-tools"),
		rpcNotification("notifications/initialized", nil),
		rpcRequest(1, "tools/list", obj{}),
		rpcResult(1, obj{{"tools", tools}}),
		toolsCall(2, "take_screenshot", obj{{"display", 1}}, "shot-2"),
		rpcNotification("notifications/progress", obj{{"progressToken", "shot-2"}, {"progress", 1}, {"total", 2}, {"message", "capturing display 1"}}),
		rpcNotification("notifications/message", obj{{"level", "info"}, {"logger", "desktop-tools"}, {"data", "display 1 captured (320x200)"}}),
		rpcNotification("notifications/progress", obj{{"progressToken", "shot-2"}, {"progress", 2}, {"total", 2}, {"message", "encoding JPEG"}}),
		rpcResult(2, obj{{"content", arr{mcpTextBlock("Screenshot of display 1"), mcpImageBlock(shot)}}, {"isError", false}}),
		toolsCall(3, "render_chart", obj{{"name", "sales-q3"}}, nil),
		rpcResult(3, obj{{"content", arr{mcpTextBlock("Rendered chart sales-q3"),
			obj{{"type", "resource"}, {"resource", obj{{"uri", "chart://sales-q3.png"}, {"mimeType", "image/png"}, {"blob", b64blob(chart)}}}}}}}),
		toolsCall(4, "status_card", obj{{"order", 4711}}, nil),
		rpcResult(4, obj{
			{"content", arr{mcpImageBlock(thumb), obj{{"type", "text"}, {"text", nested{doc: structured}}}}},
			{"structuredContent", structured},
		}),
		toolsCall(5, "record_audio", obj{{"seconds", 0.3}}, nil),
		rpcResult(5, obj{{"content", arr{obj{{"type", "audio"}, {"data", b64blob(audio)}, {"mimeType", "audio/wav"}}}}}),
		toolsCall(6, "find_file", obj{{"name", "receipt.png"}}, nil),
		rpcResult(6, obj{{"content", arr{obj{{"type", "resource_link"}, {"uri", "file:///Users/mia/Pictures/receipt.png"}, {"name", "receipt.png"}, {"mimeType", "image/png"}, {"size", 48213}}}}}),
		toolsCall(7, "read_file", obj{{"path", "/etc/shadow"}}, nil),
		rpcResult(7, obj{{"content", arr{mcpTextBlock("Permission denied: /etc/shadow")}}, {"isError", true}}),
		toolsCall(8, "delete_everything", obj{}, nil),
		rpcError(8, -32602, "Unknown tool: delete_everything"),
	)
	// The status card result carries the thumbnail three times: the image block, the text
	// mirror of structuredContent, and structuredContent. Only the image block is recorded
	// as mcp-picture; the other two as mcp-duplicate.
	return linesFile("mcp-stdio-2025-06-18.jsonl", "mcp-jsonl", lines,
		conversation{Key: "mcp-stdio-2025-06-18.jsonl", Title: "MCP stdio 2025-06-18",
			Expect: expectation{Question: "What colour is the square in the screenshot of display 1?", Scorer: "icontains", Answer: "green"}})
}

// mcpStdio20251125: revision 2025-11-25 (icons on tools and resource links).
func mcpStdio20251125(p *pictures) (sampleFile, error) {
	const v = "2025-11-25"
	lot := picture(p.lotPNG, "base64", "tool", expectMCP)
	icons := arr{obj{{"src", "https://tools.example.test/icons/image.svg"}, {"mimeType", "image/svg+xml"}, {"sizes", arr{"any"}}}}
	lines := frames(
		initialize(v, "strata-demo-client"),
		initialized(v, "image-tools"),
		rpcNotification("notifications/initialized", nil),
		rpcRequest(1, "tools/list", obj{}),
		rpcResult(1, obj{{"tools", arr{obj{{"name", "read_image"}, {"title", "Read image"}, {"description", "Read an image file, resized to fit 640x360"},
			{"inputSchema", schema(obj{{"path", obj{{"type", "string"}}}}, "path")}, {"icons", icons}}}}}),
		toolsCall(2, "read_image", obj{{"path", "/srv/labels/lot.png"}}, nil),
		rpcResult(2, obj{{"content", arr{
			mcpTextBlock("/srv/labels/lot.png (300x100)"),
			mcpImageBlock(lot),
			obj{{"type", "resource_link"}, {"uri", "file:///srv/labels/lot.png"}, {"name", "lot.png"}, {"title", "Original label"}, {"mimeType", "image/png"}, {"icons", icons}},
		}}, {"isError", false}}),
	)
	return linesFile("mcp-stdio-2025-11-25.jsonl", "mcp-jsonl", lines,
		conversation{Key: "mcp-stdio-2025-11-25.jsonl", Title: "MCP stdio 2025-11-25",
			Expect: expectation{Question: "What lot number is shown on the label?", Scorer: "contains", Answer: "58213"}})
}

// mcpStdio20241105: a Python server and client of revision 2024-11-05; the server encodes
// its picture with base64.encodebytes (a newline every 76 characters).
func mcpStdio20241105(p *pictures) (sampleFile, error) {
	const v = "2024-11-05"
	hello := picture(p.helloPNG, "base64-mime-lines", "tool", expectMCP)
	py := func(o obj) obj { return o } // the Python SDK writes {jsonrpc, id, method, params}
	req := func(id int, method string, params obj) obj {
		return py(obj{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}})
	}
	lines := frames(
		req(0, "initialize", obj{{"protocolVersion", v}, {"capabilities", obj{{"sampling", obj{}}}}, {"clientInfo", obj{{"name", "mcp"}, {"version", "0.1.0"}}}}),
		obj{{"jsonrpc", "2.0"}, {"id", 0}, {"result", obj{{"protocolVersion", v}, {"capabilities", obj{{"experimental", obj{}}, {"tools", obj{{"listChanged", false}}}}}, {"serverInfo", obj{{"name", "pillow-tools"}, {"version", "1.2.0"}}}}}},
		obj{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
		req(1, "tools/list", nil),
		obj{{"jsonrpc", "2.0"}, {"id", 1}, {"result", obj{{"tools", arr{obj{{"name", "render_word"}, {"description", "Render a word as a picture"}, {"inputSchema", schema(obj{{"word", obj{{"title", "Word"}, {"type", "string"}}}}, "word")}}}}}}},
		req(2, "tools/call", obj{{"name", "render_word"}, {"arguments", obj{{"word", "hello"}}}}),
		obj{{"jsonrpc", "2.0"}, {"id", 2}, {"result", obj{{"content", arr{
			obj{{"type", "image"}, {"data", blob{text: mimeLines(b64(hello.Data)), notes: []payload{hello}}}, {"mimeType", "image/png"}},
		}}, {"isError", false}}}},
	)
	lines[3].doc = obj{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}
	return linesFile("mcp-stdio-2024-11-05.jsonl", "mcp-jsonl", lines,
		conversation{Key: "mcp-stdio-2024-11-05.jsonl", Title: "MCP stdio 2024-11-05",
			Expect: expectation{Question: "What word is written in the picture?", Scorer: "icontains", Answer: "hello"}})
}

// claudeDesktopLog: a per-server Claude Desktop log, mcp-server-NAME.log, with and without
// the " { metadata: undefined }" suffix and with the server's raw stderr lines.
func claudeDesktopLog(p *pictures) (sampleFile, error) {
	const v = "2025-06-18"
	calc := picture(p.calcPNG, "base64", "tool", expectMCP)
	const suffix = " { metadata: undefined }"
	stamp := func(sec int, ms int) string {
		return fmt.Sprintf("2026-11-30T09:41:%02d.%03dZ [screenshot] [info] ", sec, ms)
	}
	msg := func(sec, ms int, from string, doc obj, withSuffix bool) line {
		l := line{prefix: stamp(sec, ms) + "Message from " + from + ": ", doc: doc}
		if withSuffix {
			l.suffix = suffix
		}
		return l
	}
	lines := []line{
		{prefix: stamp(10, 101) + "Initializing server..." + suffix},
		{prefix: stamp(10, 118) + "Using MCP server command: /usr/local/bin/npx with args and path: {" + suffix},
		{prefix: "  args: [ '-y', '@example/screenshot-mcp@1.3.0', [length]: 2 ],"},
		{prefix: "  paths: [ '/usr/local/bin', '/usr/bin', '/bin', [length]: 3 ]"},
		{prefix: "} %o"},
		{prefix: stamp(10, 120) + "Server started and connected successfully" + suffix},
		msg(10, 122, "client", initialize(v, "claude-ai"), true),
		{prefix: "Screenshot MCP server running on stdio"},
		msg(10, 480, "server", initialized(v, "screenshot"), true),
		msg(10, 482, "client", rpcNotification("notifications/initialized", nil), true),
		msg(10, 490, "client", rpcRequest(1, "tools/list", obj{}), true),
		msg(10, 497, "server", rpcResult(1, obj{{"tools", arr{obj{{"name", "capture_window"}, {"description", "Capture a window by title"}, {"inputSchema", schema(obj{{"window", obj{{"type", "string"}}}}, "window")}}}}}), true),
		msg(31, 2, "client", toolsCall(2, "capture_window", obj{{"window", "Calculator"}}, nil), false),
		{prefix: "[screenshot-mcp] capturing window \"Calculator\" (id 4182)"},
		msg(31, 640, "server", rpcResult(2, obj{{"content", arr{mcpImageBlock(calc)}}}), false),
		{prefix: stamp(59, 903) + "Client transport closed" + suffix},
	}
	return linesFile("mcp-server-screenshot.log", "claude-desktop-log", lines,
		conversation{Key: "mcp-server-screenshot.log#screenshot", Title: "screenshot",
			Expect: expectation{Question: "What number does the calculator display show?", Scorer: "contains", Answer: "1234.5"}})
}

// inspectorExport: an MCP Inspector v2 Protocol export, a pretty-printed array of
// MessageEntry with responses folded into their requests.
func inspectorExport(p *pictures) (sampleFile, error) {
	const v = "2025-06-18"
	g := &ids{state: 301}
	img := picture(p.inspectPNG, "base64", "tool", expectMCP)
	entry := func(ts, direction, origin string, message obj, response obj, duration int) obj {
		e := obj{{"id", g.uuid()}, {"timestamp", ts}, {"direction", direction}, {"origin", origin}, {"message", message}}
		if response != nil {
			e = append(e, kv{"response", response}, kv{"duration", duration})
		}
		return e
	}
	list := arr{
		entry("2026-11-30T09:45:00.120Z", "request", "client",
			rpcRequest(0, "initialize", obj{{"protocolVersion", v}, {"capabilities", obj{{"sampling", obj{}}, {"elicitation", obj{}}, {"roots", obj{{"listChanged", true}}}}}, {"clientInfo", obj{{"name", "inspector-client"}, {"version", "2.3.0"}}}}),
			initialized(v, "mcp-servers/everything"), 41),
		entry("2026-11-30T09:45:00.170Z", "notification", "client", rpcNotification("notifications/initialized", nil), nil, 0),
		entry("2026-11-30T09:45:02.004Z", "request", "client", rpcRequest(1, "tools/list", obj{}),
			rpcResult(1, obj{{"tools", arr{obj{{"name", "get-tiny-image"}, {"title", "Get Tiny Image Tool"}, {"description", "Returns a tiny MCP logo image."}, {"inputSchema", schema(obj{})}}}}}), 12),
		entry("2026-11-30T09:45:05.310Z", "request", "client",
			rpcRequest(2, "tools/call", obj{{"name", "get-tiny-image"}, {"arguments", obj{}}, {"_meta", obj{{"progressToken", 2}}}}),
			rpcResult(2, obj{{"content", arr{
				mcpTextBlock("Here's the image you requested:"),
				mcpImageBlock(img),
				mcpTextBlock("The image above is the MCP logo."),
			}}}), 9),
		entry("2026-11-30T09:45:05.315Z", "notification", "server", rpcNotification("notifications/message", obj{{"level", "info"}, {"logger", "everything"}, {"data", "tiny image sent"}}), nil, 0),
	}
	name := "inspector-protocol-everything-" + strings.ReplaceAll("2026-11-30T09:45:07.000Z", ":", "-") + ".json"
	return jsonFile(name, "mcp-inspector", list, pretty, false,
		conversation{Key: name, Title: "everything",
			Expect: expectation{Question: "What text is shown in the tiny image?", Scorer: "icontains", Answer: "MCP"}})
}
