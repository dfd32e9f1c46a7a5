package wtfanout

import (
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"

	"github.com/lastmile-edge/lastmile/modules/wtproxy"
)

// UnmarshalCaddyfile sets up the module, inside a webtransport block; it
// parses types only, Validate checks the values:
//
//	session fanout <upstream-template> {
//		replay <n>
//		queue <n>
//		overflow notify|close
//		max_subscriptions <n>
//		max_subscriptions_per_client <n>
//		datagrams on|off
//		reconnect <min> <max>
//		linger <duration>
//		dial_timeout <duration>
//		max_event_size <size>
//		header_up <name> <value>
//		tls_trusted_ca_certs <pem-files...>
//		tls_server_name <name>
//		tls_client_auth <cert-file> <key-file>
//		tls_insecure_skip_verify
//	}
func (f *Fanout) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // module name
	if !d.NextArg() {
		return d.Err("fanout: an upstream URL template is required")
	}
	f.Upstream = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		if ok, err := wtproxy.ParseTLSOption(d, &f.TLS); err != nil {
			return err
		} else if ok {
			continue
		}
		var err error
		switch opt {
		case "replay":
			var n int
			n, err = intArg(d)
			f.Replay = &n
		case "queue":
			f.Queue, err = intArg(d)
		case "max_subscriptions":
			f.MaxSubscriptions, err = intArg(d)
		case "max_subscriptions_per_client":
			f.MaxSubscriptionsPerClient, err = intArg(d)
		case "overflow":
			err = oneArg(d, &f.Overflow)
		case "datagrams":
			var v string
			if err = oneArg(d, &v); err == nil {
				switch v {
				case "on":
					f.NoDatagrams = false
				case "off":
					f.NoDatagrams = true
				default:
					err = d.Errf("datagrams %q: want on or off", v)
				}
			}
		case "reconnect":
			var lo, hi string
			if !d.AllArgs(&lo, &hi) {
				return d.ArgErr()
			}
			if f.ReconnectMin, err = duration(d, opt, lo); err == nil {
				f.ReconnectMax, err = duration(d, opt, hi)
			}
		case "linger":
			var v string
			if err = oneArg(d, &v); err == nil {
				var dur caddy.Duration
				dur, err = duration(d, opt, v)
				f.Linger = &dur
			}
		case "dial_timeout":
			var v string
			if err = oneArg(d, &v); err == nil {
				f.DialTimeout, err = duration(d, opt, v)
			}
		case "max_event_size":
			var v string
			if err = oneArg(d, &v); err == nil {
				size, perr := humanize.ParseBytes(v)
				if perr != nil || size > maxEventSize {
					return d.Errf("max_event_size %q: want a size such as 64KiB, at most 16MiB", v)
				}
				f.MaxEventSize = int(size)
			}
		case "header_up":
			var name, value string
			if !d.AllArgs(&name, &value) {
				return d.ArgErr()
			}
			if f.Headers == nil {
				f.Headers = make(http.Header)
			}
			f.Headers.Add(name, value)
		default:
			return d.Errf("unrecognized fanout option %q", opt)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func oneArg(d *caddyfile.Dispenser, v *string) error {
	if !d.AllArgs(v) {
		return d.ArgErr()
	}
	return nil
}

func intArg(d *caddyfile.Dispenser) (int, error) {
	opt := d.Val()
	var v string
	if err := oneArg(d, &v); err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, d.Errf("%s %q: want a whole number", opt, v)
	}
	return n, nil
}

func duration(d *caddyfile.Dispenser, opt, v string) (caddy.Duration, error) {
	dur, err := caddy.ParseDuration(v)
	if err != nil {
		return 0, d.Errf("%s %q: want a duration", opt, v)
	}
	return caddy.Duration(dur), nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Fanout)(nil)
