package cdnloop

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("cdn_loop", parseCaddyfile)
	// Early, before edge_cache (which is ordered before encode): a looped
	// request must be refused before the cache looks it up or joins the
	// fetch it may itself be part of.
	httpcaddyfile.RegisterDirectiveOrder("cdn_loop", httpcaddyfile.After, "request_header")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	handler := new(Handler)
	err := handler.UnmarshalCaddyfile(h.Dispenser)
	return handler, err
}

// UnmarshalCaddyfile sets up the handler:
//
//	cdn_loop <node> {
//		cdn_id <id>
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.ArgErr()
	}
	h.Node = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "cdn_id":
			if !d.NextArg() {
				return d.ArgErr()
			}
			h.CDNID = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
		default:
			return d.Errf("unrecognized cdn_loop option %q", d.Val())
		}
	}
	return nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)
