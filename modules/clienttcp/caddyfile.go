package clienttcp

import (
	"math"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
)

// UnmarshalCaddyfile sets up the wrapper, in the servers global option:
//
//	listener_wrappers {
//		client_tcp {
//			congestion_control <name>
//			notsent_lowat <size>|off
//			answer_hits on|off
//		}
//		tls
//	}
func (lw *ListenerWrapper) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // wrapper name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		if !d.NextArg() {
			return d.ArgErr()
		}
		switch opt {
		case "congestion_control":
			lw.CongestionControl = d.Val()
		case "notsent_lowat":
			if d.Val() == "off" {
				lw.NotsentLowat = -1
				break
			}
			n, err := humanize.ParseBytes(d.Val())
			if err != nil || n > math.MaxInt32 {
				return d.Errf("notsent_lowat %q: want a size such as 16KiB, or off", d.Val())
			}
			lw.NotsentLowat = int(n)
		case "answer_hits":
			on := d.Val() == "on"
			if !on && d.Val() != "off" {
				return d.Errf("answer_hits %q: want on or off", d.Val())
			}
			lw.AnswerHits = &on
		default:
			return d.Errf("unrecognized client_tcp option %q", opt)
		}
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*ListenerWrapper)(nil)
