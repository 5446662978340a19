package prompt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tokentext"
)

// BenchmarkRenderQwen3 renders an agent request (tools, calls, a 1 MiB tool result) with the
// built-in qwen template and with Qwen3's Jinja template (two renderings: plain and marked),
// the same strings every time, as the arms of a case hand them over.
func BenchmarkRenderQwen3(b *testing.B) {
	msgs, tools, _ := toolConversation()
	msgs = append(msgs, msg(corpora.RoleAssistant, call("c9", "read_file", `{"path": "/var/log/big.log"}`)),
		toolMsg("c9", textPart(strings.Repeat("2026-12-01 12:00:00 INFO request served in 12 ms\n", 1<<20/48))))
	qwen, err := TemplateByName("qwen")
	if err != nil {
		b.Fatal(err)
	}
	cases := []Template{qwen}
	if src, _, _, err := LoadChatTemplate(filepath.Join(filepath.Dir(tokentext.Qwen3TokenizerPath()), "tokenizer_config.json")); err == nil {
		jt, err := NewJinjaTemplate("qwen3", src, "", "")
		if err != nil {
			b.Fatal(err)
		}
		cases = append(cases, jt)
	}
	for _, tmpl := range cases {
		b.Run(tmpl.Name(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(1 << 20)
			for i := 0; i < b.N; i++ {
				if _, err := tmpl.Render(msgs, tools); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
