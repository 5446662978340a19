package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// clineModel is the model Cline is told to use (an Anthropic model id, so the session's model
// picks the hosted family).
const clineModel = "claude-sonnet-4-5"

// setupCline writes Cline's settings under ~/.cline/data/settings (the Anthropic provider with
// its base URL at the scripted server, the MCP server) and returns the one-shot call: act mode,
// every tool approved, JSON output.
func setupCline(c *caseDirs, base string) ([]string, []string, error) {
	dir := filepath.Join(c.home, ".cline", "data", "settings")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("cline settings: %w", err)
	}
	providers := map[string]any{"version": 1, "lastUsedProvider": "anthropic", "modes": map[string]any{},
		"providers": map[string]any{"anthropic": map[string]any{"tokenSource": "manual", "updatedAt": "2026-01-01T00:00:00.000Z",
			"settings": map[string]any{"provider": "anthropic", "apiKey": "x", "model": clineModel, "baseUrl": base + "/v1"}}}}
	if err := writeJSON(filepath.Join(dir, "providers.json"), providers); err != nil {
		return nil, nil, err
	}
	mcp := map[string]any{"mcpServers": map[string]any{"shots": map[string]any{"command": c.mcp[0], "args": c.mcp[1:], "type": "stdio"}}}
	if err := writeJSON(filepath.Join(dir, "cline_mcp_settings.json"), mcp); err != nil {
		return nil, nil, err
	}
	args := []string{"--json", "--auto-approve", "true", prompt}
	env := []string{"CLINE_SESSION_BACKEND_MODE=local", "DISABLE_TELEMETRY=1", "DO_NOT_TRACK=1"}
	return args, env, nil
}

// clineTools are Cline's names of the tools the script calls: an MCP tool is <server>__<tool>.
var clineTools = toolNames{shot: "shots__" + shotTool, read: "read_files"}

// agentToolNames are the tool names of the agent whose Messages request offers offered: Cline's
// when its file tool is offered, else Claude Code's.
func agentToolNames(offered []string) toolNames {
	for _, o := range offered {
		if o == clineTools.read {
			return clineTools
		}
	}
	return claudeTools
}

// readInput is the input of a call of the file tool read that reads picture.
func readInput(read, picture string) map[string]any {
	if read == clineTools.read {
		return map[string]any{"files": []any{map[string]any{"path": picture}}}
	}
	return map[string]any{"file_path": picture}
}
