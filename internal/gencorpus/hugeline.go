package gencorpus

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"math/rand"
)

// HugeLine writes an MCP stdio transcript (JSON Lines) of one tools/call and its result, the
// result one line holding a text block and an image block whose data is a valid PNG of at least
// pictureBytes bytes (RGB noise stored uncompressed, so its size is its pixel count times three).
// It streams: memory does not grow with pictureBytes. It returns the number of bytes written.
func HugeLine(w io.Writer, pictureBytes int64, seed int64) (int64, error) {
	side := int64(1)
	for side*side*3 < pictureBytes {
		side++
	}
	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	fmt.Fprintln(cw, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"screenshot","arguments":{}}}`)
	fmt.Fprint(cw, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the screen"},{"type":"image","mimeType":"image/png","data":"`)
	enc := base64.NewEncoder(base64.StdEncoding, cw)
	if err := writeStoredPNG(enc, int(side), int(side), seed); err != nil {
		return cw.n, err
	}
	if err := enc.Close(); err != nil {
		return cw.n, err
	}
	fmt.Fprintln(cw, `"}]}}`)
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

// HugeChatLine writes an OpenAI chat completions request log (one JSON line) whose tool
// message's text is a short caption followed by the base64 of a valid PNG of at least
// pictureBytes bytes, as HugeLine does for MCP. It streams and returns the bytes written.
func HugeChatLine(w io.Writer, pictureBytes int64, seed int64) (int64, error) {
	side := int64(1)
	for side*side*3 < pictureBytes {
		side++
	}
	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	fmt.Fprint(cw, `{"model":"m","messages":[{"role":"user","content":"take a screenshot"},`+
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"screenshot","arguments":"{}"}}]},`+
		`{"role":"tool","tool_call_id":"c1","content":"the screen: `)
	enc := base64.NewEncoder(base64.StdEncoding, cw)
	if err := writeStoredPNG(enc, int(side), int(side), seed); err != nil {
		return cw.n, err
	}
	if err := enc.Close(); err != nil {
		return cw.n, err
	}
	fmt.Fprintln(cw, `"}]}`)
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// writeStoredPNG writes a w×h 8-bit RGB PNG of seeded noise as one IDAT chunk of stored
// (uncompressed) deflate blocks, row by row.
func writeStoredPNG(out io.Writer, w, h int, seed int64) error {
	chunk := func(kind string, data []byte) error {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		b = append(b, kind...)
		b = append(b, data...)
		b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
		_, err := out.Write(b)
		return err
	}
	if _, err := out.Write([]byte("\x89PNG\r\n\x1a\n")); err != nil {
		return err
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	if err := chunk("IHDR", append(ihdr, 8, 2, 0, 0, 0)); err != nil {
		return err
	}
	rowLen := 1 + 3*w
	raw := int64(rowLen) * int64(h)
	const block = 65535
	blocks := (raw + block - 1) / block
	idatLen := 2 + raw + 5*blocks + 4
	// IDAT header: length and type, then the zlib stream, then the CRC of type and data.
	head := binary.BigEndian.AppendUint32(nil, uint32(idatLen))
	head = append(head, "IDAT"...)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	body := io.MultiWriter(out, crc)
	if _, err := out.Write(head); err != nil {
		return err
	}
	if _, err := body.Write([]byte{0x78, 0x01}); err != nil {
		return err
	}
	adler := adler32.New()
	rng := rand.New(rand.NewSource(seed))
	row := make([]byte, rowLen)
	buf := make([]byte, 0, block)
	left := raw
	flush := func() error {
		left -= int64(len(buf))
		final := byte(0)
		if left == 0 {
			final = 1
		}
		hdr := []byte{final, byte(len(buf)), byte(len(buf) >> 8), ^byte(len(buf)), ^byte(len(buf) >> 8)}
		if _, err := body.Write(hdr); err != nil {
			return err
		}
		_, err := body.Write(buf)
		buf = buf[:0]
		return err
	}
	for range h {
		row[0] = 0
		rng.Read(row[1:])
		adler.Write(row)
		for r := row; len(r) > 0; {
			k := min(len(r), block-len(buf))
			buf = append(buf, r[:k]...)
			r = r[k:]
			if len(buf) == block {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if len(buf) > 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	if _, err := body.Write(binary.BigEndian.AppendUint32(nil, adler.Sum32())); err != nil {
		return err
	}
	if _, err := out.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		return err
	}
	return chunk("IEND", nil)
}
