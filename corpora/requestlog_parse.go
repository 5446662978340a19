package corpora

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// This file holds what the request-body formats share when they read one request: the parse
// state (apiParse), images, text, tool declarations, tool-call arguments and content arrays.

// apiParse collects one conversation.
type apiParse struct {
	conv     *Conversation
	problems []*ReadError
	// callNames maps tool call ids to tool names, to name the results (set by nameCall).
	callNames map[string]string
	// resent, when not nil, is what the parse takes from the last line and keeps for the next
	// (resent.go).
	resent *resentParse
}

// note records a reader remark on the conversation.
func (p *apiParse) note(format string, args ...any) {
	p.conv.Notes = append(p.conv.Notes, fmt.Sprintf(format, args...))
}

// opaque keeps a value verbatim: the Part's Text is its raw JSON as recorded.
func apiOpaque(n jwNode) Part {
	return Part{Kind: PartOpaque, Text: string(n.raw), Loc: n.loc}
}

// opaqueNoted keeps a value verbatim and notes why.
func (p *apiParse) opaqueNoted(n jwNode, what string) Part {
	p.note("%s: %s kept opaque (not read)", n.loc.Pointer, what)
	return apiOpaque(n)
}

// imageURL turns an image URL string into a Part: a data URL becomes an image with its bytes
// decoded; anything else a reference that is never fetched. A data URL that does not decode
// is reported as a problem and kept opaque, and the conversation goes on.
func (p *apiParse) imageURL(urlNode jwNode, origin Origin, detail string) (Part, *ReadError) {
	u, rerr := urlNode.textBytes()
	if rerr != nil {
		return Part{}, rerr
	}
	if d, ok := jwParseDataURL(u); ok {
		if l, ok := parseLargeMarker(string(d.Payload)); ok && d.Base64 {
			return p.largeImage(urlNode, l, &Image{DeclaredType: d.MediaType, Origin: origin, Encoding: "data-url", Detail: detail}, "image data URL", "undecodable data URL")
		}
		data, err := d.decode()
		if err != nil {
			p.problems = append(p.problems, urlNode.errorf("image data URL: %v", err))
			return p.opaqueNoted(urlNode, "undecodable data URL"), nil
		}
		img := &Image{Data: data, DeclaredType: d.MediaType, Origin: origin, Encoding: "data-url", Detail: detail}
		return Part{Kind: PartImage, Image: img, Loc: urlNode.loc}, nil
	}
	target := string(u)
	reason := "remote image URL; never fetched"
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		reason = "image URL that is neither a data URL nor http(s); not opened"
	}
	return Part{Kind: PartReference, Ref: &Reference{Kind: "url", Target: target, Origin: origin, Reason: reason}, Loc: urlNode.loc}, nil
}

// base64Image turns a bare base64 field into an image part; bad base64 is reported and kept opaque.
func (p *apiParse) base64Image(dataNode jwNode, mediaType string, origin Origin) (Part, *ReadError) {
	b, rerr := dataNode.textBytes()
	if rerr != nil {
		return Part{}, rerr
	}
	if l, ok := parseLargeMarker(string(b)); ok {
		return p.largeImage(dataNode, l, &Image{DeclaredType: mediaType, Origin: origin, Encoding: "base64"}, "image data", "undecodable base64 image")
	}
	data, err := jwDecodeBase64(b)
	if err != nil {
		p.problems = append(p.problems, dataNode.errorf("image data: %v", err))
		return p.opaqueNoted(dataNode, "undecodable base64 image"), nil
	}
	img := &Image{Data: data, DeclaredType: mediaType, Origin: origin, Encoding: "base64"}
	return Part{Kind: PartImage, Image: img, Loc: dataNode.loc}, nil
}

// largeImage is the image part of a payload streamed past while the line was read (l): img
// with l standing for its bytes, or, when l cannot be decoded, a located problem (what: the
// field) and an opaque part (note).
func (p *apiParse) largeImage(n jwNode, l *LargeBase64, img *Image, what, note string) (Part, *ReadError) {
	if l.Err != "" {
		p.problems = append(p.problems, n.errorf("%s: %s", what, l.Err))
		return p.opaqueNoted(n, note), nil
	}
	img.Large = l
	return Part{Kind: PartImage, Image: img, Loc: n.loc}, nil
}

// apiTextPart returns a text part, or false for an empty string.
func apiTextPart(n jwNode) (Part, bool, *ReadError) {
	s, rerr := n.text()
	if rerr != nil {
		return Part{}, false, rerr
	}
	return Part{Kind: PartText, Text: s, Loc: n.loc}, s != "", nil
}

// apiArguments returns tool-call arguments as JSON text: a string as is, any other JSON
// value compacted (key order kept), null or absent as "".
func apiArguments(n jwNode) (string, *ReadError) {
	switch {
	case n.isNull():
		return "", nil
	case n.kind() == '"':
		return n.text()
	}
	return string(jwCompact(n.raw)), nil
}

// asReadError converts the error of a walk callback back to *ReadError.
func asReadError(n jwNode, err error) *ReadError {
	if err == nil {
		return nil
	}
	var re *ReadError
	if errors.As(err, &re) {
		return re
	}
	return n.errorf("%v", err)
}

// apiToolDef reads name, description and the schema member of a tool declaration.
func apiToolDef(f jwFields, schemaKey string) (ToolDef, *ReadError) {
	var def ToolDef
	var rerr *ReadError
	if def.Name, rerr = f.str("name"); rerr != nil {
		return def, rerr
	}
	if def.Description, rerr = f.str("description"); rerr != nil {
		return def, rerr
	}
	if s, ok := f.has(schemaKey); ok && !s.isNull() {
		def.Parameters = json.RawMessage(s.raw)
	}
	return def, nil
}

// apiToolResultContent fills res from a tool result's recorded value when it is a string, null,
// absent (the result is text) or an array (parts reads it); done is false for any other shape,
// which the caller handles or reports.
func apiToolResultContent(res *ToolResult, v jwNode, parts func() ([]Part, *ReadError)) (done bool, rerr *ReadError) {
	switch v.kind() {
	case '"':
		res.Text, rerr = v.text()
		res.IsText = true
	case 'n', 0:
		res.IsText = true
	case '[':
		res.Parts, rerr = parts()
	default:
		return false, nil
	}
	return true, rerr
}

// messages reads the "messages" array of a request, one message at a time.
func (p *apiParse) messages(f jwFields, message func(jwNode) *ReadError) *ReadError {
	msgs := f.get("messages")
	if msgs.kind() != '[' {
		return msgs.errorf("messages must be an array, found %s", msgs.kindName())
	}
	return p.eachMessage(msgs, message)
}

// apiContentParts reads content that is absent, a string (one text part, none when empty), or
// an array whose elements part reads (keep false drops an element); noun names the elements in
// the error for any other shape. Every API reader's content goes through it.
func apiContentParts(content jwNode, noun string, part func(jwNode) (Part, bool, *ReadError)) ([]Part, *ReadError) {
	switch content.kind() {
	case 0, 'n':
		return []Part{}, nil
	case '"':
		p, nonEmpty, rerr := apiTextPart(content)
		if rerr != nil || !nonEmpty {
			return []Part{}, rerr
		}
		return []Part{p}, nil
	case '[':
	default:
		return nil, content.errorf("content must be a string or an array of %s, found %s", noun, content.kindName())
	}
	parts := []Part{}
	err := content.elements(func(_ int, el jwNode) error {
		p, keep, rerr := part(el)
		if rerr != nil {
			return rerr
		}
		if keep {
			parts = append(parts, p)
		}
		return nil
	})
	return parts, asReadError(content, err)
}
