package corpora

import (
	"context"
	"errors"
	"io"
)

func readChatbox(ctx context.Context, name string, r io.Reader, e Emitter) error {
	return errors.New("not implemented")
}
