package replay

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-eval/strata-eval/corpora"
)

// How the server receives an MCP result recorded as a structured CallToolResult.
const (
	// MCPStructured: the server runs MCP itself and receives the blocks (docs/pipeline.md §2.4, §5).
	MCPStructured = "structured"
	// MCPStringified: the client ran MCP and sent the result as the tool message's string
	// (ToolResult.Text, as a Vercel-AI-SDK client such as Chatbox does); docs/pipeline.md §4 applies to it.
	MCPStringified = "stringified"
	// MCPAuto: stringified for recordings of a client that stringifies MCP results
	// (corpora.StringifiesMCP: Chatbox, Cline) and carry the string, structured otherwise.
	MCPAuto = "auto"
)

// ClientSideFunc is the client side of a gate arm (docs/pipeline.md §6–§8): it returns the
// messages as they leave the client, the records of the pictures it handled, and the lane the
// gate took. cat is the arm's parsed catalog (nil: none), shared by every request of the arm.
// It must modify neither msgs nor cat.
type ClientSideFunc func(ctx context.Context, msgs []corpora.Message, s Settings, cat *Catalog) ([]corpora.Message, []PictureRecord, *GateDecision, error)

// Applier applies arms to requests.
type Applier struct {
	// ClientSide runs the client side of arms whose client is "gate"; such an arm fails
	// without it.
	ClientSide ClientSideFunc
	// MCPDelivery says how structured MCP results reach the server: "structured" (the
	// default when empty), "stringified" or "auto".
	MCPDelivery string
	// Pictures remembers picture-check verdicts and picture hashes across the requests the
	// Applier applies (nil: every picture is checked and hashed every time).
	Pictures *PictureMemo
}

// Apply runs the arm on the request with a default Applier (no client-side gate, MCP results
// delivered structured).
func (a Arm) Apply(ctx context.Context, req corpora.Request) (*Result, error) {
	return Applier{}.Apply(ctx, a, req)
}

// Apply runs the arm on the request: the client side (the request as recorded, or the gate),
// then the server side (legacy or lift). The request is not modified. The result holds the
// messages as the server hands them to the model, and a record of every picture met.
func (ap Applier) Apply(ctx context.Context, arm Arm, req corpora.Request) (*Result, error) {
	s := arm.Settings
	res := &Result{Arm: arm.Name}
	msgs := req.Messages
	var clientRecords []PictureRecord
	switch s.Client {
	case ClientRecorded, "":
	case ClientSent:
		msgs = sentMessages(req)
	case ClientGate:
		if ap.ClientSide == nil {
			return nil, fmt.Errorf("arm %s: client side %q needs the gate, and none is wired", arm.Name, s.Client)
		}
		// an arm built in code, never through ParseArms or LoadCatalogs, reads its catalog here
		cat, err := arm.loadCatalog()
		if err != nil {
			return nil, fmt.Errorf("arm %s: client side: %w", arm.Name, err)
		}
		msgs, clientRecords, res.Gate, err = ap.ClientSide(ctx, msgs, s, cat)
		if err != nil {
			return nil, fmt.Errorf("arm %s: client side: %w", arm.Name, err)
		}
	default:
		return nil, fmt.Errorf("arm %s: unknown client side %q (known: recorded, sent, gate)", arm.Name, s.Client)
	}
	var lift bool
	switch s.Server {
	case ServerLegacy:
	case ServerLift:
		lift = true
	case ServerVerbatim: // the messages as they left the client, untouched (Raw kept)
		res.Messages = append([]corpora.Message(nil), msgs...)
		res.Pictures = clientRecords
		return res, nil
	default:
		return nil, fmt.Errorf("arm %s: unknown server side %q (known: legacy, lift, verbatim)", arm.Name, s.Server)
	}
	delivery := ap.MCPDelivery
	switch delivery {
	case "":
		delivery = MCPStructured
	case MCPStructured, MCPStringified, MCPAuto:
	default:
		return nil, fmt.Errorf("arm %s: unknown MCP delivery %q (known: structured, stringified, auto)", arm.Name, delivery)
	}
	if s.Client == ClientGate {
		// The gate's client builds the request itself: its MCP results leave as parts (text,
		// then the attached pictures), never as a client's JSON string.
		delivery = MCPStructured
	}
	w := &armWalk{settings: s, memo: ap.Pictures, lift: lift, delivery: delivery, res: res}
	if req.Conversation != nil {
		w.format = req.Conversation.Format
	}
	res.Messages = make([]corpora.Message, 0, len(msgs))
	for i := range msgs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("arm %s: message %d: %w", arm.Name, i, err)
		}
		m, err := w.message(i, &msgs[i])
		if err != nil {
			return nil, fmt.Errorf("arm %s: message %d (%s): %w", arm.Name, i, msgs[i].Loc, err)
		}
		res.Messages = append(res.Messages, m)
	}
	res.Pictures = mergeClientRecords(clientRecords, res.Pictures)
	return res, nil
}

// mergeClientRecords puts the client side's records first. A picture the client side
// attached reaches the server as an image (an MCP image block or an image part), and the server
// records it again: in each message the server's records of image blocks and parts (not text
// lifts) are paired in order with the client's "attached" records and folded into them — the
// client's record stands, unless the server capped or omitted the picture, whose outcome then
// wins. A "passed" record of bytes the client already recorded in that message is dropped too.
func mergeClientRecords(client, server []PictureRecord) []PictureRecord {
	if len(client) == 0 {
		return server
	}
	out := append([]PictureRecord(nil), client...)
	attached := map[int][]int{} // message index → indexes in out of its attached records, in order
	type key struct {
		msg int
		sha string
	}
	seen := make(map[key]bool, len(client))
	for i, r := range out {
		if r.Outcome == OutcomeAttached {
			attached[r.MessageIndex] = append(attached[r.MessageIndex], i)
		}
		seen[key{r.MessageIndex, r.SHA256}] = true
	}
	for _, r := range server {
		fromImage := r.Length == 0 // text lifts carry the run's length
		switch r.Outcome {
		case OutcomeTaken, OutcomePassed, OutcomeCapped, OutcomeOmitted:
		default:
			fromImage = false
		}
		if q := attached[r.MessageIndex]; fromImage && len(q) > 0 {
			attached[r.MessageIndex] = q[1:]
			if r.Outcome == OutcomeCapped || r.Outcome == OutcomeOmitted {
				c := &out[q[0]]
				c.Outcome, c.SeenByModel, c.Reason = r.Outcome, false, "server: "+r.Reason
			}
			continue
		}
		if r.Outcome == OutcomePassed && r.SHA256 != "" && seen[key{r.MessageIndex, r.SHA256}] {
			continue
		}
		out = append(out, r)
	}
	return out
}

// armWalk carries the server side through the messages of one request.
type armWalk struct {
	settings Settings
	memo     *PictureMemo
	lift     bool
	delivery string
	format   corpora.Format
	res      *Result
}

func (w *armWalk) record(r PictureRecord) { w.res.Pictures = append(w.res.Pictures, r) }

// message renders one message as the server hands it to the model.
func (w *armWalk) message(i int, m *corpora.Message) (corpora.Message, error) {
	out := corpora.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, Loc: m.Loc, Raw: m.Raw}
	isTool := m.Role == corpora.RoleTool
	lifter := w.newLifter()
	var scan rendered
	scanned := false
	parts := make([]corpora.Part, 0, len(m.Parts))
	for j := range m.Parts {
		p := &m.Parts[j]
		switch p.Kind {
		case corpora.PartText:
			if !isTool { // a user's, assistant's or system text is never read
				parts = append(parts, *p)
				continue
			}
			r := w.toolText(p.Text, i, p.Loc, lifter)
			parts = append(parts, r.parts...)
			scan.add(r)
			scanned = true
		case corpora.PartImage:
			parts = append(parts, w.passImage(p, i, m.Role))
		case corpora.PartToolCall, corpora.PartOpaque:
			parts = append(parts, *p)
		case corpora.PartReference:
			w.reference(p, i)
		case corpora.PartToolResult:
			if p.ToolResult == nil {
				return out, fmt.Errorf("part %d: tool result part without a result", j)
			}
			if out.ToolCallID == "" {
				out.ToolCallID = p.ToolResult.CallID
			}
			if out.Name == "" {
				out.Name = p.ToolResult.Name
			}
			r := w.toolResult(p, i, m.Name)
			parts = append(parts, r.parts...)
			scan.add(r)
			scanned = true
		default:
			return out, fmt.Errorf("part %d: unknown part kind %q", j, p.Kind)
		}
	}
	out.Parts = parts
	if scanned && w.lift {
		w.res.Scans = append(w.res.Scans, ScanTiming{MessageIndex: i, Bytes: scan.scanBytes, Nanos: scan.scanNanos})
	}
	return out, nil
}

// rendered is what the server side makes of one tool text or tool result: the parts the model
// receives, the bytes of text scanned and the nanoseconds the scan and lift took.
type rendered struct {
	parts     []corpora.Part
	scanBytes int
	scanNanos int64
}

// add counts another rendering's scan into r (its parts are not taken).
func (r *rendered) add(o rendered) {
	r.scanBytes += o.scanBytes
	r.scanNanos += o.scanNanos
}

// toolText renders one text of a tool (string content or a text part of a content array).
func (w *armWalk) toolText(text string, msgIndex int, loc corpora.Location, lifter *Lifter) rendered {
	if corpora.HasLargeRun(text) {
		return w.toolTextRuns(text, msgIndex, loc, lifter)
	}
	return w.toolTextPlain(text, msgIndex, loc, lifter)
}

// toolTextPlain is toolText for a text that holds no run streamed past while reading.
func (w *armWalk) toolTextPlain(text string, msgIndex int, loc corpora.Location, lifter *Lifter) rendered {
	if !w.lift {
		return rendered{parts: w.legacyToolParts(text, msgIndex, loc)}
	}
	// The scan timing is the scan and the lift; the picture check (a decode of the pixel data,
	// which the server's image encoder does later) is left out.
	t, nanos := lifter.liftTimed(text)
	parts := []corpora.Part{{Kind: corpora.PartText, Text: t.Text, Loc: loc}}
	for _, p := range t.Pictures {
		w.record(textPictureRecord(text, p, msgIndex, loc, w.memo))
		if p.Image != nil {
			parts = append(parts, corpora.Part{Kind: corpora.PartImage, Image: p.Image, Loc: loc})
		}
	}
	return rendered{parts: parts, scanBytes: len(text), scanNanos: nanos}
}

// toolResult flattens a tool result into the tool message's parts.
func (w *armWalk) toolResult(p *corpora.Part, msgIndex int, msgName string) rendered {
	tr := p.ToolResult
	loc := p.Loc
	if tr.MCP != nil {
		opt := MCPRenderOptions{ToolName: tr.Name, Pictures: w.memo}
		if opt.ToolName == "" {
			opt.ToolName = msgName
		}
		stringified := w.delivery == MCPStringified || (w.delivery == MCPAuto && corpora.StringifiesMCP(w.format))
		if stringified && w.streamedPast(tr.MCP, msgIndex) {
			stringified = false
		}
		if !(stringified && tr.Text != "") {
			return w.mcpResult(tr.MCP, opt, msgIndex)
		}
		return w.toolText(tr.Text, msgIndex, loc, w.newLifter())
	}
	if tr.Parts != nil {
		lifter := w.newLifter()
		var out rendered
		for j := range tr.Parts {
			q := &tr.Parts[j]
			switch q.Kind {
			case corpora.PartText:
				r := w.toolText(q.Text, msgIndex, q.Loc, lifter)
				out.parts = append(out.parts, r.parts...)
				out.add(r)
			case corpora.PartImage:
				out.parts = append(out.parts, w.passImage(q, msgIndex, corpora.RoleTool))
			case corpora.PartReference:
				w.reference(q, msgIndex)
			case corpora.PartOpaque:
				out.parts = append(out.parts, *q)
			default:
				// A content array holds text and images; anything else is kept as its text.
				if q.Text != "" {
					out.parts = append(out.parts, corpora.Part{Kind: corpora.PartText, Text: q.Text, Loc: q.Loc})
				}
			}
		}
		return out
	}
	text := tr.Text
	if text == "" && tr.RPCError != nil {
		text = fmt.Sprintf("error %d: %s", tr.RPCError.Code, tr.RPCError.Message)
	}
	return w.toolText(text, msgIndex, loc, w.newLifter())
}

// newLifter returns a Lifter for one result in the after arm (nil in the before arm).
func (w *armWalk) newLifter() *Lifter {
	if !w.lift {
		return nil
	}
	return NewLifter(w.settings).WithPictureMemo(w.memo)
}

// mcpResult renders a structured MCP result. One with picture blocks takes the structured
// path (docs/pipeline.md §5) and its text is not scanned; one without is a plain string, scanned like any
// other tool text (docs/pipeline.md §4.1).
func (w *armWalk) mcpResult(res *corpora.CallToolResult, opt MCPRenderOptions, msgIndex int) rendered {
	if !HasPictureBlocks(res) {
		text := RenderMCPLegacy(res, w.settings, opt).Text()
		return w.toolText(text, msgIndex, res.Loc, w.newLifter())
	}
	if !w.lift {
		return rendered{parts: w.legacyMCPParts(res, opt, msgIndex)}
	}
	start := time.Now()
	r := RenderMCPLift(res, w.settings, opt)
	nanos := time.Since(start).Nanoseconds()
	w.recordMCP(r, msgIndex)
	return rendered{parts: r.Parts, scanNanos: nanos}
}

// streamedPast reports whether an MCP result holds a payload streamed past while reading
// (corpora.LargeBase64): its text cannot be rebuilt to replay a stringified delivery, so the
// result is replayed structured, and each such payload is a located problem saying so.
func (w *armWalk) streamedPast(res *corpora.CallToolResult, msgIndex int) bool {
	found := false
	for i := range res.Content {
		b := &res.Content[i]
		l := b.Large
		if b.Resource != nil && b.Resource.LargeBlob != nil {
			l = b.Resource.LargeBlob
		}
		if l == nil {
			continue
		}
		found = true
		w.record(PictureRecord{Loc: payloadLoc(b, b.Loc), MessageIndex: msgIndex, DeclaredType: b.MimeType, Bytes: int(l.Bytes),
			SHA256: l.SHA256, Outcome: OutcomeOmitted, Problem: true, Source: corpora.OriginTool,
			Reason: fmt.Sprintf("a payload of %s base64 characters was read past, not kept: the result cannot be replayed stringified and is replayed structured", FormatCount(l.Chars))})
	}
	return found
}

// recordMCP records the picture blocks of a rendered MCP result.
func (w *armWalk) recordMCP(r MCPRendering, msgIndex int) {
	for _, p := range r.Pictures {
		rec := PictureRecord{
			Loc:          p.Loc,
			MessageIndex: msgIndex,
			Type:         p.Type,
			DeclaredType: p.DeclaredType,
			Bytes:        int(p.Bytes),
			Outcome:      p.Outcome,
			Reason:       p.Reason,
			Problem:      p.Problem,
			SeenByModel:  p.Outcome == OutcomeTaken,
			Source:       corpora.OriginTool,
		}
		if p.Data != nil {
			var f pictureFacts
			if p.checked.holds(p.Data) {
				f = p.checked.describe() // under the key the picture check hashed
			} else {
				f = w.memo.describeBytes(p.Data)
			}
			rec.SHA256, rec.Width, rec.Height, rec.Data = f.sha256, f.width, f.height, p.Data
		} else if p.Head != nil {
			rec.SHA256 = p.SHA256
			rec.Width, rec.Height, _ = ImageHeaderSize(p.Head)
		}
		w.record(rec)
	}
}

// passImage passes a real image part the client sent, untouched (docs/pipeline.md §3), or omits it
// when the model has no vision encoder.
func (w *armWalk) passImage(p *corpora.Part, msgIndex int, role corpora.Role) corpora.Part {
	rec := PictureRecord{Loc: p.Loc, MessageIndex: msgIndex, Outcome: OutcomePassed, SeenByModel: true}
	switch role {
	case corpora.RoleUser:
		rec.Source = corpora.OriginUser
	case corpora.RoleAssistant:
		rec.Source = corpora.OriginAssistant
	default:
		rec.Source = corpora.OriginTool
	}
	if p.Image == nil {
		rec.Outcome, rec.SeenByModel, rec.Reason = OutcomeOmitted, false, "an image part without an image"
		w.record(rec)
		return corpora.Part{Kind: corpora.PartText, Text: OmittedNote("the image part carries no image"), Loc: p.Loc}
	}
	img := p.Image
	if img.Origin != "" {
		rec.Source = img.Origin
	}
	if img.Large != nil {
		return w.passLargeImage(p, rec)
	}
	pic := w.memo.picture(img.Data) // hashed once for its facts and its check
	f := pic.describe()
	rec.SHA256, rec.Width, rec.Height = f.sha256, f.width, f.height
	if img.Width > 0 && img.Height > 0 {
		rec.Width, rec.Height = img.Width, img.Height
	}
	rec.Type, rec.DeclaredType, rec.Bytes, rec.Data = SniffImage(img.Data), img.DeclaredType, len(img.Data), img.Data
	if w.settings.NoVisionEncoder {
		rec.Outcome, rec.SeenByModel, rec.Reason = OutcomeOmitted, false, ReasonNoVisionEncoder
		w.record(rec)
		return corpora.Part{Kind: corpora.PartText, Text: OmittedNote(ReasonNoVisionEncoder), Loc: p.Loc}
	}
	// The server decodes the picture it is sent: one that fails the picture check is not
	// attached, in either arm.
	info, err := pic.check(PictureLimits{})
	if err != nil {
		rec.Outcome, rec.SeenByModel, rec.Reason, rec.Problem = OutcomeOmitted, false, err.Error(), true
		w.record(rec)
		return corpora.Part{Kind: corpora.PartText, Text: OmittedNote(rec.Reason), Loc: p.Loc}
	}
	w.record(rec)
	if img.Width > 0 && img.Height > 0 {
		return *p
	}
	out := *p
	sized := *img
	sized.Width, sized.Height = info.Width, info.Height
	out.Image = &sized
	return out
}

// reference records content the recording names but does not carry; nothing reaches the
// model for it.
func (w *armWalk) reference(p *corpora.Part, msgIndex int) {
	rec := PictureRecord{Loc: p.Loc, MessageIndex: msgIndex, Outcome: OutcomeOmitted, Reason: "not in the recording"}
	if p.Ref != nil {
		rec.Source = p.Ref.Origin
		rec.Reason = fmt.Sprintf("not in the recording (%s %s)", p.Ref.Kind, p.Ref.Target)
		if p.Ref.Reason != "" {
			rec.Reason += ": " + p.Ref.Reason
		}
	}
	w.record(rec)
}
