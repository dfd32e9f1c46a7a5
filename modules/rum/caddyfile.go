package rum

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("rum", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		handler := new(Handler)
		return handler, handler.UnmarshalCaddyfile(h.Dispenser)
	})
	// Inside encode: the tag goes into the body before it is compressed.
	httpcaddyfile.RegisterDirectiveOrder("rum", httpcaddyfile.After, "encode")
}

// UnmarshalCaddyfile sets up the handler:
//
//	rum {
//		path <path>
//		origins <origin...>
//		rate_limit <per second>
//		region_header <field>
//		regions <value...>
//		inject
//		sample_rate <0..1>
//		respect_privacy
//		raw_sink <file> [<max_size_mb> [<max_backups>]]
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	for d.NextBlock(0) {
		switch opt := d.Val(); opt {
		case "path", "region_header":
			if !d.NextArg() {
				return d.ArgErr()
			}
			if opt == "path" {
				h.Path = d.Val()
			} else {
				h.RegionHeader = d.Val()
			}
		case "origins", "regions":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			if opt == "origins" {
				h.Origins = append(h.Origins, args...)
			} else {
				h.Regions = append(h.Regions, args...)
			}
		case "rate_limit", "sample_rate":
			if !d.NextArg() {
				return d.ArgErr()
			}
			v, err := strconv.ParseFloat(d.Val(), 64)
			if err != nil {
				return d.Errf("%s %q: want a number", opt, d.Val())
			}
			if opt == "rate_limit" {
				h.RateLimit = v
			} else {
				h.SampleRate = v
			}
		case "inject":
			h.Inject = true
		case "respect_privacy":
			h.RespectPrivacy = true
		case "raw_sink":
			rs, err := parseRawSink(d)
			if err != nil {
				return err
			}
			h.RawSink = rs
		default:
			return d.Errf("unrecognized rum option %q", opt)
		}
	}
	return nil
}

// UnmarshalCaddyfile sets up the WebTransport session module:
//
//	session rum {
//		region_header <field>
//		regions <value...>
//		rate_limit <per second>
//		raw_sink <file> [<max_size_mb> [<max_backups>]]
//	}
func (s *Session) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // module name
	for d.NextBlock(0) {
		switch opt := d.Val(); opt {
		case "region_header":
			if !d.NextArg() {
				return d.ArgErr()
			}
			s.RegionHeader = d.Val()
		case "regions":
			s.Regions = d.RemainingArgs()
			if len(s.Regions) == 0 {
				return d.ArgErr()
			}
		case "rate_limit":
			if !d.NextArg() {
				return d.ArgErr()
			}
			v, err := strconv.ParseFloat(d.Val(), 64)
			if err != nil {
				return d.Errf("rate_limit %q: want a number", d.Val())
			}
			s.RateLimit = v
		case "raw_sink":
			rs, err := parseRawSink(d)
			if err != nil {
				return err
			}
			s.RawSink = rs
		default:
			return d.Errf("unrecognized rum session option %q", opt)
		}
	}
	return nil
}

// parseRawSink reads raw_sink's arguments: <file> [<max_size_mb> [<max_backups>]].
func parseRawSink(d *caddyfile.Dispenser) (*RawSink, error) {
	args := d.RemainingArgs()
	if len(args) < 1 || len(args) > 3 {
		return nil, d.ArgErr()
	}
	rs := &RawSink{Path: args[0]}
	for i, p := range []*int{&rs.MaxSizeMB, &rs.MaxBackups} {
		if len(args) > i+1 {
			n, err := strconv.Atoi(args[i+1])
			if err != nil {
				return nil, d.Errf("raw_sink %q: want a whole number", args[i+1])
			}
			*p = n
		}
	}
	return rs, nil
}

// Interface guards
var (
	_ caddyfile.Unmarshaler = (*Handler)(nil)
	_ caddyfile.Unmarshaler = (*Session)(nil)
)
