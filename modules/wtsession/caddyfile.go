package wtsession

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("webtransport", parseCaddyfile)
	// After authentication, so auth applies to the CONNECT.
	httpcaddyfile.RegisterDirectiveOrder("webtransport", httpcaddyfile.After, "forward_auth")
}

// parseCaddyfile sets up the handler:
//
//	webtransport [<matcher>] {
//		origins <origin...>
//		max_sessions_per_client <n>
//		idle_timeout <duration>
//		session <module> [<module options...>]
//	}
func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	handler := new(Handler)
	if err := handler.UnmarshalCaddyfile(h.Dispenser); err != nil {
		return nil, err
	}
	return handler, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "origins":
			h.Origins = append(h.Origins, d.RemainingArgs()...)
			if len(h.Origins) == 0 {
				return d.ArgErr()
			}
		case "max_sessions_per_client":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil {
				return d.Errf("max_sessions_per_client %q: want a whole number", d.Val())
			}
			h.MaxSessionsPerClient = n
		case "idle_timeout":
			if !d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("idle_timeout %q: want a duration", d.Val())
			}
			h.IdleTimeout = caddy.Duration(dur)
		case "session":
			if !d.NextArg() {
				return d.ArgErr()
			}
			name := d.Val()
			unm, err := caddyfile.UnmarshalModule(d, "webtransport.sessions."+name)
			if err != nil {
				return err
			}
			h.SessionRaw = caddyconfig.JSONModuleObject(unm, "handler", name, nil)
		default:
			return d.Errf("unrecognized webtransport option %q", d.Val())
		}
	}
	return nil
}

// UnmarshalCaddyfile sets up the echo module: `session echo [<max_stream_bytes>]`.
func (e *Echo) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // module name
	if d.NextArg() {
		n, err := strconv.ParseInt(d.Val(), 10, 64)
		if err != nil {
			return d.Errf("echo max stream bytes %q: want a whole number", d.Val())
		}
		e.MaxStreamBytes = n
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

// Interface guards
var (
	_ caddyfile.Unmarshaler = (*Handler)(nil)
	_ caddyfile.Unmarshaler = (*Echo)(nil)
)
