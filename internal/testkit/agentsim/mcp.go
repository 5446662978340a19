package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// shotTool is the name of the MCP server's screenshot tool (the agents add their prefixes).
const shotTool = "screenshot"

// serveMCP runs the MCP server on stdin and stdout until the agent closes it: one tool,
// screenshot, whose result carries the same PNG twice, as base64 inside JSON text (as many
// browser servers return it) and as an image block.
func serveMCP(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	shotBytes := fs.Int("shot-bytes", 24<<10, "size of the screenshot PNG")
	shotWidth := fs.Int("shot-width", 0, "least width of the screenshot PNG")
	if err := fs.Parse(args); err != nil {
		return err
	}
	png, err := screenshot(*shotBytes, *shotWidth, 34)
	if err != nil {
		return err
	}
	result, err := shotResult(png)
	if err != nil {
		return err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "shots", Version: "v1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: shotTool, Description: "Capture a screenshot of the browser page"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return result, nil, nil
		})
	if err := s.Run(ctx, &mcp.StdioTransport{}); err != nil {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}

// screenshot is the PNG the tool returns: a screenshot of exactly size bytes, of the smallest
// of a few sizes (640×400 doubled) at least minWidth wide that reaches it.
func screenshot(size, minWidth int, seed int64) ([]byte, error) {
	err := fmt.Errorf("no size is %d pixels wide", minWidth)
	for w, h := 640, 400; w <= 5120; w, h = w*2, h*2 {
		if w < minWidth {
			continue
		}
		var png []byte
		if png, err = testimages.ScreenshotPNG(w, h, seed, size, testimages.WithText("strata-eval")); err == nil {
			return png, nil
		}
	}
	return nil, fmt.Errorf("screenshot of %d bytes: %w", size, err)
}

// shotResult is the tool's result for png: a JSON text holding it in base64, then an image block.
func shotResult(png []byte) (*mcp.CallToolResult, error) {
	text, err := json.Marshal(map[string]any{
		"page":       "http://localhost:3000/",
		"screenshot": map[string]string{"mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(png)},
	})
	if err != nil {
		return nil, fmt.Errorf("screenshot result: %w", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: string(text)},
		&mcp.ImageContent{Data: png, MIMEType: "image/png"},
	}}, nil
}
