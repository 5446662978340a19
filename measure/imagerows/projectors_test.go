package imagerows

import "testing"

// TestNeedsMRoPE: only the projector types mtmd lays out on an M-RoPE grid and asserts it
// need a text model of M-RoPE positions.
func TestNeedsMRoPE(t *testing.T) {
	for _, c := range []struct {
		f    Family
		want bool
	}{
		{Family{Rule: RuleLlamaCpp, Projector: "hunyuanvl"}, true},
		{Family{Rule: RuleLlamaCpp, Projector: "qwen3vl_merger"}, false},
		{Family{Rule: RuleHFQwen, Projector: "hunyuanvl"}, false},
	} {
		if got := c.f.NeedsMRoPE(); got != c.want {
			t.Errorf("%s %s: NeedsMRoPE %v, want %v", c.f.Rule, c.f.Projector, got, c.want)
		}
	}
}
