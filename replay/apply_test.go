package replay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
)

// fxConversation is a conversation with every kind of picture source.
type fxConversation struct {
	conv      *corpora.Conversation
	userB64   string // base64 of a picture pasted by the user (never read)
	headline  []byte // the picture in the Chatbox-style tool string
	toolText  string // that tool string
	userImage []byte // a real image part the user sent
	toolImage []byte // a real image block in an Anthropic-style tool_result
	mcpPic    []byte // an MCP image block
}

func newFxConversation(t testing.TB) fxConversation {
	t.Helper()
	fx := fxConversation{
		headline:  fxPNG(t, 200, 150, true),
		userImage: fxJPEG(t, 32, 24),
		toolImage: fxGIF(t, 20, 10),
		mcpPic:    fxPNG(t, 64, 48, true),
	}
	fx.userB64 = b64(fxPNG(t, 40, 40, true))
	fx.toolText = jsStringify(t, []aiSDKPart{
		{Type: "text", Text: "Captured the chat window"},
		{Type: "image-data", Data: b64(fx.headline), MediaType: "image/png"},
	})
	loc := func(p string) corpora.Location { return corpora.Location{File: "chat.json", Pointer: p} }
	mcpNoPic := &corpora.CallToolResult{Content: []corpora.Block{mcpText(`{"thumb":"data:image/png;base64,` + b64(fx.mcpPic) + `"}`)},
		Loc: loc("/messages/8/result")}
	fx.conv = &corpora.Conversation{ID: "c1", Format: corpora.FormatOpenAIChat, Messages: []corpora.Message{
		{Role: corpora.RoleSystem, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "You are helpful."}}},
		{Role: corpora.RoleUser, Loc: loc("/messages/1"), Parts: []corpora.Part{
			{Kind: corpora.PartText, Text: "Here is base64 I pasted: " + fx.userB64},
			{Kind: corpora.PartImage, Image: &corpora.Image{Data: fx.userImage, DeclaredType: "image/jpeg", Origin: corpora.OriginUser}, Loc: loc("/messages/1/content/1")},
		}},
		{Role: corpora.RoleAssistant, Parts: []corpora.Part{
			{Kind: corpora.PartText, Text: "Echo: " + fx.userB64},
			{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "call_1", Name: "screenshot", Arguments: "{}"}},
		}},
		{Role: corpora.RoleTool, ToolCallID: "call_1", Name: "screenshot", Loc: loc("/messages/3"), Parts: []corpora.Part{
			{Kind: corpora.PartToolResult, ToolResult: &corpora.ToolResult{CallID: "call_1", Text: fx.toolText, IsText: true}, Loc: loc("/messages/3/content")},
		}},
		{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "What does it show?"}}},
		{Role: corpora.RoleAssistant, Parts: []corpora.Part{
			{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "call_2", Name: "look", Arguments: "{}"}},
			{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "call_3", Name: "mcp__img__read_image", Arguments: "{}"}},
			{Kind: corpora.PartToolCall, ToolCall: &corpora.ToolCall{ID: "call_4", Name: "mcp__img__thumb", Arguments: "{}"}},
		}},
		{Role: corpora.RoleTool, ToolCallID: "call_2", Parts: []corpora.Part{
			{Kind: corpora.PartToolResult, ToolResult: &corpora.ToolResult{CallID: "call_2", Parts: []corpora.Part{
				{Kind: corpora.PartText, Text: "inline: data:image/png;base64," + b64(fx.headline)},
				{Kind: corpora.PartImage, Image: &corpora.Image{Data: fx.toolImage, DeclaredType: "image/gif", Origin: corpora.OriginTool}},
			}}},
		}},
		{Role: corpora.RoleTool, ToolCallID: "call_3", Name: "mcp__img__read_image", Parts: []corpora.Part{
			{Kind: corpora.PartToolResult, ToolResult: &corpora.ToolResult{CallID: "call_3", Name: "mcp__img__read_image",
				Text: `[{"type":"text","text":"a.png"},{"type":"image-data","data":"` + b64(fx.mcpPic) + `","mediaType":"image/png"}]`,
				MCP:  &corpora.CallToolResult{Content: []corpora.Block{mcpText("a.png"), mcpImage(fx.mcpPic, "image/png")}, Loc: loc("/messages/7/result")}}},
		}},
		{Role: corpora.RoleTool, ToolCallID: "call_4", Parts: []corpora.Part{
			{Kind: corpora.PartToolResult, ToolResult: &corpora.ToolResult{CallID: "call_4", MCP: mcpNoPic}},
		}},
	}}
	return fx
}

func fxRequest(t testing.TB, fx fxConversation) corpora.Request {
	req, ok := fx.conv.LastRequest()
	if !ok {
		t.Fatal("no request")
	}
	return req
}

func armNamed(t testing.TB, name string) Arm {
	for _, a := range BuiltinArms() {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no arm %s", name)
	return Arm{}
}

// checkResultParts fails when the result holds a part kind the model does not receive.
func checkResultParts(t *testing.T, res *Result) {
	t.Helper()
	for i, m := range res.Messages {
		for j, p := range m.Parts {
			switch p.Kind {
			case corpora.PartText, corpora.PartImage, corpora.PartToolCall, corpora.PartOpaque:
			default:
				t.Errorf("message %d part %d has kind %s", i, j, p.Kind)
			}
		}
	}
}

func outcomesOf(res *Result, msg int) []Outcome {
	var out []Outcome
	for _, p := range res.Pictures {
		if p.MessageIndex == msg {
			out = append(out, p.Outcome)
		}
	}
	return out
}

func TestApplyBefore(t *testing.T) {
	fx := newFxConversation(t)
	req := fxRequest(t, fx)
	res, err := armNamed(t, "before").Apply(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	checkResultParts(t, res)
	msgs := res.Messages
	if len(msgs) != len(req.Messages) {
		t.Fatalf("%d messages, want %d", len(msgs), len(req.Messages))
	}
	// User and assistant text is never read: byte-identical, no copy.
	if !sameString(msgs[1].Parts[0].Text, req.Messages[1].Parts[0].Text) || !sameString(msgs[2].Parts[0].Text, req.Messages[2].Parts[0].Text) {
		t.Error("user or assistant text changed")
	}
	// The tool string reaches the model as text, base64 included.
	if got := msgs[3].Parts; len(got) != 1 || !sameString(got[0].Text, fx.toolText) {
		t.Errorf("tool message 3 = %v", partShape(got))
	}
	if msgs[3].ToolCallID != "call_1" || msgs[3].Name != "screenshot" {
		t.Errorf("tool message lost its call id or name: %q %q", msgs[3].ToolCallID, msgs[3].Name)
	}
	// The MCP picture is a note.
	wantMCP := "a.png\n" + LegacyPictureNote("image/png", int64(len(fx.mcpPic)))
	if got := msgs[7].Parts; len(got) != 1 || got[0].Text != wantMCP {
		t.Errorf("MCP message = %q, want %q", partShape(got), wantMCP)
	}
	// Real image parts pass.
	if got := outcomesOf(res, 1); len(got) != 1 || got[0] != OutcomePassed {
		t.Errorf("user picture outcomes %v", got)
	}
	if got := outcomesOf(res, 3); len(got) != 1 || got[0] != OutcomeText {
		t.Errorf("tool string picture outcomes %v", got)
	}
	if got := outcomesOf(res, 6); len(got) != 2 || got[0] != OutcomeText || got[1] != OutcomePassed {
		t.Errorf("content array outcomes %v", got)
	}
	if got := outcomesOf(res, 7); len(got) != 1 || got[0] != OutcomeNoted {
		t.Errorf("MCP outcomes %v", got)
	}
	if got := outcomesOf(res, 8); len(got) != 1 || got[0] != OutcomeText {
		t.Errorf("MCP without picture blocks: outcomes %v", got)
	}
	for _, p := range res.Pictures {
		if p.SHA256 == "" || p.Width == 0 {
			t.Errorf("record without hash or size: %+v", p)
		}
		if p.SeenByModel != (p.Outcome == OutcomePassed) {
			t.Errorf("seen %v for %s", p.SeenByModel, p.Outcome)
		}
	}
	if len(res.Scans) != 0 {
		t.Errorf("the before arm records scans: %v", res.Scans)
	}
}

func TestApplyAfter(t *testing.T) {
	fx := newFxConversation(t)
	req := fxRequest(t, fx)
	res, err := armNamed(t, "after").Apply(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	checkResultParts(t, res)
	msgs := res.Messages
	if !sameString(msgs[1].Parts[0].Text, req.Messages[1].Parts[0].Text) || !sameString(msgs[2].Parts[0].Text, req.Messages[2].Parts[0].Text) {
		t.Error("user or assistant text changed")
	}
	ph := PicturePlaceholder(MIMEPNG, int64(len(fx.headline)))
	tests := []struct {
		msg  int
		want []string
		outs []Outcome
	}{
		{1, []string{"text:Here is base64 I pasted: " + fx.userB64, "image:image/jpeg:" + FormatCount(int64(len(fx.userImage)))}, []Outcome{OutcomePassed}},
		{3, []string{`text:[{"type":"text","text":"Captured the chat window"},{"type":"image-data","data":"` + ph + `","mediaType":"image/png"}]`,
			"image:image/png:" + FormatCount(int64(len(fx.headline)))}, []Outcome{OutcomeLifted}},
		{6, []string{"text:inline: " + ph, "image:image/png:" + FormatCount(int64(len(fx.headline))),
			"image:image/gif:" + FormatCount(int64(len(fx.toolImage)))}, []Outcome{OutcomeLifted, OutcomePassed}},
		{7, []string{"text:a.png\n", "image:image/png:" + FormatCount(int64(len(fx.mcpPic)))}, []Outcome{OutcomeTaken}},
		{8, []string{`text:{"thumb":"` + PicturePlaceholder(MIMEPNG, int64(len(fx.mcpPic))) + `"}`,
			"image:image/png:" + FormatCount(int64(len(fx.mcpPic)))}, []Outcome{OutcomeLifted}},
	}
	for _, tt := range tests {
		got := partShape(msgs[tt.msg].Parts)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("message %d parts = %.300q\nwant %.300q", tt.msg, got, tt.want)
		}
		outs := outcomesOf(res, tt.msg)
		if len(outs) != len(tt.outs) {
			t.Errorf("message %d outcomes %v, want %v", tt.msg, outs, tt.outs)
			continue
		}
		for i := range outs {
			if outs[i] != tt.outs[i] {
				t.Errorf("message %d outcomes %v, want %v", tt.msg, outs, tt.outs)
			}
		}
	}
	for _, p := range res.Pictures {
		if !p.SeenByModel || p.SHA256 == "" || p.Width == 0 || p.Height == 0 {
			t.Errorf("record %+v", p)
		}
	}
	lifted := res.Pictures[1]
	if lifted.MessageIndex != 3 || lifted.Loc.Pointer != "/messages/3/content" || lifted.Offset == 0 || lifted.Length != len(b64(fx.headline)) {
		t.Errorf("lifted record location %+v", lifted)
	}
	if len(res.Scans) != 4 {
		t.Errorf("scans %+v, want one per tool message", res.Scans)
	}
	if res.Scans[0].MessageIndex != 3 || res.Scans[0].Bytes != len(fx.toolText) || res.Scans[0].Nanos <= 0 {
		t.Errorf("scan of the headline message %+v", res.Scans[0])
	}
	// The request is not modified.
	if req.Messages[3].Parts[0].ToolResult.Text != fx.toolText || req.Messages[3].Parts[0].Kind != corpora.PartToolResult {
		t.Error("the request was modified")
	}
}

func TestApplyDeterministicAcrossTurns(t *testing.T) {
	fx := newFxConversation(t)
	after := armNamed(t, "after")
	var first map[int]string // message index → dump of that message's parts
	for _, req := range fx.conv.Requests() {
		a, err := after.Apply(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := after.Apply(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		da, db := dumpString(t, a), dumpString(t, b)
		if da != db {
			t.Fatalf("request %d: two applications differ", req.Index)
		}
		ja, _ := json.Marshal(a.Pictures)
		jb, _ := json.Marshal(b.Pictures)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("request %d: picture records differ", req.Index)
		}
		// The same message is rendered the same way in every later turn.
		cur := map[int]string{}
		for i, m := range a.Messages {
			cur[i] = strings.Join(partShape(m.Parts), "|")
		}
		for i, s := range first {
			if c, ok := cur[i]; ok && c != s {
				t.Errorf("request %d: message %d rendered differently than in an earlier turn", req.Index, i)
			}
		}
		first = cur
	}
}

// dumpString is the arm's messages in the OpenAI Chat Completions shape (corpora.WriteOpenAIChat).
func dumpString(t *testing.T, res *Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := corpora.WriteOpenAIChat(&buf, res.Messages); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestApplyNoVisionEncoder(t *testing.T) {
	fx := newFxConversation(t)
	arm := Arm{Name: "after-text-only", Settings: Settings{Client: ClientRecorded, Server: ServerLift, NoVisionEncoder: true}}
	res, err := arm.Apply(context.Background(), fxRequest(t, fx))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range res.Messages {
		for _, p := range m.Parts {
			if p.Kind == corpora.PartImage {
				t.Errorf("message %d still carries an image", i)
			}
		}
	}
	if got := res.Messages[3].Parts[0].Text; !strings.Contains(got, `"data":"[image omitted: the model has no vision encoder]"`) {
		t.Errorf("tool text %.200q", got)
	}
	for _, p := range res.Pictures {
		if p.SeenByModel || p.Outcome != OutcomeOmitted {
			t.Errorf("record %s seen %v", p.Outcome, p.SeenByModel)
		}
	}
}

func TestApplyMCPDelivery(t *testing.T) {
	fx := newFxConversation(t)
	req := fxRequest(t, fx)
	for _, tt := range []struct {
		delivery string
		format   corpora.Format
		want     Outcome
	}{
		{"", corpora.FormatOpenAIChat, OutcomeTaken},
		{MCPStructured, corpora.FormatChatbox, OutcomeTaken},
		{MCPStringified, corpora.FormatOpenAIChat, OutcomeLifted},
		{MCPAuto, corpora.FormatChatbox, OutcomeLifted},
		{MCPAuto, corpora.FormatMCPJSONL, OutcomeTaken},
	} {
		fx.conv.Format = tt.format
		res, err := Applier{MCPDelivery: tt.delivery}.Apply(context.Background(), armNamed(t, "after"), req)
		if err != nil {
			t.Fatal(err)
		}
		if got := outcomesOf(res, 7); len(got) != 1 || got[0] != tt.want {
			t.Errorf("delivery %q format %s: %v, want %s", tt.delivery, tt.format, got, tt.want)
		}
	}
	if _, err := (Applier{MCPDelivery: "carrier-pigeon"}).Apply(context.Background(), armNamed(t, "after"), req); err == nil {
		t.Error("an unknown delivery was accepted")
	}
}

func TestApplyGate(t *testing.T) {
	fx := newFxConversation(t)
	req := fxRequest(t, fx)
	agent := armNamed(t, "agent")
	if _, err := agent.Apply(context.Background(), req); err == nil || !strings.Contains(err.Error(), "gate") {
		t.Errorf("a gate arm without a client side: err %v", err)
	}
	called := false
	ap := Applier{ClientSide: func(ctx context.Context, msgs []corpora.Message, s Settings, _ *Catalog) ([]corpora.Message, []PictureRecord, *GateDecision, error) {
		called = true
		out := append([]corpora.Message(nil), msgs...)
		// The gate turns message 3 into a real image part.
		out[3] = corpora.Message{Role: corpora.RoleTool, ToolCallID: "call_1", Parts: []corpora.Part{
			{Kind: corpora.PartText, Text: "attached"},
			{Kind: corpora.PartImage, Image: &corpora.Image{Data: fx.headline, Origin: corpora.OriginTool}},
		}}
		f := describePictureBytes(fx.headline)
		return out, []PictureRecord{{MessageIndex: 3, SHA256: f.sha256, Outcome: OutcomeAttached, SeenByModel: true}},
			&GateDecision{Lane: "native", Mode: "auto", Reason: "test"}, nil
	}}
	res, err := ap.Apply(context.Background(), agent, req)
	if err != nil {
		t.Fatal(err)
	}
	if !called || res.Gate == nil || res.Gate.Lane != "native" {
		t.Fatalf("gate not used: %+v", res.Gate)
	}
	if got := outcomesOf(res, 3); len(got) != 1 || got[0] != OutcomeAttached {
		t.Errorf("message 3 outcomes %v, want the gate's record only", got)
	}
	if got := partShape(res.Messages[3].Parts); len(got) != 2 || got[0] != "text:attached" {
		t.Errorf("message 3 parts %v", got)
	}
}

func TestMergeClientRecords(t *testing.T) {
	client := []PictureRecord{
		{MessageIndex: 2, SHA256: "a", Outcome: OutcomeAttached, SeenByModel: true},
		{MessageIndex: 2, SHA256: "b", Outcome: OutcomeText},
		{MessageIndex: 2, SHA256: "c", Outcome: OutcomeAttached, SeenByModel: true},
	}
	server := []PictureRecord{
		{MessageIndex: 1, SHA256: "u", Outcome: OutcomePassed, SeenByModel: true},
		{MessageIndex: 2, SHA256: "a2", Outcome: OutcomeTaken, SeenByModel: true},
		{MessageIndex: 2, SHA256: "c2", Outcome: OutcomeOmitted, Reason: ReasonNoVisionEncoder},
		{MessageIndex: 2, SHA256: "t", Outcome: OutcomeLifted, Length: 2000, SeenByModel: true},
	}
	got := mergeClientRecords(client, server)
	var summary []string
	for _, r := range got {
		summary = append(summary, r.SHA256+":"+string(r.Outcome))
	}
	want := "a:attached b:text c:omitted u:passed t:lifted"
	if strings.Join(summary, " ") != want {
		t.Errorf("merged %v, want %s", summary, want)
	}
	if got[2].SeenByModel || got[2].Reason != "server: "+ReasonNoVisionEncoder {
		t.Errorf("omitted by the server: %+v", got[2])
	}
}

func TestApplyCancelled(t *testing.T) {
	fx := newFxConversation(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := armNamed(t, "after").Apply(ctx, fxRequest(t, fx)); err == nil {
		t.Error("a cancelled context was ignored")
	}
}

func TestWriteOpenAIChat(t *testing.T) {
	fx := newFxConversation(t)
	res, err := armNamed(t, "after").Apply(context.Background(), fxRequest(t, fx))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Messages []struct {
			Role       string          `json:"role"`
			Name       string          `json:"name"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(dumpString(t, res)), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Messages) != len(res.Messages) {
		t.Fatalf("%d messages", len(doc.Messages))
	}
	if string(doc.Messages[0].Content) != `"You are helpful."` {
		t.Errorf("system content %s", doc.Messages[0].Content)
	}
	if c := doc.Messages[5]; string(c.Content) != "null" || len(c.ToolCalls) != 3 || c.ToolCalls[1].Function.Name != "mcp__img__read_image" {
		t.Errorf("assistant tool calls %+v", c)
	}
	tool := doc.Messages[3]
	if tool.Role != "tool" || tool.ToolCallID != "call_1" {
		t.Errorf("tool message %+v", tool)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(tool.Content, &parts); err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Type != "text" || parts[1].Type != "image_url" {
		t.Fatalf("tool parts %+v", parts)
	}
	data, ok := strings.CutPrefix(parts[1].ImageURL.URL, "data:image/png;base64,")
	if !ok {
		t.Fatalf("url %.60q", parts[1].ImageURL.URL)
	}
	got, err := base64.StdEncoding.DecodeString(data)
	if err != nil || !bytes.Equal(got, fx.headline) {
		t.Errorf("the data URL does not hold the picture (%v)", err)
	}
}
