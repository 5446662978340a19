package corpora

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// httprrMaxUsageResponse is the largest recorded response the httprr reader reads the server's
// usage from; a larger one is passed over.
const httprrMaxUsageResponse = 16 << 20

// httprrUsage reads the usage a server reported in a raw HTTP response: a JSON body, or a
// streamed one (text/event-stream: the usage of its data events, the last one reported
// winning; Anthropic's message_start and message_delta each give part of it). nil when the
// response is absent, not a success, or reports no usage.
func httprrUsage(raw []byte, limit int) *ServerUsage {
	if len(raw) == 0 {
		return nil
	}
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		if head, body, ok = bytes.Cut(raw, []byte("\n\n")); !ok {
			return nil
		}
	}
	lines := strings.Split(strings.ReplaceAll(string(head), "\r\n", "\n"), "\n")
	status := strings.Fields(lines[0])
	if len(status) < 2 || !strings.HasPrefix(status[0], "HTTP/") {
		return nil
	}
	code, err := strconv.Atoi(status[1])
	if err != nil || code < 200 || code > 299 {
		return nil
	}
	resp := httprrRequest{} // the body decoding is the request's
	stream := false
	for _, ln := range lines[1:] {
		k, v, _ := strings.Cut(ln, ":")
		v = strings.ToLower(strings.TrimSpace(v))
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "transfer-encoding":
			resp.chunked = strings.Contains(v, "chunked")
		case "content-encoding":
			resp.encoding = v
		case "content-type":
			stream = strings.HasPrefix(v, "text/event-stream")
		}
	}
	resp.body = body
	if body, err = resp.decodedBody(limit); err != nil {
		return nil
	}
	u := &ServerUsage{Status: code}
	found := false
	if !stream {
		found = u.take(body)
	} else {
		for _, ln := range bytes.Split(body, []byte("\n")) {
			if data, ok := bytes.CutPrefix(bytes.TrimRight(ln, "\r"), []byte("data:")); ok {
				found = u.take(bytes.TrimSpace(data)) || found
			}
		}
	}
	if !found {
		return nil
	}
	return u
}

// usageFields are the usage members of the APIs the readers know.
type usageFields struct {
	PromptTokens        *int `json:"prompt_tokens"`
	CompletionTokens    *int `json:"completion_tokens"`
	InputTokens         *int `json:"input_tokens"`
	OutputTokens        *int `json:"output_tokens"`
	CacheRead           *int `json:"cache_read_input_tokens"`
	CacheCreation       *int `json:"cache_creation_input_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	InputTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

// usageDoc is a response body or one streamed event, as far as usage goes.
type usageDoc struct {
	Usage    *usageFields `json:"usage"`
	Message  *usageDoc    `json:"message"`  // Anthropic message_start
	Response *usageDoc    `json:"response"` // Responses API response.completed
	Timings  *struct {
		PromptMS    *float64 `json:"prompt_ms"`
		PredictedMS *float64 `json:"predicted_ms"`
	} `json:"timings"` // llama.cpp
}

// take adds what one JSON document reports; it says whether it reported any usage.
func (u *ServerUsage) take(doc []byte) bool {
	var d usageDoc
	if len(doc) == 0 || doc[0] != '{' || json.Unmarshal(doc, &d) != nil {
		return false
	}
	found := false
	for _, part := range []*usageDoc{&d, d.Message, d.Response} {
		if part == nil {
			continue
		}
		if t := part.Timings; t != nil {
			if t.PromptMS != nil {
				u.PromptMS = *t.PromptMS
			}
			if t.PredictedMS != nil {
				u.PredictedMS = *t.PredictedMS
			}
		}
		f := part.Usage
		if f == nil {
			continue
		}
		set := func(dst *int, v *int) {
			if v != nil {
				*dst, found = *v, true
			}
		}
		set(&u.PromptTokens, f.PromptTokens)
		set(&u.CompletionTokens, f.CompletionTokens)
		set(&u.CompletionTokens, f.OutputTokens)
		if f.InputTokens != nil {
			// Anthropic counts cache reads and writes apart from input_tokens.
			u.PromptTokens, found = *f.InputTokens+deref(f.CacheRead)+deref(f.CacheCreation), true
			u.CachedTokens = deref(f.CacheRead)
		}
		if f.PromptTokensDetails != nil {
			set(&u.CachedTokens, f.PromptTokensDetails.CachedTokens)
		}
		if f.InputTokensDetails != nil {
			set(&u.CachedTokens, f.InputTokensDetails.CachedTokens)
		}
	}
	return found
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
