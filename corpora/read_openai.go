package corpora

import (
	"context"
	"errors"
	"io"
)

func readOpenAIChat(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
func readOpenAIResponses(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
func readAnthropic(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
func readHTTPRR(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
