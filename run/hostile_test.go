package run

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// hostilePictures are pictures of every kind the picture check refuses (docs/pipeline.md §4.6),
// each padded past the lift's shortest run (min_run) so that tool text lifts it. The padding
// follows the picture's own end, where decoders stop reading.
func hostilePictures() map[string][]byte {
	valid := testimages.PNG(64, 48, 1, testimages.WithGrain(40))
	pad := func(b []byte) []byte {
		if len(b) < 1200 {
			b = append(append([]byte(nil), b...), make([]byte, 1200-len(b))...)
		}
		return b
	}
	return map[string][]byte{
		"png-claims-100000x100000":  pad(testimages.ClaimingPNG(100000, 100000)),
		"gif-screen-65535x65535":    pad(testimages.ClaimingGIF(65535, 65535)),
		"bmp-claims-100000x100000":  pad(testimages.ClaimingBMP(100000, 100000)),
		"png-bomb-10001x10000":      testimages.PNGBomb(10001, 10000),
		"png-truncated":             testimages.PNG(400, 300, 2, testimages.WithGrain(60))[:3000],
		"gif-5000-frames":           testimages.ManyFrameGIF(5000),
		"jpeg-claims-65500x65500":   pad(testimages.ClaimingJPEG(65500, 65500)),
		"webp-claims-100000x100000": pad(testimages.ClaimingWebP(100000, 100000)),
		"jpeg-garbage":              testimages.GarbageJPEG(3000, 1),
		"png-height-0":              testimages.WithPNGSize(valid, 64, 0),
	}
}

func chatWithToolText(text string) []byte {
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "user", "content": "what is on the screen?"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
			"function": map[string]any{"name": "screenshot", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": text},
	}})
	return b
}

func mcpWithImage(data []byte) []byte {
	res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "the screen"},
		map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(data)},
	}}})
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"screenshot","arguments":{}}}` + "\n" + string(res) + "\n")
}

// mimeOf is the type a hostile picture's name starts with ("gif-5000-frames" → image/gif).
func mimeOf(name string) string {
	kind, _, _ := strings.Cut(name, "-")
	return "image/" + kind
}

// userWithImage is an OpenAI Chat request whose user message attaches the picture as a data URI
// (a native image part).
func userWithImage(data []byte, mime string) []byte {
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "what is this?"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)}},
		}},
	}})
	return b
}

// anthropicWithImage is an Anthropic Messages request whose tool_result holds the picture as an
// image block.
func anthropicWithImage(data []byte, mime string) []byte {
	b, _ := json.Marshal(map[string]any{"model": "claude-x", "max_tokens": 1024, "messages": []any{
		map[string]any{"role": "user", "content": "take a screenshot"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "screenshot", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": []any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mime, "data": base64.StdEncoding.EncodeToString(data)}}}}}},
	}})
	return b
}

// mcpWithBlob is an MCP transcript whose result embeds the picture as an image/* resource blob.
func mcpWithBlob(data []byte, mime string) []byte {
	res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "the screen"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///shot", "mimeType": mime, "blob": base64.StdEncoding.EncodeToString(data)}},
	}}})
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"screenshot","arguments":{}}}` + "\n" + string(res) + "\n")
}

func offlineForTest(t *testing.T) *engine.Offline {
	t.Helper()
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	return off
}

// TestHostilePicturesEveryPath replays a corpus of hostile pictures made by code, in tool text,
// MCP image blocks, MCP image/* resource blobs, Anthropic tool_result image blocks and user
// image parts, and checks for each: a located problem naming the picture, the placeholder where
// it stood in the after arm, the case measured in every arm, and exit code 3.
func TestHostilePicturesEveryPath(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	pics := hostilePictures()
	for name, b := range pics {
		text := "screenshot: " + base64.StdEncoding.EncodeToString(b) + " done"
		if err := os.WriteFile(filepath.Join(in, "text-"+name+".json"), chatWithToolText(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, "mcp-"+name+".jsonl"), mcpWithImage(b), 0o644); err != nil {
			t.Fatal(err)
		}
		for file, body := range map[string][]byte{"blob-" + name + ".jsonl": mcpWithBlob(b, mimeOf(name)),
			"anthropic-" + name + ".json": anthropicWithImage(b, mimeOf(name)), "user-" + name + ".json": userWithImage(b, mimeOf(name))} {
			if err := os.WriteFile(filepath.Join(in, file), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// a run that starts like a PNG but cannot be base64 (4k+1 characters) stays as it was
	badRun := "iVBORw0KGgo" + strings.Repeat("A", 1025-11)
	if err := os.WriteFile(filepath.Join(in, "text-bad-base64.json"), chatWithToolText("x "+badRun+" y"), 0o644); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(dir, "dump")
	rep, err := Run(context.Background(), Config{Paths: []string{in}, Workers: 2, Arms: replay.BuiltinArms(),
		Offline: offlineForTest(t), Dump: dump})
	var inputs *InputsError
	if !errors.As(err, &inputs) {
		t.Fatalf("Run: %v, want an *InputsError (exit 3)", err)
	}
	if want := 5*len(pics) + 1; len(rep.Cases) != want {
		t.Fatalf("%d cases, want %d", len(rep.Cases), want)
	}
	for _, c := range rep.Cases {
		if len(c.Arms) != 3 || c.Error != "" {
			t.Errorf("%s: measured in %d arms (error %q), want every arm", c.ID, len(c.Arms), c.Error)
		}
		var where []string
		for _, p := range rep.Problems {
			if strings.Contains(p.Message, "case "+c.ID+": arm after:") {
				where = append(where, p.Where)
			}
		}
		if len(where) != 1 || !strings.HasPrefix(where[0], c.File+":") || !strings.Contains(where[0], " at /") {
			t.Errorf("%s: problems of the after arm at %q, want one located at file:line and a JSON Pointer", c.ID, where)
		}
	}
	for _, s := range rep.Summary {
		if s.Cases != len(rep.Cases) || s.LeftOut != 0 {
			t.Errorf("summary of %s: %d cases (%d left out), want %d", s.Arm, s.Cases, s.LeftOut, len(rep.Cases))
		}
	}
	// what the after arm hands the model: the placeholder in place of each picture, and the bad
	// run byte for byte
	files, _ := filepath.Glob(filepath.Join(dump, "*.after.request.json"))
	if len(files) != len(rep.Cases) {
		t.Fatalf("%d after requests dumped, want %d", len(files), len(rep.Cases))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(f, "text-bad-base64"):
			if !strings.Contains(string(b), "x "+badRun+" y") {
				t.Errorf("%s: the bad base64 run is not kept byte for byte", filepath.Base(f))
			}
		case !strings.Contains(string(b), "[image omitted: "):
			t.Errorf("%s: no [image omitted: …] note", filepath.Base(f))
		}
		if strings.Contains(string(b), `"image_url"`) && !strings.Contains(f, "text-bad-base64") {
			t.Errorf("%s: a refused picture is attached", filepath.Base(f))
		}
	}
}

// TestArmErrorsKeptAndCommonSummary replays through a server that fails every request carrying
// a picture: the before arm measures every case, the after and agent arms fail on the case with
// a picture. Each arm's error is kept on the case, the case keeps the arms that worked, and the
// summary compares the arms over the cases measured in all of them. The server failed, not the
// inputs: the run ends with a *ServerError (exit 1) that counts the case as not measured, and
// no problem of the inputs names it.
func TestArmErrorsKeptAndCommonSummary(t *testing.T) {
	off := offlineForTest(t)
	srv := testserver.New(testserver.Config{Counter: engine.PromptTokens(off), Context: 262144,
		Prepare: func(ctx context.Context, req corpora.Request) ([]corpora.Message, error) {
			for _, m := range req.Messages {
				for _, p := range m.Parts {
					if p.Kind == corpora.PartImage || (p.ToolResult != nil && hasImagePart(p.ToolResult.Parts)) {
						return nil, errors.New("this server takes no pictures")
					}
				}
			}
			return req.Messages, nil
		}})
	defer srv.Close()
	h, err := engine.NewHTTP(engine.HTTPConfig{Endpoints: []string{srv.URL}, MaxRetries: -1, Count: "usage"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shot := base64.StdEncoding.EncodeToString(testimages.PNG(200, 100, 3, testimages.WithGrain(40)))
	for name, text := range map[string]string{"picture.json": "shot: " + shot, "text.json": "no picture here", "text2.json": "nor here"} {
		if err := os.WriteFile(filepath.Join(dir, name), chatWithToolText(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Run(context.Background(), Config{Paths: []string{dir}, Workers: 1, Arms: replay.BuiltinArms(),
		Offline: off, Engine: h})
	var server *ServerError
	if !errors.As(err, &server) || server.Measured != 2 || server.NotMeasured != 1 {
		t.Fatalf("Run: %v, want a *ServerError (exit 1): 2 cases measured, 1 not", err)
	}
	if len(rep.Cases) != 3 {
		t.Fatalf("%d cases, want 3 (none lost)", len(rep.Cases))
	}
	var pic results.Case
	for _, c := range rep.Cases {
		if strings.Contains(c.ID, "picture.json") {
			pic = c
		}
	}
	if len(pic.Arms) != 1 || pic.Arms[0].Arm != "before" {
		t.Errorf("the case with a picture kept arms %v, want [before]", pic.Arms)
	}
	var failed []string
	for _, e := range pic.Errors {
		failed = append(failed, e.Arm)
	}
	if strings.Join(failed, ",") != "after,agent" || !strings.Contains(pic.Error, "arm after:") || !strings.Contains(pic.Error, "arm agent:") {
		t.Errorf("errors of the case: %+v (%q), want one for after and one for agent", pic.Errors, pic.Error)
	}
	for _, s := range rep.Summary {
		wantLeftOut := 0
		if s.Arm == "before" {
			wantLeftOut = 1
		}
		if s.Cases != 2 || s.LeftOut != wantLeftOut {
			t.Errorf("summary of %s over %d cases (%d left out), want 2 (%d)", s.Arm, s.Cases, s.LeftOut, wantLeftOut)
		}
	}
	if rep.Summary[1].Reduction > 0.5 {
		t.Errorf("after arm reduction %.1f%% over text-only cases, want about 0", 100*rep.Summary[1].Reduction)
	}
	n := 0
	for _, p := range rep.Problems {
		if strings.Contains(p.Message, pic.ID+": arm ") {
			n++
		}
	}
	if n != 0 {
		t.Errorf("%d problems name the case with a picture, want none (the server failed it):\n%s", n, fmtProblems(rep.Problems))
	}
}

func hasImagePart(ps []corpora.Part) bool {
	for _, p := range ps {
		if p.Kind == corpora.PartImage {
			return true
		}
	}
	return false
}

func fmtProblems(ps []results.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Where + ": " + p.Message + "\n")
	}
	return b.String()
}
