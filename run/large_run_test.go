package run

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
	"github.com/strata-eval/strata-eval/replay"
	"github.com/strata-eval/strata-eval/results"
)

// replayRuns replays a recording with the base64 runs of tool text streamed past from chars
// characters on (0: the readers' length, so none in a test), counting with tokenizer.
func replayRuns(t *testing.T, path, tokenizer string, arms []replay.Arm, chars int) (*results.Report, error) {
	t.Helper()
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: tokenizer, Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Config{Paths: []string{path}, Workers: 1, Arms: arms, Offline: off, largeRunChars: chars})
	if rep == nil || len(rep.Cases) != 1 {
		t.Fatalf("Run: %v, report %+v", err, rep)
	}
	return rep, err
}

// armOf returns the arm named name of a case.
func armOf(t *testing.T, c results.Case, name string) results.ArmCase {
	t.Helper()
	for _, a := range c.Arms {
		if a.Arm == name {
			return a
		}
	}
	t.Fatalf("%s: no arm %s (errors %q)", c.ID, name, c.Error)
	return results.ArmCase{}
}

// TestReplayPictureRunStreamedPast: a PNG as base64 in the middle of an OpenAI chat tool text,
// streamed past while reading, replays with the counts of the text held whole in every arm
// where the server's outcome is decided from the run's length (the before arm: text; the
// after and agent arms under a cap it is over), with o200k and cl100k; the picture is recorded
// with its sha256, size and type; under the default cap, which the held picture is under, the
// streamed one is omitted with a located problem.
func TestReplayPictureRunStreamedPast(t *testing.T) {
	png := testimages.PNG(300, 200, 5, testimages.WithGrain(90))
	sum := sha256.Sum256(png)
	path := filepath.Join(t.TempDir(), "shot.json")
	text := "the screen: " + base64.StdEncoding.EncodeToString(png) + "\nwhat it shows"
	if err := os.WriteFile(path, chatWithToolText(text), 0o644); err != nil {
		t.Fatal(err)
	}
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base", Vision: "llamacpp/qwen3vl"})
	if err != nil {
		t.Fatal(err)
	}
	streamedText := ""
	if _, err := LoadCounting(context.Background(), []string{path}, nil, "", io.Discard, runCounting{off: off, chars: 4096}, func(c *corpora.Conversation) error {
		streamedText = c.Messages[2].Parts[0].ToolResult.Text
		return nil
	}); err != nil || !corpora.HasLargeRun(streamedText) || len(streamedText) >= len(text) {
		t.Fatalf("read with runs streamed past: %v, tool text of %d bytes", err, len(streamedText))
	}
	capped := replay.BuiltinArms()
	for i := range capped {
		capped[i].Settings.MaxPictureBytes = 10_000
	}
	for _, tok := range []string{"o200k_base", "cl100k_base"} {
		held, err := replayRuns(t, path, tok, capped, 0)
		if err != nil {
			t.Fatal(err)
		}
		streamed, err := replayRuns(t, path, tok, capped, 4096)
		if err != nil {
			t.Fatal(err)
		}
		for _, arm := range []string{"before", "after", "agent"} {
			h, s := armOf(t, held.Cases[0], arm), armOf(t, streamed.Cases[0], arm)
			if h.TextTokens != s.TextTokens || h.PromptTokens != s.PromptTokens || h.ToolChars != s.ToolChars {
				t.Errorf("%s %s: streamed %d text tokens, %d prompt, %d tool chars; held %d, %d, %d", tok, arm,
					s.TextTokens, s.PromptTokens, s.ToolChars, h.TextTokens, h.PromptTokens, h.ToolChars)
			}
			if len(s.Pictures) != 1 || len(h.Pictures) != 1 {
				t.Fatalf("%s %s: pictures %+v, held %+v", tok, arm, s.Pictures, h.Pictures)
			}
			sp, hp := s.Pictures[0], h.Pictures[0]
			if sp.SHA256 != hex.EncodeToString(sum[:]) || sp.Bytes != len(png) || sp.Type != "image/png" || sp.Width != 300 ||
				sp.Outcome != hp.Outcome || sp.Reason != hp.Reason || sp.Offset != hp.Offset || sp.Length != hp.Length {
				t.Errorf("%s %s: streamed picture %+v, held %+v", tok, arm, sp.PictureRecord, hp.PictureRecord)
			}
		}
	}
	rep, err := replayRuns(t, path, "o200k_base", replay.BuiltinArms(), 4096)
	var inputs *InputsError
	if !errors.As(err, &inputs) {
		t.Fatalf("Run: %v, want an *InputsError (exit 3)", err)
	}
	after := armOf(t, rep.Cases[0], "after")
	if len(after.Pictures) != 1 || after.Pictures[0].Outcome != replay.OutcomeOmitted || !strings.Contains(after.Pictures[0].Reason, "pixel data cannot be checked") {
		t.Errorf("after arm under the default cap: pictures %+v", after.Pictures)
	}
	located := false
	for _, p := range rep.Problems {
		located = located || strings.Contains(p.Message, "pixel data cannot be checked") && strings.HasPrefix(p.Where, path+":")
	}
	if !located {
		t.Errorf("no located problem for the omitted picture: %+v", rep.Problems)
	}
}
