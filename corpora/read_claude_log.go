package corpora

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// claudeLogLevels are the level words Claude Desktop writes in brackets.
var claudeLogLevels = map[string]bool{"info": true, "warn": true, "warning": true, "error": true,
	"debug": true, "trace": true, "verbose": true, "fatal": true}

// claudeTruncationMarker is how Claude Desktop shortens a long logged message.
var claudeTruncationMarker = []byte(" chars truncated]")

// sniffClaudeDesktopLog: a Claude Desktop log is named mcp.log or mcp-server-NAME.log, or
// logs messages from client or server, or its first line has the "<timestamp> [x] [y] " prefix.
func sniffClaudeDesktopLog(f fileHead) bool {
	return strings.HasPrefix(f.base, "mcp.log") || strings.HasPrefix(f.base, "mcp-server-") ||
		f.has("Message from client") || f.has("Message from server") || looksLikeClaudeLog(f.trimmed)
}

// looksLikeClaudeLog reports whether the first line has Claude Desktop's
// "<timestamp> [x] [y] " prefix.
func looksLikeClaudeLog(h []byte) bool {
	line, _, _ := bytes.Cut(h, []byte("\n"))
	if len(line) < 26 || line[4] != '-' || line[10] != 'T' {
		return false
	}
	return bytes.Contains(line, []byte("] ["))
}

// readClaudeDesktopLog reads a Claude Desktop MCP log (mcp.log or mcp-server-NAME.log):
// records `<ts> [level] [server] Message from client|server: {…}` (or `[server] [level]`, with
// or without a trailing ` { metadata: undefined }`). Only the JSON value after the marker is
// read. Everything else (other records, raw stderr lines, continuation lines of multi-line
// records, the 2026 summary form without payload, payloads cut by a truncation marker) is
// skipped and counted in the conversation's Notes. One conversation per server with at
// least one answered tools/call; none otherwise.
func readClaudeDesktopLog(ctx context.Context, name string, r io.Reader, e Emitter) error {
	sessions := map[string]*mcpSession{}
	var order []string
	// Skips met before a server's first frame (or on lines naming no server) are counted
	// against the file and reported on every conversation.
	fileSkips := map[string]int{}
	session := func(server string) *mcpSession {
		s, ok := sessions[server]
		if !ok {
			s = newMCPSession(name, name+"#"+server, FormatClaudeDesktopLog)
			s.title = server
			sessions[server] = s
			order = append(order, server)
		}
		return s
	}
	lr := newMCPLineReader(r)
	err := lr.each(ctx, name, e, func(line []byte, loc Location, off int64) {
		if s := claudeLogLine(line, loc, session, fileSkips, e); s != nil {
			s.bytes += lr.offset - off
		}
	})
	if err != nil {
		return err
	}
	for _, server := range order {
		s := sessions[server]
		for k, n := range fileSkips {
			s.skipped[k] += n
		}
		if conv := s.conversation(); conv != nil {
			if err := e.Conversation(conv); err != nil {
				return err
			}
		}
	}
	return nil
}

// claudeLogPrefix reads the `<ts> [a] [b] ` prefix of a record and returns the server name
// and where the text after the prefix starts; ok is false for lines that are not records.
func claudeLogPrefix(line []byte) (server string, rest int, ok bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 8 || !bytes.ContainsAny(line[:sp], "0123456789") || !bytes.Contains(line[:sp], []byte(":")) {
		return "", 0, false
	}
	i := sp + 1
	var tokens []string
	for i < len(line) && line[i] == '[' {
		end := bytes.IndexByte(line[i:], ']')
		if end < 0 {
			break
		}
		tokens = append(tokens, string(line[i+1:i+end]))
		i += end + 1
		for i < len(line) && line[i] == ' ' {
			i++
		}
	}
	if len(tokens) == 0 {
		return "", 0, false
	}
	for _, t := range tokens {
		if !claudeLogLevels[strings.ToLower(t)] {
			return t, i, true
		}
	}
	return "", i, true
}

// claudeLogLine handles one line of a Claude Desktop log and returns the session of the
// server whose MCP message it holds (nil for other lines).
func claudeLogLine(line []byte, loc Location, session func(string) *mcpSession, fileSkips map[string]int, e Emitter) *mcpSession {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	server, rest, ok := claudeLogPrefix(line)
	if !ok {
		fileSkips["lines that are not log records (server stderr, continuation lines)"]++
		return nil
	}
	text := line[rest:]
	var dir mcpDir
	var marker string
	switch {
	case bytes.HasPrefix(text, []byte("Message from client: ")):
		dir, marker = mcpDirFromClient, "Message from client: "
	case bytes.HasPrefix(text, []byte("Message from server: ")):
		dir, marker = mcpDirFromServer, "Message from server: "
	default:
		fileSkips["log records that are not MCP messages"]++
		return nil
	}
	if server == "" {
		server = "mcp"
	}
	s := session(server)
	start := rest + len(marker)
	payload := line[start:]
	if len(payload) == 0 || (payload[0] != '{' && payload[0] != '[') {
		s.skip("records in the summary form without a JSON payload")
		return s
	}
	loc.Offset = int64(start)
	dec := json.NewDecoder(bytes.NewReader(payload))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if bytes.Contains(payload, claudeTruncationMarker) {
			s.skip("messages cut by the log's truncation marker")
			s.note("%s: logged message was truncated by Claude Desktop; skipped", loc)
			return s
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			loc.Offset = int64(start) + se.Offset
		}
		e.Problem(&ReadError{Loc: loc, Err: fmt.Errorf("invalid JSON in logged message: %w", err)})
		return s
	}
	if bytes.Contains(raw, claudeTruncationMarker) {
		s.note("%s: logged message carries a truncation marker; its content is incomplete", loc)
	}
	mcpAddValue(s, raw, loc, dir, false, true, e)
	return s
}
