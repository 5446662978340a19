package run

import (
	"fmt"

	"github.com/strata-eval/strata-eval/corpora"
)

// UsageError is a configuration the run cannot start with: a bad setting, a malformed arms
// file, an engine that cannot do what was asked. The command maps it to its usage exit code.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf returns a *UsageError.
func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// asUsage wraps err in a *UsageError (nil stays nil).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// InputsError says that some inputs (files, records, cases) could not be read or replayed;
// the rest was processed and reported. The command maps it to its inputs exit code.
type InputsError struct {
	// Problems is the number of problems reported.
	Problems int
}

func (e *InputsError) Error() string {
	return fmt.Sprintf("%d problem(s) reading the inputs; the rest was processed", e.Problems)
}

// NotRecordingError says that a file named on the command line is not a recording of a format
// strata-eval reads; nothing was read. The command maps it to its inputs exit code.
type NotRecordingError struct{ Path string }

func (e *NotRecordingError) Error() string {
	return fmt.Sprintf("%s: not a recording strata-eval reads (formats: %s); if it is one, name its format with --input-format",
		e.Path, corpora.FormatList())
}
