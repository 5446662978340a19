package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/strata-eval/strata-eval/run"
)

// Exit codes of strata-eval; every command documents them in its help.
const (
	ExitOK         = 0 // everything was read and processed
	ExitError      = 1 // a runtime error stopped the command
	ExitUsage      = 2 // the command line or a config/budget file is malformed
	ExitInputs     = 3 // some inputs could not be read; the rest was processed and written
	ExitBudget     = 4 // a budget was crossed
	ExitRegression = 5 // a correctness regression was found
)

// exitMeanings are the lines of the EXIT STATUS sections, by code.
var exitMeanings = []string{
	ExitOK:         "ok",
	ExitError:      "runtime error",
	ExitUsage:      "usage error (bad flag, malformed config or budget file)",
	ExitInputs:     "some inputs could not be read (the rest was processed and written)",
	ExitBudget:     "a budget was crossed",
	ExitRegression: "a correctness regression was found",
}

// exitSection is an EXIT STATUS section: 0, 1 and 2, which every command may exit with, then
// codes, those the command itself gives.
func exitSection(codes ...int) string {
	var b strings.Builder
	b.WriteString("EXIT STATUS")
	for _, c := range append([]int{ExitOK, ExitError, ExitUsage}, codes...) {
		fmt.Fprintf(&b, "\n  %d  %s", c, exitMeanings[c])
	}
	return b.String()
}

// exitError carries an exit code other than a usage error's with an error (a usage error is
// a *run.UsageError, whichever package finds it); the message is printed once, on stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withExitCode attaches an exit code to err (nil stays nil); ExitUsage makes a usage error.
func withExitCode(code int, err error) error {
	if err == nil {
		return nil
	}
	if code == ExitUsage {
		return usageError(err)
	}
	return &exitError{code: code, err: err}
}

// usageError makes err a usage error (exit 2): a *run.UsageError, the one mechanism for them
// (nil stays nil).
func usageError(err error) error {
	if err == nil {
		return nil
	}
	return &run.UsageError{Err: err}
}

// usageErrorf returns a usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return usageError(fmt.Errorf(format, args...))
}

// exitCode maps an error to the process exit code, in one place.
func exitCode(err error) int {
	var (
		ee     *exitError
		usage  *run.UsageError
		inputs *run.InputsError
		server *run.ServerError
		notRec *run.NotRecordingError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &server):
		return ExitError // a server's failure, never the inputs
	case errors.As(err, &usage):
		return ExitUsage
	case errors.As(err, &inputs), errors.As(err, &notRec):
		return ExitInputs
	case errors.Is(err, context.Canceled):
		return ExitError
	}
	return ExitError
}
