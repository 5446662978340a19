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
	return fmt.Sprintf("%d problem(s) reading or replaying the inputs, listed above; the rest was processed", e.Problems)
}

// ServerError says a live server failed requests: the cases it cost were not measured (they
// are neither in the report nor in cases.jsonl, so that --resume measures them); the rest was
// measured and reported. The command maps it to its runtime-error exit code, never to the
// inputs one: the inputs were fine.
type ServerError struct {
	// Err is the failure: the open circuit that stopped the run, else the first failure.
	Err error
	// Measured and NotMeasured count the cases of the run (resumed ones among the measured).
	Measured, NotMeasured int
	// Stopped says the run stopped sending (the server gone or failing again and again).
	Stopped bool
	// Out says the cases were written to a folder, so that --resume can finish the run.
	Out bool
}

func (e *ServerError) Error() string {
	resume := "run again with --out DIR, then --resume, to measure them"
	if e.Out {
		resume = "run again with --resume to measure them"
	}
	verb := "failed"
	if e.Stopped {
		verb = "stopped the run"
	}
	return fmt.Sprintf("%v: the server %s; %d case(s) measured, %d not (%s)", e.Err, verb, e.Measured, e.NotMeasured, resume)
}

func (e *ServerError) Unwrap() error { return e.Err }

// NotRecordingError says that a file named on the command line is not a recording of a format
// strata-eval reads; nothing was read. The command maps it to its inputs exit code.
type NotRecordingError struct{ Path string }

func (e *NotRecordingError) Error() string {
	return fmt.Sprintf("%s: not a recording strata-eval reads (formats: %s); if it is one, name its format with --input-format",
		e.Path, corpora.FormatList())
}
