package corpora

import (
	"encoding/json"
	"errors"
	"fmt"
)

// errNoContentArray says a JSON object is not a CallToolResult because it has no content
// array (a task handle, an input_required result, a built-in tool's own result shape).
var errNoContentArray = errors.New("not an MCP CallToolResult: no content array")

// parseCallToolResult parses an MCP tools/call result of any revision from 2024-11-05 to
// 2026-07-28. raw must be a JSON object with a `content` array (errNoContentArray otherwise).
// Blocks of unknown type are kept with Type and Raw; `_meta` and `structuredContent` are kept
// as recorded; a missing `isError` is false. loc is the location of raw; every block gets
// loc + /content/<i>. Base64 payloads are not decoded here. exact says loc.Offset is the
// offset of raw's first byte in its line: blocks and payloads then get their own offsets
// (line:column), up to a payload streamed past, after which the line's bytes have moved.
func parseCallToolResult(raw json.RawMessage, loc Location, exact bool) (*CallToolResult, error) {
	members, err := jsObjectMembers(raw)
	if err != nil {
		return nil, &ReadError{Loc: loc, Err: fmt.Errorf("MCP result: %w", err)}
	}
	res := &CallToolResult{Raw: raw, Loc: loc}
	var content []byte
	for _, m := range members {
		switch m.Key {
		case "content":
			content = m.Value
		case "structuredContent":
			res.StructuredContent = json.RawMessage(m.Value)
		case "isError":
			switch string(m.Value) {
			case "true":
				res.IsError = true
			case "false", "null":
				res.IsError = false
			default:
				return nil, &ReadError{Loc: loc.Child("isError"), Err: fmt.Errorf("isError is %.40s, want a boolean", m.Value)}
			}
		case "_meta":
			res.Meta = json.RawMessage(m.Value)
		}
	}
	if content == nil {
		return nil, &ReadError{Loc: loc, Err: errNoContentArray}
	}
	elems, err := jsArrayElements(content)
	if err != nil {
		return nil, &ReadError{Loc: loc.Child("content"), Err: fmt.Errorf("content is not an array: %w", err)}
	}
	res.Content = make([]Block, 0, len(elems))
	for i, el := range elems {
		bloc := loc.Child("content").Child(i)
		if exact {
			bloc.Offset += int64(jwSubsliceStart(raw, el))
		} else {
			bloc.Offset = 0
		}
		blk, err := parseMCPBlock(el, bloc, exact)
		if err != nil {
			return nil, err
		}
		if blk.Large != nil || (blk.Resource != nil && blk.Resource.LargeBlob != nil) {
			exact = false // the streamed payload's marker is shorter than what was recorded
		}
		res.Content = append(res.Content, blk)
	}
	return res, nil
}

// parseMCPBlock parses one content block; loc is its location (exact as for
// parseCallToolResult).
func parseMCPBlock(raw []byte, loc Location, exact bool) (Block, error) {
	blk := Block{Raw: json.RawMessage(raw), Loc: loc}
	members, err := jsObjectMembers(raw)
	if err != nil {
		return blk, &ReadError{Loc: loc, Err: fmt.Errorf("content block: %w", err)}
	}
	get := func(key string) ([]byte, bool) { return jsMemberValue(members, key) }
	str := func(key string, dst *string) error {
		v, ok := get(key)
		if !ok {
			return nil
		}
		if rerr := decodeStringMember(dst, key, v, loc, ""); rerr != nil {
			return rerr
		}
		return nil
	}
	if err := str("type", &blk.Type); err != nil {
		return blk, err
	}
	if v, ok := get("_meta"); ok {
		blk.Meta = json.RawMessage(v)
	}
	var fields []string
	switch blk.Type {
	case "text":
		fields = []string{"text"}
	case "image", "audio":
		fields = []string{"data", "mimeType"}
	case "resource_link":
		fields = []string{"uri", "name", "title", "description", "mimeType"}
	case "resource":
		// handled below
	default:
		return blk, nil // unknown block: Type and Raw are kept
	}
	targets := map[string]*string{"text": &blk.Text, "data": &blk.Data, "mimeType": &blk.MimeType,
		"uri": &blk.URI, "name": &blk.Name, "title": &blk.Title, "description": &blk.Description}
	for _, f := range fields {
		if err := str(f, targets[f]); err != nil {
			return blk, err
		}
	}
	if blk.Type == "image" || blk.Type == "audio" {
		blk.PayloadLoc = memberLoc(loc, members, "data", exact)
	}
	if l, ok := parseLargeMarker(blk.Data); ok {
		blk.Data, blk.Large = "", l
	}
	if blk.Type == "resource_link" {
		if v, ok := get("size"); ok && string(v) != "null" {
			size, err := parseMCPSize(v, loc)
			if err != nil {
				return blk, err
			}
			blk.Size = &size
		}
	}
	if blk.Type == "resource" {
		return blk, parseMCPResourceBlock(&blk, members, loc, exact)
	}
	return blk, nil
}

// parseMCPSize reads the size of the resource link at loc: a JSON number, a fraction cut to an
// integer.
func parseMCPSize(v []byte, loc Location) (int64, error) {
	var n json.Number
	if err := json.Unmarshal(v, &n); err != nil {
		return 0, &ReadError{Loc: loc.Child("size"), Err: errors.New("size is not a number")}
	}
	size, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil {
			return 0, &ReadError{Loc: loc.Child("size"), Err: fmt.Errorf("size %s: %w", n, err)}
		}
		size = int64(f)
	}
	return size, nil
}

// parseMCPResourceBlock reads the embedded resource of a resource block (its members at loc,
// exact as for parseCallToolResult) into blk, and where its blob lies.
func parseMCPResourceBlock(blk *Block, members []jsObjectMember, loc Location, exact bool) error {
	v, ok := jsMemberValue(members, "resource")
	if !ok {
		return &ReadError{Loc: loc, Err: errors.New("resource block without a resource")}
	}
	rloc := memberLoc(loc, members, "resource", exact)
	res, err := parseEmbeddedResource(v, rloc)
	if err != nil {
		return err
	}
	blk.Resource = res
	if res.Blob != nil {
		rm, _ := jsObjectMembers(v)
		blk.PayloadLoc = memberLoc(rloc, rm, "blob", exact)
	}
	return nil
}

// memberLoc is the location of the member key of the object at loc whose members are given:
// with its offset when exact, else with no offset.
func memberLoc(loc Location, members []jsObjectMember, key string, exact bool) Location {
	c := loc.Child(key)
	c.Offset = 0
	if !exact {
		return c
	}
	for _, m := range members {
		if m.Key == key {
			c.Offset = loc.Offset + int64(m.Offset)
		}
	}
	return c
}

// parseEmbeddedResource parses the resource of a `resource` block: {uri, mimeType?, text|blob}.
func parseEmbeddedResource(raw []byte, loc Location) (*EmbeddedResource, error) {
	members, err := jsObjectMembers(raw)
	if err != nil {
		return nil, &ReadError{Loc: loc, Err: fmt.Errorf("embedded resource: %w", err)}
	}
	res := &EmbeddedResource{}
	for _, m := range members {
		var dst *string
		switch m.Key {
		case "uri":
			dst = &res.URI
		case "mimeType":
			dst = &res.MimeType
		case "text":
			res.Text = new(string)
			dst = res.Text
		case "blob":
			res.Blob = new(string)
			dst = res.Blob
		default:
			continue
		}
		if rerr := decodeStringMember(dst, m.Key, m.Value, loc, ""); rerr != nil {
			return nil, rerr
		}
	}
	if res.Blob != nil {
		if l, ok := parseLargeMarker(*res.Blob); ok {
			*res.Blob, res.LargeBlob = "", l
		}
	}
	return res, nil
}

// decodeStringMember decodes the raw JSON value of the member key of the object at loc into
// *dst; null leaves *dst as it is. what, when not empty, names the object in the messages
// ("content part: text is not a string", "content part text: …").
func decodeStringMember(dst *string, key string, raw []byte, loc Location, what string) *ReadError {
	if string(raw) == "null" {
		return nil
	}
	name, notString := key, key
	if what != "" {
		name, notString = what+" "+key, what+": "+key
	}
	if len(raw) == 0 || raw[0] != '"' {
		return &ReadError{Loc: loc.Child(key), Err: fmt.Errorf("%s is not a string", notString)}
	}
	v, err := mcpDecodeString(raw)
	if err != nil {
		return &ReadError{Loc: loc.Child(key), Err: fmt.Errorf("%s: %w", name, err)}
	}
	*dst = v
	return nil
}

// mcpDecodeString decodes a raw JSON string as encoding/json does (invalid UTF-8 and lone
// surrogates become U+FFFD), with a fast path for the plain ASCII of base64 payloads.
func mcpDecodeString(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		body := raw[1 : len(raw)-1]
		plain := true
		for _, c := range body {
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				plain = false
				break
			}
		}
		if plain {
			return string(body), nil
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}
