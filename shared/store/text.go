package store

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
)

// A section's text is kept deflated (compress/flate, as in gzip and zip files): at about 0.6 of
// its size, it is the second-largest thing in the index after the vectors, and only a few
// sections are read back at a time, those a search shows or judges. Deflating a section takes
// tens of microseconds, and inflating one less. The default level keeps them 3% smaller than
// the fastest level does, for a third more of its time. A link's written form, with its line,
// is kept the same way (see linksTables).

// deflaters and inflaters reuse compressors, which allocate their tables (a deflater about a
// megabyte) when they are made; inflated reuses the buffers texts are inflated into, so that a
// search that judges a hundred sections does not leave a hundred buffers to the collector.
var (
	deflaters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.DefaultCompression) // cannot fail for a valid level
		return w
	}}
	inflaters = sync.Pool{New: func() any { return flate.NewReader(nil) }}
	inflated  = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// deflate returns text compressed.
func deflate(text string) []byte {
	var b bytes.Buffer
	w := deflaters.Get().(*flate.Writer)
	w.Reset(&b)
	io.WriteString(w, text) // a bytes.Buffer takes everything
	w.Close()
	deflaters.Put(w)
	return b.Bytes()
}

// maxPooledText is the largest buffer inflated keeps for reuse.
const maxPooledText = 64 << 10

// deflated is a text read from a column that holds it deflated: Scan inflates it.
type deflated string

func (d *deflated) Scan(src any) error {
	data, ok := src.([]byte)
	if !ok {
		return fmt.Errorf("a deflated text is %T, not bytes", src)
	}
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(data), nil); err != nil {
		return err
	}
	// bytes.Buffer reads straight into its own memory; io.Copy into a strings.Builder would
	// allocate 32 KiB of buffer for every text.
	text := inflated.Get().(*bytes.Buffer)
	text.Reset()
	defer func() {
		if text.Cap() <= maxPooledText { // a rare long text is not worth keeping
			inflated.Put(text)
		}
	}()
	if _, err := text.ReadFrom(r); err != nil {
		return fmt.Errorf("a deflated text cannot be inflated: %w", err)
	}
	*d = deflated(text.String())
	return nil
}
