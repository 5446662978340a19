package run

import (
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

func TestRecordedUsageBelongsToTheRecordedRequest(t *testing.T) {
	conv := &corpora.Conversation{
		Messages: []corpora.Message{
			{Role: corpora.RoleUser}, {Role: corpora.RoleAssistant}, {Role: corpora.RoleUser}, {Role: corpora.RoleSystem},
		},
		ServerUsage: &corpora.ServerUsage{Status: 200, PromptTokens: 900, CachedTokens: 800, CompletionTokens: 12},
	}
	reqs := conv.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) != 4 {
		t.Fatalf("requests %d, the last of %d messages: want the trailing system message in it", len(reqs), len(reqs[len(reqs)-1].Messages))
	}
	if u := recordedUsage(reqs[0]); u != nil {
		t.Errorf("an earlier request has the recorded usage %+v", u)
	}
	if u := recordedUsage(reqs[1]); u == nil || u.PromptTokens != 900 || u.CachedTokens != 800 || u.CompletionTokens != 12 {
		t.Errorf("the recorded request's usage is %+v", u)
	}
	conv.ServerUsage = nil
	if u := recordedUsage(reqs[1]); u != nil {
		t.Errorf("no recorded usage gave %+v", u)
	}
}
