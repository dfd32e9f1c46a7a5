package wtproxy

import "sync"

// bufferPools holds the relay's copy buffers by size (smallCopyBuffer,
// and buffer_size: one size per configured proxy), so a stream takes a
// buffer another stream gave back instead of allocating one: a session
// opening many short streams then costs the garbage collector nothing
// per stream. Pooling does not change the bound: a stream holds one
// buffer per direction while it is relayed, and a session at most
// max_streams of them.
var bufferPools sync.Map // int → *sync.Pool of *[]byte

// copyBuffer returns a buffer of size bytes and the function that gives
// it back once its stream no longer uses it.
func copyBuffer(size int) (buf []byte, giveBack func()) {
	p, ok := bufferPools.Load(size)
	if !ok {
		p, _ = bufferPools.LoadOrStore(size, &sync.Pool{New: func() any {
			b := make([]byte, size)
			return &b
		}})
	}
	pool := p.(*sync.Pool)
	b := pool.Get().(*[]byte)
	return *b, func() { pool.Put(b) }
}
