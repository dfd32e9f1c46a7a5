package originlink

import (
	"math"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"github.com/dustin/go-humanize"
)

// UnmarshalCaddyfile sets up the transport:
//
//	transport origin_link {
//		protocol h2|h2c|h3|h1
//		warm <addr...>
//		pool_size <n>
//		congestion_control <name>
//		path_bandwidth <bits/s, e.g. 1Gbit>
//		path_rtt <duration>
//		notsent_lowat <size>
//		keep_alive <duration>
//		ping_interval <duration>
//		replace_idle <duration>
//		dial_timeout <duration>
//		tls
//		tls_server_name <name>
//		tls_insecure_skip_verify
//	}
func (t *Transport) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // transport name
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "protocol", "congestion_control", "tls_server_name":
			if !d.NextArg() {
				return d.ArgErr()
			}
			switch opt {
			case "protocol":
				t.Protocol = d.Val()
			case "congestion_control":
				t.CongestionControl = d.Val()
			default:
				t.ensureTLS().ServerName = d.Val()
			}
		case "warm":
			t.Warm = append(t.Warm, d.RemainingArgs()...)
			if len(t.Warm) == 0 {
				return d.ArgErr()
			}
		case "pool_size":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil {
				return d.Errf("pool_size %q: want a whole number", d.Val())
			}
			t.PoolSize = n
		case "path_bandwidth":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := parseBits(d.Val())
			if err != nil {
				return d.Errf("path_bandwidth %q: want a rate such as 1Gbit or 500Mbit", d.Val())
			}
			t.PathBandwidth = n
		case "notsent_lowat":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := humanize.ParseBytes(d.Val())
			if err != nil || n > math.MaxInt32 {
				return d.Errf("notsent_lowat %q: want a size such as 128KiB", d.Val())
			}
			t.NotsentLowat = int(n)
		case "path_rtt", "keep_alive", "ping_interval", "replace_idle", "dial_timeout":
			if !d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("%s %q: want a duration", opt, d.Val())
			}
			*map[string]*caddy.Duration{"path_rtt": &t.PathRTT, "keep_alive": &t.KeepAlive, "ping_interval": &t.PingInterval,
				"replace_idle": &t.ReplaceIdle, "dial_timeout": &t.DialTimeout}[opt] = caddy.Duration(dur)
		case "tls":
			t.ensureTLS()
		case "tls_insecure_skip_verify":
			t.ensureTLS().InsecureSkipVerify = true
		default:
			return d.Errf("unrecognized origin_link option %q", opt)
		}
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

func (t *Transport) ensureTLS() *reverseproxy.TLSConfig {
	if t.TLS == nil {
		t.TLS = new(reverseproxy.TLSConfig)
	}
	return t.TLS
}

// parseBits reads a rate such as 1Gbit, 250Mbit or 1000000 (bits/s);
// Validate checks its sign.
func parseBits(s string) (int64, error) {
	for _, u := range []struct {
		suffix string
		mul    int64
	}{{"Gbit", 1e9}, {"Mbit", 1e6}, {"Kbit", 1e3}, {"bit", 1}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok && n != "" {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || math.Abs(v) > math.MaxInt64/float64(u.mul) {
				return 0, strconv.ErrSyntax
			}
			return int64(v * float64(u.mul)), nil
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Transport)(nil)
