package corpora

import (
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
