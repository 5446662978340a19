package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
)

// geminiRequest is what the script reads of a Gemini API generateContent request.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			FunctionCall *struct {
				Name string `json:"name"`
			} `json:"functionCall"`
		} `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		MimeType string          `json:"responseMimeType"`
		Schema   json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
			Schema     json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

// geminiReadTool is Gemini CLI's tool that reads a file.
const geminiReadTool = "read_file"

// geminiStep is the script's next step for a Gemini request, the tool it calls and, for the
// file read, the name of the tool's path parameter.
func geminiStep(req geminiRequest) (step, string, string) {
	var offered []string
	names := toolNames{read: geminiReadTool}
	pathParam := "file_path"
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			offered = append(offered, d.Name)
			if strings.HasSuffix(d.Name, shotTool) {
				names.shot = d.Name
			}
			if d.Name == geminiReadTool {
				pathParam = firstPathParam(d.Parameters, d.Schema, pathParam)
			}
		}
	}
	called := map[string]bool{}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if c.Role == "model" && p.FunctionCall != nil {
				called[p.FunctionCall.Name] = true
			}
		}
	}
	st, tool := nextStep(names, offered, called)
	return st, tool, pathParam
}

// firstPathParam is the first property of a tool's parameter schema whose name holds "path".
func firstPathParam(params, schema json.RawMessage, fallback string) string {
	for _, raw := range []json.RawMessage{params, schema} {
		var s struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		for _, r := range s.Required {
			if strings.Contains(r, "path") {
				return r
			}
		}
	}
	return fallback
}

// gemini answers a Gemini API generateContent request, streamed as server-sent events of
// GenerateContentResponse objects when stream is set.
func (s *modelServer) gemini(w http.ResponseWriter, body []byte, model string, stream bool) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "agentsim: "+err.Error(), http.StatusBadRequest)
		return
	}
	st, tool, pathParam := geminiStep(req)
	var part map[string]any
	switch st {
	case stepShot:
		part = map[string]any{"functionCall": map[string]any{"name": tool, "args": map[string]any{}}}
	case stepRead:
		part = map[string]any{"functionCall": map[string]any{"name": tool, "args": map[string]any{pathParam: s.picture}}}
	default:
		part = map[string]any{"text": answerText}
	}
	if req.GenerationConfig.MimeType == "application/json" {
		// a side query that wants JSON (Gemini CLI's model router): an object of its schema
		var schema any
		_ = json.Unmarshal(req.GenerationConfig.Schema, &schema)
		text, _ := json.Marshal(schemaExample(schema))
		part = map[string]any{"text": string(text)}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": len(body) / 4, "candidatesTokenCount": 12, "totalTokenCount": len(body)/4 + 12},
		"modelVersion":  model,
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	ev := newSSE(w)
	data, _ := json.Marshal(resp)
	fmt.Fprintf(ev.w, "data: %s\n\n", data)
	if f, ok := ev.w.(http.Flusher); ok {
		f.Flush()
	}
}

// geminiModel is the model a Gemini API path names (/v1beta/models/MODEL:method).
func geminiModel(path string) string {
	name, _, _ := strings.Cut(filepath.Base(path), ":")
	return name
}

// schemaExample is a value of a JSON schema (Gemini's upper-case types too): every required
// property of an object, the first of an enum, 1 for a number.
func schemaExample(schema any) any {
	s, _ := schema.(map[string]any)
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := s["type"].(string)
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			out[name] = schemaExample(p)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	return "agentsim"
}
