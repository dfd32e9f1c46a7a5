package http3

import "context"

// lastmile patch: a server request's context without a cancelation of its
// own.
//
// Upstream gave each request context.WithCancel(connection's context) and
// cancelled it once the request stream's context was done. Every such
// context registers with the connection's context on creation and leaves
// it on cancelation, both under that context's one lock, which all the
// connection's request goroutines share: on a kept connection of cache
// hits that lock and its map took about 2% of the server's CPU, and the
// context three allocations per request. The stream's context already is
// the connection's child (quic-go derives it, and cancels it when the
// stream's send side closes or is reset, or the connection closes), so
// the request's context is done with it and needs no cancelation of its
// own.

// requestContext is done when its stream's context is, and holds the
// connection context's values.
type requestContext struct {
	context.Context // the request stream's
	conn            context.Context
}

// Value looks in the stream's context first: context.Cause, AfterFunc and
// a child's cancelation find the stream's cancelation there, whose Done
// is this context's. The connection's values (ServerContextKey, the
// addresses, ConnContext's) are only in conn.
func (c *requestContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.conn.Value(key)
}
