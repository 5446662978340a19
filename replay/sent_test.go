package replay

import (
	"context"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

func TestRecordedArmHandsOnWhatTheClientSent(t *testing.T) {
	text := func(role corpora.Role, s string) corpora.Message {
		return corpora.Message{Role: role, Parts: []corpora.Part{{Kind: corpora.PartText, Text: s}}}
	}
	conv := &corpora.Conversation{
		Messages: []corpora.Message{text(corpora.RoleUser, "shoot"), text(corpora.RoleTool, "the whole result")},
		Sent:     []corpora.Message{text(corpora.RoleUser, "shoot"), text(corpora.RoleTool, "saved to a file")},
	}
	req, _ := conv.LastRequest()
	got := func(arm Arm) string {
		res, err := arm.Apply(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Messages[1].Parts[0].Text
	}
	if s := got(RecordedArm()); s != "saved to a file" {
		t.Errorf("recorded arm: %q, want what the client sent", s)
	}
	if s := got(BuiltinArms()[0]); s != "the whole result" {
		t.Errorf("before arm: %q, want the result as recorded", s)
	}
	conv.Sent = nil
	if s := got(RecordedArm()); s != "the whole result" {
		t.Errorf("recorded arm without a sent version: %q, want the request as recorded", s)
	}
	a := Arm{Name: "mine", Settings: Settings{Client: ClientSent}}
	if err := validateArm(&a, "arms.yaml"); err != nil {
		t.Errorf("an arms file's client %q: %v", ClientSent, err)
	}
}
