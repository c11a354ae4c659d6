package guard

import "bytes"

// wholeBody is a request body the wall has read in full. The next handler reads it as any
// body, or takes it at once with Bytes, as jsonrpc.Strict does, so that a body of megabytes
// is not held twice.
type wholeBody struct {
	*bytes.Reader
	data []byte
}

func whole(data []byte) wholeBody { return wholeBody{bytes.NewReader(data), data} }

func (b wholeBody) Bytes() []byte { return b.data }
func (b wholeBody) Close() error  { return nil }
