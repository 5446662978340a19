package cli

import (
	"context"
	"errors"
	"fmt"

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

// exitCodesHelp is the EXIT STATUS section shared by the help texts.
const exitCodesHelp = `EXIT STATUS
  0  ok
  1  runtime error
  2  usage error (bad flag, malformed config or budget file)
  3  some inputs could not be read (the rest was processed and written)
  4  a budget was crossed
  5  a correctness regression was found`

// ExitError carries an exit code with an error; the message is printed once, on stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withExitCode attaches an exit code to err (nil stays nil).
func withExitCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErrorf returns a usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return withExitCode(ExitUsage, fmt.Errorf(format, args...))
}

// exitCode maps an error to the process exit code, in one place.
func exitCode(err error) int {
	var (
		ee     *exitError
		usage  *run.UsageError
		inputs *run.InputsError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &usage):
		return ExitUsage
	case errors.As(err, &inputs):
		return ExitInputs
	case errors.Is(err, context.Canceled):
		return ExitError
	}
	return ExitError
}
