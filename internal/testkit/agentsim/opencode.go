package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// opencodeModel is the model OpenCode's custom provider offers (the session records its id).
const opencodeModel = "gpt-4.1"

// opencodeExports is the folder, under the home, where the case keeps `opencode export` of
// each session: OpenCode keeps its sessions in a SQLite database, and its export is the JSON
// form a user can hand to strata-eval.
const opencodeExports = "opencode-export"

// opencodeEnv turns off what OpenCode fetches or changes on its own: updates, the models.dev
// list, sharing, plugins and LSP downloads, the reading of Claude Code's files in the home, and
// the npm installs it starts in its config folder (npm offline: they fail at once).
var opencodeEnv = []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1",
	"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
	"OPENCODE_DISABLE_EXTERNAL_SKILLS=1", "OPENCODE_PURE=1", "npm_config_offline=true"}

// setupOpencode writes ~/.config/opencode/opencode.json (a provider of the Chat Completions API
// at base through @ai-sdk/openai-compatible, with one model that takes pictures; the MCP server
// as a local one) and returns the `opencode run` call, every permission granted.
func setupOpencode(c *caseDirs, base string) ([]string, []string, error) {
	dir := filepath.Join(c.home, ".config", "opencode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("opencode config: %w", err)
	}
	model := map[string]any{"name": opencodeModel, "attachment": true, "tool_call": true,
		"modalities": map[string]any{"input": []string{"text", "image"}, "output": []string{"text"}},
		"limit":      map[string]any{"context": 1047576, "output": 32768}}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"model": "agentsim/" + opencodeModel,
		"provider": map[string]any{"agentsim": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "agentsim",
			"options": map[string]any{"baseURL": base + "/v1", "apiKey": "x"},
			"models":  map[string]any{opencodeModel: model}}},
		"mcp": map[string]any{"shots": map[string]any{"type": "local", "command": c.mcp, "enabled": true}},
	}
	if err := writeJSON(filepath.Join(dir, "opencode.json"), cfg); err != nil {
		return nil, nil, err
	}
	return []string{"run", "--auto", prompt}, opencodeEnv, nil
}

// exportOpencode writes `opencode export` of each session OpenCode lists to
// ~/opencode-export/<session id>.json; cmd is the agent's call, whose folder and environment
// the exports run with.
func exportOpencode(ctx context.Context, c *caseDirs, bin string, cmd *exec.Cmd) error {
	run := func(args ...string) ([]byte, error) {
		ex := exec.CommandContext(ctx, bin, args...)
		ex.Dir, ex.Env = cmd.Dir, cmd.Env
		var stderr bytes.Buffer
		ex.Stderr = &stderr
		out, err := ex.Output()
		if err != nil {
			return nil, fmt.Errorf("opencode %s: %w: %s", args[0], err, tail(stderr.String(), 500))
		}
		return out, nil
	}
	list, err := run("session", "list", "--format", "json")
	if err != nil {
		return err
	}
	var sessions []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(list, &sessions); err != nil {
		return fmt.Errorf("opencode session list: %w", err)
	}
	dir := filepath.Join(c.home, opencodeExports)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("opencode exports: %w", err)
	}
	for _, s := range sessions {
		out, err := run("export", s.ID)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, s.ID+".json"), out, 0o644); err != nil {
			return fmt.Errorf("opencode export: %w", err)
		}
	}
	return nil
}
