package clienttcp

import (
	"net"
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// A connection's HTTP/1.1 state (between requests or not) is known only
// to its server, which reports it to ConnState hooks. The hook gets the
// connection as the server holds it, wrapped by Caddy, so it is found by
// its remote address: the socket's own *net.TCPAddr, one per connection.
var byRemote sync.Map // *net.TCPAddr -> *conn

func trackState(c *conn) {
	if a, ok := c.Conn.RemoteAddr().(*net.TCPAddr); ok {
		byRemote.Store(a, c)
	}
}

func untrackState(c *conn) {
	if a, ok := c.Conn.RemoteAddr().(*net.TCPAddr); ok {
		byRemote.CompareAndDelete(a, c)
	}
}

// hookedApps are the http apps whose servers report to the hook; one
// client_tcp of a config hooks them all.
var hookedApps sync.Map // *caddyhttp.App -> struct{}

// hookServers registers the state hook on the servers of the http app
// that loads lw, and returns that app (nil if lw is not in one).
func hookServers(ctx caddy.Context) *caddyhttp.App {
	for _, m := range ctx.Modules() {
		app, ok := m.(*caddyhttp.App)
		if !ok {
			continue
		}
		if _, done := hookedApps.LoadOrStore(app, struct{}{}); done {
			return app
		}
		for _, srv := range app.Servers {
			srv.RegisterConnState(func(nc net.Conn, st http.ConnState) {
				if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
					if c, ok := byRemote.Load(a); ok {
						c.(*conn).setState(srv, st)
					}
				}
			})
		}
		return app
	}
	return nil
}
