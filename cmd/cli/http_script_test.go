package cli

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/testserver"
	"github.com/strata-eval/strata-eval/replay"
)

// visionAnswer plays a vision model: with a picture in view it names what the sample
// pictures show; without one it says it sees none.
func visionAnswer(msgs []corpora.Message) string {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Kind == corpora.PartImage || (p.Kind == corpora.PartToolResult && p.ToolResult != nil && hasImage(p.ToolResult.Parts)) {
				return "The picture shows a red square, shelf 7B, total 12.40, lot 58213, the word hello, MCP, 1234.5, green, purple."
			}
		}
	}
	return "I cannot see any picture in this conversation."
}

func hasImage(ps []corpora.Part) bool {
	for _, p := range ps {
		if p.Kind == corpora.PartImage {
			return true
		}
	}
	return false
}

// TestHTTPScripts runs testdata/script/http/*.txtar (a folder of its own, so that TestScripts,
// which has no servers, does not run them) against OpenAI-compatible test servers on
// loopback that count with the project's own tokenizer: $ENDPOINT and $ENDPOINT2 (llama.cpp
// style: input_tokens, /props, timings, API key), $LIFT_ENDPOINT (lifts pictures itself) and
// $FLAKY_ENDPOINT (answers 503 twice, counts by usage).
func TestHTTPScripts(t *testing.T) {
	off, err := engine.NewOffline(engine.OfflineConfig{Tokenizer: "o200k_base"})
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-test-planted-secret-7f3a"
	cases := strconv.Itoa(sampleCases(t))
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script/http",
		Setup: func(env *testscript.Env) error {
			servers := map[string]testserver.Config{
				"ENDPOINT":       {Counter: engine.PromptTokens(off), Context: 262144, InputTokens: true, Props: true, Timings: true, APIKey: key, Answer: visionAnswer},
				"ENDPOINT2":      {Counter: engine.PromptTokens(off), Context: 262144, InputTokens: true, Props: true, Timings: true, APIKey: key, Answer: visionAnswer},
				"LIFT_ENDPOINT":  {Counter: engine.PromptTokens(off), Context: 262144, InputTokens: true, APIKey: key, Prepare: liftLikeAfter, Answer: visionAnswer},
				"FLAKY_ENDPOINT": {Counter: engine.PromptTokens(off), Context: 262144, APIKey: key, FailFirst: 2, Answer: visionAnswer},
			}
			for name, cfg := range servers {
				srv := testserver.New(cfg)
				env.Defer(srv.Close)
				env.Setenv(name, srv.URL)
			}
			env.Setenv("PLANTED_KEY", key)
			env.Setenv("SAMPLE_CASES", cases)
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			return nil
		},
	})
}

// liftLikeAfter is the pipeline of a server that lifts pictures itself: the after arm.
func liftLikeAfter(ctx context.Context, req corpora.Request) ([]corpora.Message, error) {
	arm := replay.Arm{Name: "server", Settings: replay.Settings{Client: replay.ClientRecorded, Server: replay.ServerLift}}
	res, err := arm.Apply(ctx, req)
	if err != nil {
		return nil, err
	}
	return res.Messages, nil
}
