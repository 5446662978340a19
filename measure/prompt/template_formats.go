package prompt

import (
	"strings"

	"github.com/ardanlabs/jinja"
)

// serverFormat is what llama-server's handler of a chat format (common/chat.cpp and
// common/parsers of the release) does to the messages before the template renders them. The
// server picks the handler by strings of the template's source; a template no handler claims
// renders the messages as they are.
type serverFormat struct {
	name   string
	detect func(src string) bool
	// adjust changes the template's messages (dicts built from req.msgs, in that order).
	adjust func(req *serverRequest, msgs []jinja.Value) []jinja.Value
}

// serverFormats are the handlers that change messages, in the server's order of detection.
var serverFormats = []serverFormat{
	{name: "gpt-oss", detect: containsAll("<|channel|>"), adjust: gptOSSMessages},
}

// formatOf is the handler llama-server picks for a template's source (nil: none).
func formatOf(src string) *serverFormat {
	for i := range serverFormats {
		if serverFormats[i].detect(src) {
			return &serverFormats[i]
		}
	}
	return nil
}

// containsAll detects a source holding every one of subs.
func containsAll(subs ...string) func(string) bool {
	return func(src string) bool {
		for _, s := range subs {
			if !strings.Contains(src, s) {
				return false
			}
		}
		return true
	}
}

// gptOSSMessages: gpt-oss's template reads reasoning as "thinking"; a message with reasoning
// and tool calls loses its content (the template refuses both).
func gptOSSMessages(req *serverRequest, msgs []jinja.Value) []jinja.Value {
	for i, v := range msgs {
		d := v.AsDict()
		reasoning, ok := d.Get("reasoning_content")
		if !ok {
			continue
		}
		if len(req.msgs[i].calls) > 0 {
			deleteKey(d, "content")
		}
		d.Set("thinking", reasoning)
	}
	return msgs
}

// deleteKey removes key from d, the other keys keeping their order.
func deleteKey(d *jinja.Dict, key string) {
	if !d.Has(key) {
		return
	}
	delete(d.Data, key)
	for i, k := range d.Keys {
		if k == key {
			d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
			break
		}
	}
}
