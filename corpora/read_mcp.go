package corpora

import (
	"context"
	"errors"
	"io"
)

func readMCPJSONL(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
func readMCPInspector(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
func readClaudeDesktopLog(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
