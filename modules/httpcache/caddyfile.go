package httpcache

import (
	"math"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("edge_cache", parseCaddyfile)
	// Before encode, so stored bodies are already compressed (encode adds
	// Vary: Accept-Encoding) and hits cost no compression.
	httpcaddyfile.RegisterDirectiveOrder("edge_cache", httpcaddyfile.Before, "encode")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	handler := new(Handler)
	err := handler.UnmarshalCaddyfile(h.Dispenser)
	return handler, err
}

// UnmarshalCaddyfile sets up the handler:
//
//	edge_cache [<matcher>] {
//		name <name>
//		max_bytes <size>
//		max_object_bytes <size>
//		key {
//			ignore_query <param...>
//			sort_query
//			headers <field...>
//			cookies <name...>
//		}
//		heuristic on|off
//		heuristic_max <duration>
//		stale_while_revalidate <duration>
//		stale_if_error <duration>
//		micro_cache <duration> [credentials]
//		credential_headers <field...>
//		deception_armour on|off
//		origin_timeout <duration>
//		refresh_ahead [<amount> [<duration> [<percentage>%]]]
//		prefetch {
//			concurrency <n>
//			max_links <n>
//			early_hints
//		}
//		purge_token <token>
//		status_name <name>
//		hit_fields full|compact
//		forward_edge_fields
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "name", "purge_token", "status_name", "hit_fields":
			if !d.NextArg() {
				return d.ArgErr()
			}
			*map[string]*string{"name": &h.Name, "purge_token": &h.PurgeToken, "status_name": &h.StatusName, "hit_fields": &h.HitFields}[opt] = d.Val()
		case "forward_edge_fields":
			h.ForwardEdgeFields = true
		case "max_bytes", "max_object_bytes":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := humanize.ParseBytes(d.Val())
			if err != nil || n > math.MaxInt64 {
				return d.Errf("%s %q: want a size such as 256MiB", opt, d.Val())
			}
			if opt == "max_bytes" {
				h.MaxBytes = int64(n)
			} else {
				h.MaxObjectBytes = int64(n)
			}
		case "key":
			if err := h.Key.unmarshal(d); err != nil {
				return err
			}
		case "heuristic", "deception_armour":
			if !d.NextArg() || (d.Val() != "on" && d.Val() != "off") {
				return d.Errf("%s: want on or off", opt)
			}
			on := d.Val() == "on"
			if opt == "heuristic" {
				h.Heuristic = &on
			} else {
				h.DeceptionArmour = &on
			}
		case "credential_headers":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			h.CredentialHeaders = append(h.CredentialHeaders, args...)
		case "heuristic_max", "stale_while_revalidate", "stale_if_error", "origin_timeout":
			dur, err := durationArg(d)
			if err != nil {
				return err
			}
			*map[string]*caddy.Duration{
				"heuristic_max": &h.HeuristicMax, "stale_while_revalidate": &h.StaleWhileRevalidate,
				"stale_if_error": &h.StaleIfError, "origin_timeout": &h.OriginTimeout,
			}[opt] = dur
		case "micro_cache":
			dur, err := durationArg(d)
			if err != nil {
				return err
			}
			h.MicroCache = dur
			if d.NextArg() {
				if d.Val() != "credentials" {
					return d.Errf("micro_cache: unknown argument %q (credentials?)", d.Val())
				}
				h.MicroCacheCredentials = true
			}
		case "refresh_ahead":
			ra := new(RefreshAhead)
			if d.NextArg() {
				n, err := strconv.Atoi(d.Val())
				if err != nil {
					return d.Errf("refresh_ahead amount %q: want a whole number", d.Val())
				}
				ra.Amount = n
			}
			if d.NextArg() {
				dur, err := caddy.ParseDuration(d.Val())
				if err != nil {
					return d.Errf("refresh_ahead duration %q: want a duration", d.Val())
				}
				ra.Duration = caddy.Duration(dur)
			}
			if d.NextArg() {
				pct, err := strconv.Atoi(strings.TrimSuffix(d.Val(), "%"))
				if err != nil {
					return d.Errf("refresh_ahead percentage %q: want a percentage such as 10%%", d.Val())
				}
				ra.Percentage = pct
			}
			h.RefreshAhead = ra
		case "prefetch":
			p := new(Prefetch)
			for nesting := d.Nesting(); d.NextBlock(nesting); {
				switch d.Val() {
				case "concurrency", "max_links":
					name := d.Val()
					if !d.NextArg() {
						return d.ArgErr()
					}
					n, err := strconv.Atoi(d.Val())
					if err != nil {
						return d.Errf("prefetch %s %q: want a whole number", name, d.Val())
					}
					if name == "concurrency" {
						p.Concurrency = n
					} else {
						p.MaxLinks = n
					}
				case "early_hints":
					p.EarlyHints = true
				default:
					return d.Errf("unrecognized prefetch option %q", d.Val())
				}
			}
			h.Prefetch = p
		default:
			return d.Errf("unrecognized edge_cache option %q", opt)
		}
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

func (k *KeyConfig) unmarshal(d *caddyfile.Dispenser) error {
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch opt := d.Val(); opt {
		case "ignore_query", "headers", "cookies":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			switch opt {
			case "ignore_query":
				k.IgnoreQuery = append(k.IgnoreQuery, args...)
			case "headers":
				k.Headers = append(k.Headers, args...)
			default:
				k.Cookies = append(k.Cookies, args...)
			}
		case "sort_query":
			k.SortQuery = true
		default:
			return d.Errf("unrecognized key option %q", opt)
		}
	}
	return nil
}

func durationArg(d *caddyfile.Dispenser) (caddy.Duration, error) {
	if !d.NextArg() {
		return 0, d.ArgErr()
	}
	dur, err := caddy.ParseDuration(d.Val())
	if err != nil {
		return 0, d.Errf("%q: want a duration", d.Val())
	}
	return caddy.Duration(dur), nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)
