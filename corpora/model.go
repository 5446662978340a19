// Package corpora reads recorded conversations (Chatbox backups, MCP transcripts, OpenAI and
// Anthropic request logs) into one canonical model, and holds the embedded sample corpus.
//
// It is the ground floor of strata-eval: it imports no other package of the module.
package corpora

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Format names a recorded-conversation format.
type Format string

// The formats strata-eval reads.
const (
	FormatOpenAIChat       Format = "openai-chat"        // OpenAI Chat Completions request bodies
	FormatOpenAIResponses  Format = "openai-responses"   // OpenAI Responses request bodies
	FormatAnthropic        Format = "anthropic"          // Anthropic Messages request bodies
	FormatChatbox          Format = "chatbox"            // Chatbox data backup (chatbox-exported-data-*.json)
	FormatMCPJSONL         Format = "mcp-jsonl"          // MCP stdio transcript: JSON Lines of JSON-RPC frames (optionally prefixed/wrapped)
	FormatMCPInspector     Format = "mcp-inspector"      // MCP Inspector v2 protocol / history / network export
	FormatClaudeDesktopLog Format = "claude-desktop-log" // Claude Desktop mcp.log / mcp-server-NAME.log
	FormatHTTPRR           Format = "httprr"             // langchaingo httprr trace of LLM API calls
	FormatClaudeCode       Format = "claude-code"        // Claude Code session (~/.claude/projects/<project>/<session>.jsonl)
	FormatCodex            Format = "codex"              // Codex CLI rollout ($CODEX_HOME/sessions/…/rollout-*.jsonl)
	FormatGeminiCLI        Format = "gemini-cli"         // Gemini CLI session (~/.gemini/tmp/<project>/chats/session-*.jsonl)
	FormatOpencode         Format = "opencode"           // OpenCode session export (opencode export <sessionID>)
	FormatCline            Format = "cline"              // Cline CLI session messages (~/.cline/data/sessions/<id>/<id>.messages.json)
)

// Role is the author of a message.
type Role string

// Message roles of the canonical model.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Location says where something was found in a recorded file. Zero fields are unknown.
type Location struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`    // 1-based line number
	Offset  int64  `json:"offset,omitempty"`  // byte offset in the file (or in the line when Line is set)
	Pointer string `json:"pointer,omitempty"` // RFC 6901 JSON Pointer inside the document (or the line)
}

// String renders the location as file:line:column at pointer for error messages (the column
// counts bytes from 1; without a line, file:byte N).
func (l Location) String() string {
	var b strings.Builder
	b.WriteString(l.File)
	if l.Line > 0 {
		fmt.Fprintf(&b, ":%d", l.Line)
		if l.Offset > 0 {
			fmt.Fprintf(&b, ":%d", l.Offset+1) // the column, in bytes from 1
		}
	}
	if l.Offset > 0 && l.Line == 0 {
		fmt.Fprintf(&b, ":byte %d", l.Offset)
	}
	if l.Pointer != "" {
		b.WriteString(" at ")
		b.WriteString(l.Pointer)
	}
	return b.String()
}

// Child returns the location of a member of the value at l: token is appended to the
// JSON Pointer with RFC 6901 escaping.
func (l Location) Child(token any) Location {
	s := fmt.Sprint(token)
	s = strings.ReplaceAll(s, "~", "~0")
	s = strings.ReplaceAll(s, "/", "~1")
	l.Pointer += "/" + s
	return l
}

// Conversation is one recorded conversation: a sequence of messages, the tools the client
// declared, and where it came from.
type Conversation struct {
	ID       string    `json:"id"`
	Format   Format    `json:"format"`
	Source   Location  `json:"source"`
	Title    string    `json:"title,omitempty"`
	Model    string    `json:"model,omitempty"`    // the model named by the recording, if any
	Provider string    `json:"provider,omitempty"` // the provider named by the recording, if any
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools,omitempty"`
	// Bytes is the size of the recorded conversation in its file.
	Bytes int64 `json:"bytes"`
	// Expect holds the question and checkable answer of a sample case (nil for user corpora
	// unless a sidecar supplies one).
	Expect *Expectation `json:"expect,omitempty"`
	// Notes are reader remarks that are not errors (skipped frames, lossy records).
	Notes []string `json:"notes,omitempty"`
	// ServerUsage is what the server reported for the request when the recording holds its
	// response too (an httprr trace); nil otherwise.
	ServerUsage *ServerUsage `json:"server_usage,omitempty"`
	// Sent is the conversation as its client sent it, where the recording holds the tool
	// results both as the tools gave them (Messages) and as the client sent them in their
	// place (a Claude Code session: a result spilled to a file, a picture left out). It matches
	// Messages one for one; nil when the two are the same.
	Sent []Message `json:"-"`
}

// ServerUsage is the usage (and llama.cpp timings) a server reported in its response to a
// recorded request: OpenAI's usage.prompt_tokens, Anthropic's and the Responses API's
// input_tokens (Anthropic's cache reads and writes added), from a JSON body or the events of a
// streamed (SSE) one.
type ServerUsage struct {
	Status           int     `json:"status"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens,omitempty"`
	CachedTokens     int     `json:"cached_tokens,omitempty"`
	PromptMS         float64 `json:"prompt_ms,omitempty"`
	PredictedMS      float64 `json:"predicted_ms,omitempty"`
}

// ToolDef is a tool declared to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Expectation is a question with a checkable expected answer, for correctness scorers.
type Expectation struct {
	Question string `json:"question"`
	Scorer   string `json:"scorer"` // exact, normalized, contains, icontains, regex, json, numeric, one-of
	Answer   string `json:"answer"`
}

// Message is one message of a conversation. Parts keep the order of the recording.
type Message struct {
	Role       Role     `json:"role"`
	Name       string   `json:"name,omitempty"`
	ToolCallID string   `json:"tool_call_id,omitempty"` // for RoleTool: the call this message answers
	Parts      []Part   `json:"parts"`
	Loc        Location `json:"loc"`
	// Raw is the message exactly as recorded (a JSON value), when the recording had one,
	// so that an untouched message can be written back byte for byte.
	Raw json.RawMessage `json:"-"`
}

// PartKind says what a Part holds.
type PartKind string

// The part kinds.
const (
	PartText       PartKind = "text"
	PartImage      PartKind = "image"
	PartToolCall   PartKind = "tool_call"
	PartToolResult PartKind = "tool_result"
	PartReference  PartKind = "reference" // content named by the recording but not in the file
	PartOpaque     PartKind = "opaque"    // kept verbatim, never read (thinking signatures, reasoning)
)

// Part is one piece of a message. Exactly one of the pointer fields matches Kind; Text is
// used by PartText and PartOpaque.
type Part struct {
	Kind       PartKind    `json:"kind"`
	Text       string      `json:"text,omitempty"`
	Image      *Image      `json:"image,omitempty"`
	ToolCall   *ToolCall   `json:"tool_call,omitempty"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
	Ref        *Reference  `json:"ref,omitempty"`
	Loc        Location    `json:"loc"`
}

// Origin says who put a picture into the conversation.
type Origin string

// Picture origins.
const (
	OriginUser      Origin = "user"      // a user's attachment
	OriginTool      Origin = "tool"      // a tool's output
	OriginAssistant Origin = "assistant" // produced by the model
)

// Image is a picture whose bytes are in the recording.
type Image struct {
	Data []byte `json:"-"` // decoded bytes
	// Large stands for Data when the base64 was streamed past while reading (over
	// LargeBase64Bytes decoded): Data is then nil.
	Large        *LargeBase64 `json:"large,omitempty"`
	DeclaredType string       `json:"declared_type,omitempty"` // the label the client gave (never trusted)
	Origin       Origin       `json:"origin"`
	// Encoding says how the bytes were carried: "data-url", "base64" (a bare base64 field).
	Encoding string `json:"encoding,omitempty"`
	// Detail is an OpenAI image_url detail setting, if any.
	Detail string `json:"detail,omitempty"`
	// Width and Height are set by the pipeline when known (as the model receives it).
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// ToolCall is a call of a tool made by the assistant.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text as recorded
}

// ToolResult is the result of a tool call. A result is recorded either as a string (Text,
// with Parts nil), as a content array of parts (Parts: text and image parts, as OpenAI content
// arrays, Anthropic tool_result blocks or Responses function_call_output arrays carry them),
// or as a structured MCP CallToolResult (MCP, with Text holding the string a Vercel-AI-SDK
// client such as Chatbox would send for it).
type ToolResult struct {
	CallID  string          `json:"call_id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Text    string          `json:"text,omitempty"`
	IsText  bool            `json:"is_text"` // the recorded result is a plain string
	Parts   []Part          `json:"parts,omitempty"`
	MCP     *CallToolResult `json:"mcp,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	// RPCError holds a JSON-RPC error that answered the call instead of a result.
	RPCError *RPCError `json:"rpc_error,omitempty"`
}

// RPCError is a JSON-RPC 2.0 error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CallToolResult is an MCP tools/call result, any revision from 2024-11-05 on.
type CallToolResult struct {
	Content           []Block         `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	// Meta is the result's _meta object exactly as recorded (key order kept).
	Meta json.RawMessage `json:"_meta,omitempty"`
	// Raw is the whole result exactly as recorded.
	Raw json.RawMessage `json:"-"`
	Loc Location        `json:"loc"`
}

// Block is one MCP content block.
type Block struct {
	Type string `json:"type"` // text, image, audio, resource_link, resource, or unknown
	Text string `json:"text,omitempty"`
	Data string `json:"data,omitempty"` // base64 of image/audio, as recorded
	// Large stands for Data when the base64 was streamed past while reading (over
	// LargeBase64Bytes decoded): Data is then empty.
	Large       *LargeBase64      `json:"large,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"` // resource_link
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        *int64            `json:"size,omitempty"`
	Resource    *EmbeddedResource `json:"resource,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
	// Raw is the block exactly as recorded, for renderings that stringify it.
	Raw json.RawMessage `json:"-"`
	Loc Location        `json:"loc"`
	// PayloadLoc is the location of the base64 payload of an image or audio block (its
	// data) or of a resource's blob; zero for other blocks.
	PayloadLoc Location `json:"payload_loc,omitzero"`
}

// EmbeddedResource is the resource of an MCP `resource` block: text or a base64 blob.
type EmbeddedResource struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	// LargeBlob stands for a blob streamed past while reading (see Block.Large); Blob is then
	// an empty string.
	LargeBlob *LargeBase64 `json:"large_blob,omitempty"`
}

// Reference is content the recording names but does not carry: a Chatbox storageKey, a remote
// URL, a file path. It is reported as unavailable and never opened or fetched.
type Reference struct {
	Kind   string `json:"kind"` // storage-key, url, file
	Target string `json:"target"`
	Origin Origin `json:"origin"`
	Reason string `json:"reason"`
}

// Request is one request as a server receives it: the first N messages of a conversation,
// ending where the model must answer (after a user turn or a run of tool results).
type Request struct {
	Conversation *Conversation
	// Index is the 0-based position of this request among the conversation's requests.
	Index int
	// Messages is the history sent with this request (a prefix of Conversation.Messages).
	Messages []Message
}

// CountImageParts counts the image parts of the messages, inside tool results too.
func CountImageParts(msgs []Message) int {
	n := 0
	var walk func(ps []Part)
	walk = func(ps []Part) {
		for _, p := range ps {
			switch {
			case p.Kind == PartImage && p.Image != nil:
				n++
			case p.Kind == PartToolResult && p.ToolResult != nil:
				walk(p.ToolResult.Parts)
			}
		}
	}
	for _, m := range msgs {
		walk(m.Parts)
	}
	return n
}

// ID is the stable case id of the request: the conversation id and, after "@", the number of
// messages the request carries.
func (r Request) ID() string {
	return fmt.Sprintf("%s@%d", r.Conversation.ID, len(r.Messages))
}

// Requests returns every point of the conversation where the model must answer: after each
// user message and after the last of a run of tool messages, with the system messages that
// follow it (a client may send one after the last turn, as Claude Code does). A conversation
// with none (only system messages, say) yields nothing.
func (c *Conversation) Requests() []Request {
	var out []Request
	for i, m := range c.Messages {
		switch m.Role {
		case RoleUser:
		case RoleTool:
			if i+1 < len(c.Messages) && c.Messages[i+1].Role == RoleTool {
				continue
			}
		default:
			continue
		}
		end := i + 1
		for end < len(c.Messages) && c.Messages[end].Role == RoleSystem {
			end++
		}
		out = append(out, Request{Conversation: c, Index: len(out), Messages: c.Messages[:end]})
	}
	return out
}

// LastRequest returns the last request of the conversation, or false when it has none.
func (c *Conversation) LastRequest() (Request, bool) {
	rs := c.Requests()
	if len(rs) == 0 {
		return Request{}, false
	}
	return rs[len(rs)-1], true
}

// ReadError is an error met while reading a recording, located in its file.
type ReadError struct {
	Loc Location
	Err error
}

func (e *ReadError) Error() string { return fmt.Sprintf("%s: %v", e.Loc, e.Err) }
func (e *ReadError) Unwrap() error { return e.Err }
