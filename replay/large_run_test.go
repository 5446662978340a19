package replay

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
)

// runsStreamed is a corpora.Collector that has the readers stream base64 runs of tool text of
// 4,096 characters or more past (without a count: the inspection counts no token).
type runsStreamed struct{ corpora.Collector }

func (r *runsStreamed) NewRunCounter() corpora.RunCounter { return nil }
func (r *runsStreamed) LargeRunChars() int                { return 4096 }

// TestInspectLargeRun: corpus inspect finds a picture streamed past in a tool text where it
// finds it held, with the same type, size, digest and place, judged by its header.
func TestInspectLargeRun(t *testing.T) {
	shot := base64.StdEncoding.EncodeToString(testimages.PNG(300, 200, 5, testimages.WithGrain(90)))
	log := `{"model":"m","messages":[{"role":"user","content":"look"},{"role":"tool","tool_call_id":"c1","content":"the screen: ` + shot + ` done"}]}` + "\n"
	held, streamed := &corpora.Collector{}, &runsStreamed{}
	for _, e := range []corpora.Emitter{held, streamed} {
		if err := corpora.Read(context.Background(), "log.jsonl", strings.NewReader(log), corpora.FormatOpenAIChat, e); err != nil {
			t.Fatal(err)
		}
	}
	if !corpora.HasLargeRun(streamed.Conversations[0].Messages[1].Parts[0].ToolResult.Text) {
		t.Fatal("the run was not streamed past")
	}
	hn, hs := InspectConversation(held.Conversations[0], 0)
	sn, ss := InspectConversation(streamed.Conversations[0], 0)
	if hn != sn || len(hs) != 1 || len(ss) != 1 || hs[0] != ss[0] {
		t.Errorf("streamed: %+v %+v; held: %+v %+v", sn, ss, hn, hs)
	}
}
