package replay

import "github.com/strata-eval/strata-eval/corpora"

// sentMessages is the request as its client sent it: the same messages of the conversation's
// Sent where the recording holds one (see corpora.Conversation.Sent), else the request.
func sentMessages(req corpora.Request) []corpora.Message {
	c := req.Conversation
	if c == nil || c.Sent == nil || len(c.Sent) != len(c.Messages) || len(req.Messages) > len(c.Sent) {
		return req.Messages
	}
	return c.Sent[:len(req.Messages)]
}
