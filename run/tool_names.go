package run

import (
	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/replay"
)

// nameTools gives each picture of a tool's result the name of that tool, as the arm's
// messages carry it.
func nameTools(res *replay.Result) {
	for i := range res.Pictures {
		p := &res.Pictures[i]
		if p.Source == corpora.OriginTool && p.MessageIndex >= 0 && p.MessageIndex < len(res.Messages) {
			p.Tool = res.Messages[p.MessageIndex].Name
		}
	}
}
