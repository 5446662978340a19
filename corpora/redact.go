package corpora

import (
	"bytes"
	"strings"
)

// Redacted replaces a credential removed from a URL.
const Redacted = "REDACTED"

// credentialParams are query (or fragment) parameter names whose values are credentials,
// compared in lower case; a name containing one of credentialWords is one too.
var credentialParams = map[string]bool{
	"key": true, "sig": true, "code": true, "auth": true, "pass": true, "pwd": true,
}

var credentialWords = []string{"token", "secret", "password", "signature", "credential", "apikey", "api_key", "api-key", "session", "auth"}

// RedactURL returns a URL named by a recording with its credentials replaced by REDACTED: the
// user information before the host (user:password@) and the values of query and fragment
// parameters named like credentials (access_token, api_key, key, sig, X-Amz-Signature, …).
// Anything that is not an absolute URL with a scheme (data: URLs included) is returned as is.
func RedactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/?#") {
		return s
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		rest = Redacted + rest[at:]
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(scheme)
	b.WriteString("://")
	for len(rest) > 0 {
		i := strings.IndexAny(rest, "?#&")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i+1])
		rest = rest[i+1:]
		end := strings.IndexAny(rest, "&#")
		param := rest
		if end >= 0 {
			param = rest[:end]
		}
		name, _, hasValue := strings.Cut(param, "=")
		if hasValue && isCredentialParam(name) {
			b.WriteString(name)
			b.WriteString("=" + Redacted)
		} else {
			b.WriteString(param)
		}
		rest = rest[len(param):]
	}
	return b.String()
}

func isCredentialParam(name string) bool {
	n := strings.ToLower(name)
	if credentialParams[n] {
		return true
	}
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// redactingEmitter removes credentials from the references of every conversation before
// passing it on, so that no output can show them.
type redactingEmitter struct{ Emitter }

func (r redactingEmitter) Conversation(c *Conversation) error {
	for i := range c.Messages {
		redactParts(c.Messages[i].Parts)
	}
	return r.Emitter.Conversation(c)
}

func redactParts(parts []Part) {
	for i := range parts {
		p := &parts[i]
		if p.Ref != nil && p.Ref.Kind == "url" {
			p.Ref.Target = RedactURL(p.Ref.Target)
		}
		if p.ToolResult != nil {
			redactParts(p.ToolResult.Parts)
		}
	}
}

// RedactText returns s with the credentials of every absolute URL in it replaced as RedactURL
// does (s itself when it names none). A URL runs from its scheme to the first space, quote,
// angle bracket, backslash or closing bracket. Counting uses the text as recorded; this is for
// what is written or printed.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	last, from := 0, 0
	for {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			break
		}
		i += from
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		end := i + 3
		for end < len(s) && !endsURL(s[end]) {
			end++
		}
		from = end
		if start == i || start < last {
			continue
		}
		if u := RedactURL(s[start:end]); u != s[start:end] {
			b.WriteString(s[last:start])
			b.WriteString(u)
			last = end
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func endsURL(c byte) bool {
	return c <= ' ' || strings.IndexByte("\"'<>\\`{}|^])", c) >= 0
}

// RedactMessages returns msgs with credentials in URLs redacted from every text a writer shows:
// text parts, tool-call arguments, tool results (their text, parts and MCP blocks). Messages
// and parts are copied only where something changes; a changed message loses its Raw form, so
// that it is written from its redacted parts. msgs is not modified.
func RedactMessages(msgs []Message) []Message {
	var out []Message
	for i := range msgs {
		parts, changed := redactTextParts(msgs[i].Parts)
		if !changed {
			continue
		}
		if out == nil {
			out = append([]Message(nil), msgs...)
		}
		out[i].Parts, out[i].Raw = parts, nil
	}
	if out == nil {
		return msgs
	}
	return out
}

// redactTextParts redacts the texts of parts; it returns a copy and true when any changed.
func redactTextParts(parts []Part) ([]Part, bool) {
	var out []Part
	set := func(i int, p Part) {
		if out == nil {
			out = append([]Part(nil), parts...)
		}
		out[i] = p
	}
	for i, p := range parts {
		if t := RedactText(p.Text); t != p.Text {
			p.Text = t
			set(i, p)
		}
		if p.ToolCall != nil {
			if a := RedactText(p.ToolCall.Arguments); a != p.ToolCall.Arguments {
				tc := *p.ToolCall
				tc.Arguments = a
				p.ToolCall = &tc
				set(i, p)
			}
		}
		if p.ToolResult != nil {
			if tr, ok := redactToolResult(p.ToolResult); ok {
				p.ToolResult = tr
				set(i, p)
			}
		}
	}
	return out, out != nil
}

func redactToolResult(tr *ToolResult) (*ToolResult, bool) {
	c := *tr
	changed := false
	if t := RedactText(c.Text); t != c.Text {
		c.Text, changed = t, true
	}
	if parts, ok := redactTextParts(c.Parts); ok {
		c.Parts, changed = parts, true
	}
	if c.MCP != nil {
		if m, ok := redactMCP(c.MCP); ok {
			c.MCP, changed = m, true
		}
	}
	return &c, changed
}

func redactMCP(res *CallToolResult) (*CallToolResult, bool) {
	c := *res
	changed := false
	if r, ok := redactRaw(c.StructuredContent); ok {
		c.StructuredContent, changed = r, true
	}
	if r, ok := redactRaw(c.Raw); ok {
		c.Raw, changed = r, true
	}
	var blocks []Block
	for i, b := range c.Content {
		nb, ok := b, false
		if t := RedactText(b.Text); t != b.Text {
			nb.Text, ok = t, true
		}
		if b.Resource != nil && b.Resource.Text != nil {
			if t := RedactText(*b.Resource.Text); t != *b.Resource.Text {
				r := *b.Resource
				r.Text = &t
				nb.Resource, ok = &r, true
			}
		}
		if r, changed := redactRaw(b.Raw); changed {
			nb.Raw, ok = r, true
		}
		if ok {
			if blocks == nil {
				blocks = append([]Block(nil), c.Content...)
			}
			blocks[i] = nb
		}
	}
	if blocks != nil {
		c.Content, changed = blocks, true
	}
	return &c, changed
}

// redactRaw redacts the URLs of a recorded JSON value (without copying one that names none).
func redactRaw(raw []byte) ([]byte, bool) {
	if !bytes.Contains(raw, []byte("://")) {
		return raw, false
	}
	if s := RedactText(string(raw)); s != string(raw) {
		return []byte(s), true
	}
	return raw, false
}
