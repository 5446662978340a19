package engine

// The server's part of the response cache key: what the server says of itself (each protocol
// asks in its own way, ServerReport.Identity), the client settings that change a count, and
// the counts of one fixed text and one fixed small picture, asked once per run: no server
// names its projector or its image-token limits, the picture's count does.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strconv"
	"sync"

	"github.com/strata-eval/strata-eval/corpora"
)

// serverKey is the server's part of every cache key, set by Probe.
type serverKey struct {
	mu sync.Mutex
	// key digests the identity ("" until Probe); known says the server said enough of
	// itself to be identified: without it counts are not cached, answers are, labelled.
	key   string
	known bool
	// label names the server in the cache's entries (`strata-eval cache` lists them by it).
	label string
}

// identity returns the server's part of the cache key, whether the server is identified,
// and its label.
func (h *HTTP) identity() (key string, known bool, label string) {
	h.ident.mu.Lock()
	defer h.ident.mu.Unlock()
	if h.ident.label == "" {
		return "", false, "unidentified server at " + h.endpoints[0].display
	}
	return h.ident.key, h.ident.known, h.ident.label
}

// identify sets the server's part of the cache key from what the server said of itself (r)
// and the probe counts; a server that said nothing is not identified, which r's warnings
// then say.
func (h *HTTP) identify(ctx context.Context, r *ServerReport) error {
	parts := append([]string{"server"}, r.Identity...)
	parts = append(append(parts, "client"), h.cfg.KeySettings...)
	known := len(r.Identity) > 0
	if known {
		probe, err := h.probeCounts(ctx, r.NoPictures)
		if errors.Is(err, ErrServerGone) {
			return err
		}
		if err != nil {
			known = false
			r.Warnings = append(r.Warnings, fmt.Sprintf("the probe counts could not be read (%v): the server's counts are not cached", err))
		}
		parts = append(parts, probe...)
	} else {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s says too little of itself to be identified: its counts are not cached (answers are, labelled as from an unidentified server)", h.endpoints[0].display))
	}
	sum := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(sum, "%d:%s", len(p), p)
	}
	key := hex.EncodeToString(sum.Sum(nil))
	label := "unidentified server at " + h.endpoints[0].display
	if known {
		label = h.endpoints[0].display + " " + key[:12]
		if r.Server != "" {
			label = r.Server + " at " + label
		}
	}
	h.ident.mu.Lock()
	defer h.ident.mu.Unlock()
	h.ident.key, h.ident.known, h.ident.label = key, known, label
	return nil
}

// probeCounts counts probeText and, unless the server said it takes none, probePicture: fresh,
// never from the cache. A server that refuses the picture is identified by the refusal.
func (h *HTTP) probeCounts(ctx context.Context, noPictures bool) ([]string, error) {
	ep := h.endpoints[0]
	text, _, _, err := h.countTotal(ctx, ep, Request{Messages: probeMessages(nil), fresh: true})
	if err != nil {
		return nil, fmt.Errorf("count of a fixed text: %w", err)
	}
	out := []string{"text=" + strconv.Itoa(text)}
	if noPictures {
		return append(out, "pictures=none"), nil
	}
	pic, _, _, err := h.countTotal(ctx, ep, Request{Messages: probeMessages(probePicture), fresh: true})
	switch {
	case errors.Is(err, ErrNoPictures):
		return append(out, "pictures=refused"), nil
	case err != nil:
		return nil, fmt.Errorf("count of a fixed picture: %w", err)
	}
	return append(out, "picture="+strconv.Itoa(pic)), nil
}

// probeMessages is the probes' request: one user message of a fixed text, with picture when
// not nil.
func probeMessages(picture []byte) []corpora.Message {
	parts := []corpora.Part{{Kind: corpora.PartText, Text: "Describe the picture in one word."}}
	if picture != nil {
		parts = append(parts, corpora.Part{Kind: corpora.PartImage, Image: &corpora.Image{Data: picture, DeclaredType: "image/png"}})
	}
	return []corpora.Message{{Role: corpora.RoleUser, Parts: parts}}
}

// probePicture is the fixed small picture of the probe: 64×48, four colour bands, a PNG.
var probePicture = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	bands := []color.RGBA{{200, 30, 30, 255}, {30, 160, 60, 255}, {40, 60, 200, 255}, {240, 220, 40, 255}}
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, bands[x/16])
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // a memory buffer does not fail
	return b.Bytes()
}()

// identityJSON is a JSON value as an identity part: compacted, the object members named in
// drop (values that change on every answer, such as a creation time) left out at any depth.
func identityJSON(raw []byte, drop ...string) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var strip func(any) any
	strip = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if slices.Contains(drop, k) {
					delete(v, k)
					continue
				}
				v[k] = strip(x)
			}
		case []any:
			for i, x := range v {
				v[i] = strip(x)
			}
		}
		return v
	}
	return string(mustJSON(strip(v))) // encoding/json writes object members sorted
}
