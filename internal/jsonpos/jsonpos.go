// Package jsonpos places JSON decoding errors in their document: the line and byte offset.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrorAt adds the byte offset (and line) of data to a JSON syntax or type error; other errors
// come back as they are.
func ErrorAt(data []byte, err error) error {
	var off int64 = -1
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		off = syntax.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	return fmt.Errorf("line %d, byte %d: %w", line, off, err)
}
