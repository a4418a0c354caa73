package codec

import (
	"bytes"
	"sync"
)

// maxPooledBuffer is the capacity above which an encoding buffer is left to
// the garbage collector rather than pooled, so that one huge object does
// not pin its buffer for good.
const maxPooledBuffer = 1 << 20

// buffers holds the scratch buffers of encoders that cannot tell the size of
// their output before writing it.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeVia returns tag followed by the bytes that write returns, in a slice
// of exactly that length. write writes into a pooled scratch buffer and
// returns the part of it to keep.
func encodeVia(tag byte, write func(*bytes.Buffer) ([]byte, error)) ([]byte, error) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			buf.Reset()
			buffers.Put(buf)
		}
	}()
	buf.Reset()
	out, err := write(buf)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 1+len(out))
	b[0] = tag
	copy(b[1:], out)
	return b, nil
}
