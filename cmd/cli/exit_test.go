package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/strata-eval/strata-eval/run"
)

// TestUsageErrorsAreOneKind: a usage error, made by the commands or by the packages below
// them, is a *run.UsageError and exits 2; wrapping keeps it one.
func TestUsageErrorsAreOneKind(t *testing.T) {
	for name, err := range map[string]error{
		"usageErrorf":             usageErrorf("--x must be positive"),
		"usageError":              usageError(errors.New("bad flag")),
		"withExitCode(ExitUsage)": withExitCode(ExitUsage, errors.New("bad flag")),
		"wrapped":                 fmt.Errorf("replay: %w", usageErrorf("bad")),
		"from run":                fmt.Errorf("replay: %w", &run.UsageError{Err: errors.New("bad arms file")}),
	} {
		var usage *run.UsageError
		if !errors.As(err, &usage) {
			t.Errorf("%s: %T is not a *run.UsageError", name, err)
		}
		var ee *exitError
		if errors.As(err, &ee) {
			t.Errorf("%s: a usage error carried as an exitError (code %d)", name, ee.code)
		}
		if code := exitCode(err); code != ExitUsage {
			t.Errorf("%s: exit %d, want %d", name, code, ExitUsage)
		}
	}
	if usageError(nil) != nil || withExitCode(ExitUsage, nil) != nil {
		t.Error("a nil error became a usage error")
	}
	if code := exitCode(withExitCode(ExitBudget, errors.New("crossed"))); code != ExitBudget {
		t.Errorf("a budget error exits %d", code)
	}
}
