package quicedge

import (
	"math"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("quic", parseGlobalOption)
	httpcaddyfile.RegisterHandlerDirective("alt_svc", parseAltSvc)
	// First, so every TCP response carries it, errors included.
	httpcaddyfile.RegisterDirectiveOrder("alt_svc", httpcaddyfile.Before, "tracing")
}

// parseGlobalOption sets up the quic app:
//
//	quic {
//		servers <name...>
//		idle_timeout <duration>
//		keep_alive <duration|off>
//		conn_idle_timeout <duration>
//		max_incoming_streams <n>
//		initial_packet_size <bytes>
//		disable_path_mtu_discovery
//		datagrams on|off
//		zero_rtt on|off
//		allow_early_data { <matchers> }
//		grace_period <duration>
//		congestion_control bbr|cubic|reno
//		careful_resume on|off
//		qlog_dir <path>
//		qlog_max_size <size>
//		webtransport_max_sessions_per_connection <n>
//		webtransport_session_max_streams <n>
//		webtransport_session_max_data <size>
//	}
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	app := new(App)
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "quic", Value: caddyconfig.JSON(app, nil)}, nil
}

// UnmarshalCaddyfile sets up the app from Caddyfile tokens.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // option name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "servers":
			a.Servers = append(a.Servers, d.RemainingArgs()...)
			if len(a.Servers) == 0 {
				return d.ArgErr()
			}
		case "idle_timeout", "conn_idle_timeout", "grace_period":
			dur, err := durationArg(d)
			if err != nil {
				return err
			}
			switch opt {
			case "idle_timeout":
				a.IdleTimeout = dur
			case "conn_idle_timeout":
				a.ConnIdleTimeout = dur
			default:
				a.GracePeriod = dur
			}
		case "keep_alive":
			if !d.NextArg() {
				return d.ArgErr()
			}
			if d.Val() == "off" {
				a.KeepAlivePeriod = -1
				break
			}
			d.Prev()
			dur, err := durationArg(d)
			if err != nil {
				return err
			}
			a.KeepAlivePeriod = dur
		case "max_incoming_streams", "webtransport_session_max_streams", "webtransport_max_sessions_per_connection":
			n, err := intArg(d)
			if err != nil {
				return err
			}
			switch opt {
			case "max_incoming_streams":
				a.MaxIncomingStreams = n
			case "webtransport_session_max_streams":
				a.WebTransportSessionStreams = n
			default:
				if n > maxSessionsPerConn {
					return d.Errf("webtransport_max_sessions_per_connection %d: want 1 to %d", n, maxSessionsPerConn)
				}
				a.WebTransportMaxSessions = int(n)
			}
		case "webtransport_session_max_data":
			if !d.NextArg() {
				return d.ArgErr()
			}
			size, err := humanize.ParseBytes(d.Val())
			if err != nil || size > maxSessionData {
				return d.Errf("webtransport_session_max_data %s: want a size up to 1GiB, such as 4MiB", d.Val())
			}
			a.WebTransportSessionData = int64(size)
			if d.NextArg() {
				return d.ArgErr()
			}
		case "initial_packet_size":
			n, err := intArg(d)
			if err != nil {
				return err
			}
			if n < 0 || n > math.MaxUint16 {
				return d.Errf("initial_packet_size %d: want 1200 to 65535", n)
			}
			a.InitialPacketSize = uint16(n)
		case "disable_path_mtu_discovery":
			if d.NextArg() {
				return d.ArgErr()
			}
			a.DisablePathMTUDiscovery = true
		case "datagrams", "zero_rtt", "careful_resume":
			on, err := onOffArg(d)
			if err != nil {
				return err
			}
			switch opt {
			case "datagrams":
				a.Datagrams = &on
			case "zero_rtt":
				a.ZeroRTT = &on
			default:
				a.CarefulResume = &on
			}
		case "allow_early_data":
			set, err := caddyhttp.ParseCaddyfileNestedMatcherSet(d)
			if err != nil {
				return err
			}
			a.AllowEarlyData = append(a.AllowEarlyData, set)
		case "congestion_control":
			if !d.NextArg() {
				return d.ArgErr()
			}
			a.CongestionControl = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
			if err := a.checkCongestionControl(); err != nil {
				return d.Err(err.Error())
			}
		case "qlog_dir":
			if !d.NextArg() {
				return d.ArgErr()
			}
			a.QlogDir = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
		case "qlog_max_size":
			if !d.NextArg() {
				return d.ArgErr()
			}
			size, err := humanize.ParseBytes(d.Val())
			if err != nil || size == 0 || size > 1<<50 {
				return d.Errf("qlog_max_size %s: want a size such as 512MiB", d.Val())
			}
			a.QlogMaxSize = int64(size)
			if d.NextArg() {
				return d.ArgErr()
			}
		default:
			return d.Errf("unrecognized quic option %q", opt)
		}
	}
	return nil
}

// parseAltSvc sets up the alt_svc handler:
//
//	alt_svc [<max_age>]
func parseAltSvc(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	h.Next() // directive name
	handler := new(AltSvc)
	if h.NextArg() {
		dur, err := caddy.ParseDuration(h.Val())
		if err != nil {
			return nil, h.Errf("alt_svc max age: %v", err)
		}
		handler.MaxAge = caddy.Duration(dur)
	}
	if h.NextArg() || h.NextBlock(0) {
		return nil, h.ArgErr()
	}
	return handler, nil
}

func durationArg(d *caddyfile.Dispenser) (caddy.Duration, error) {
	if !d.NextArg() {
		return 0, d.ArgErr()
	}
	dur, err := caddy.ParseDuration(d.Val())
	if err != nil {
		return 0, d.Errf("%s: %v", d.Val(), err)
	}
	if d.NextArg() {
		return 0, d.ArgErr()
	}
	return caddy.Duration(dur), nil
}

// intArg parses a whole number; Validate checks its range.
func intArg(d *caddyfile.Dispenser) (int64, error) {
	if !d.NextArg() {
		return 0, d.ArgErr()
	}
	n, err := strconv.ParseInt(d.Val(), 10, 64)
	if err != nil {
		return 0, d.Errf("%s: want a whole number", d.Val())
	}
	if d.NextArg() {
		return 0, d.ArgErr()
	}
	return n, nil
}

func onOffArg(d *caddyfile.Dispenser) (bool, error) {
	if !d.NextArg() {
		return false, d.ArgErr()
	}
	v := d.Val()
	if d.NextArg() {
		return false, d.ArgErr()
	}
	switch v {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, d.Errf("%s: want on or off", v)
}

// Interface guards
var (
	_ caddyfile.Unmarshaler = (*App)(nil)
)
