package http3

// growRequestStack grows the calling goroutine's stack to 16 KiB at once
// (lastmile patch). Each request stream is served on a new goroutine whose
// stack starts small; a cache hit through Caddy's handlers needs about
// 16 KiB, and each time the stack doubled on the way, the runtime copied it
// and adjusted every frame on it (7-10% of the CPU of an HTTP/3 hit). Grown
// here, near the bottom of the stack, one growth copies a few frames. The
// array leaves the frame just short of 8 KiB, which the runtime rounds up
// to a 16 KiB stack with the frames below it; a goroutine's stack is freed
// when it exits, so this holds no memory past the request. A stream that
// sends one byte and no header holds 16 KiB instead of a few, but only
// until the next garbage collections: the collector halves the stack of a
// blocked goroutine that uses less than a quarter of it. Growing only once
// the header block has arrived cost 3-7% of the CPU of a hit instead of 1%
// (the stack has grown once already by then, and the copy is deeper).
// The array is read at an index from sink, the caller's own variable, so
// the compiler keeps it, and no goroutine writes another's memory (a shared
// sink was a data race between requests).
//
//go:noinline
func growRequestStack(sink *byte) {
	var buf [7 << 10]byte
	*sink = buf[*sink&1]
}
