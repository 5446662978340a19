package run

import (
	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/results"
)

// recordedUsage is the usage the provider reported for req, where the recording holds it: a
// conversation's usage belongs to the request that carries all its messages (the recorded
// request), not to the earlier ones --turns all replays too.
func recordedUsage(req corpora.Request) *results.RecordedUsage {
	u := req.Conversation.ServerUsage
	if u == nil || u.PromptTokens == 0 || len(req.Messages) != len(req.Conversation.Messages) {
		return nil
	}
	return &results.RecordedUsage{PromptTokens: u.PromptTokens, CachedTokens: u.CachedTokens, CompletionTokens: u.CompletionTokens}
}
