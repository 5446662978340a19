package cli

import (
	"github.com/strata-eval/strata-eval/engine"
)

// engineNames lists the values of --engine.
func engineNames() []string { return []string{"offline"} }

// newEngine returns the engine --engine names. The offline engine is always built: it
// decides the vision family and the computed counts every other engine is compared with.
func newEngine(o *ReplayOptions, off *engine.Offline) (engine.Engine, error) {
	switch o.Engine {
	case "", "offline":
		return off, nil
	}
	return nil, usageErrorf("--engine %q: unknown (known: offline)", o.Engine)
}
