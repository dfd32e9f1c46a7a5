package anycast

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("anycast", parseGlobalOption)
}

// parseGlobalOption sets up the anycast app:
//
//	anycast {
//		check_interval <duration>
//		hold_down <duration>
//		drain_wait <duration>
//		drain_timeout <duration>
//		bgp {
//			router_id <ipv4>
//			local_asn <asn>
//			next_hop <ipv4>
//			next_hop6 <ipv6>
//			connect_retry <duration>
//			prefix <cidr...>
//			peer <address> <asn> {
//				port <port>
//				password <secret>
//			}
//		}
//	}
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	app := new(App)
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "anycast", Value: caddyconfig.JSON(app, nil)}, nil
}

// UnmarshalCaddyfile sets up the app from Caddyfile tokens.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // option name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "check_interval", "hold_down", "drain_wait", "drain_timeout":
			field := map[string]*caddy.Duration{"check_interval": &a.CheckInterval, "hold_down": &a.HoldDown,
				"drain_wait": &a.DrainWait, "drain_timeout": &a.DrainTimeout}[d.Val()]
			if err := durationArg(d, field); err != nil {
				return err
			}
		case "bgp":
			a.BGP = new(BGPConfig)
			if err := a.BGP.unmarshalCaddyfile(d); err != nil {
				return err
			}
		default:
			return d.Errf("unknown anycast option %q", d.Val())
		}
	}
	return nil
}

func (c *BGPConfig) unmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch opt := d.Val(); opt {
		case "router_id", "next_hop", "next_hop6":
			if !d.NextArg() {
				return d.ArgErr()
			}
			*map[string]*string{"router_id": &c.RouterID, "next_hop": &c.NextHop, "next_hop6": &c.NextHop6}[opt] = d.Val()
		case "local_asn":
			asn, err := uintArg(d, 32)
			if err != nil {
				return err
			}
			c.LocalASN = uint32(asn)
		case "connect_retry":
			if err := durationArg(d, &c.ConnectRetry); err != nil {
				return err
			}
		case "prefix":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			c.Prefixes = append(c.Prefixes, args...)
		case "peer":
			var p Peer
			if !d.NextArg() {
				return d.ArgErr()
			}
			p.Address = d.Val()
			asn, err := uintArg(d, 32)
			if err != nil {
				return err
			}
			p.ASN = uint32(asn)
			for pn := d.Nesting(); d.NextBlock(pn); {
				switch d.Val() {
				case "port":
					port, err := uintArg(d, 16)
					if err != nil {
						return err
					}
					p.Port = uint16(port)
				case "password":
					if !d.NextArg() {
						return d.ArgErr()
					}
					p.Password = d.Val()
				default:
					return d.Errf("unknown peer option %q", d.Val())
				}
			}
			c.Peers = append(c.Peers, p)
		default:
			return d.Errf("unknown bgp option %q", opt)
		}
	}
	return nil
}

func durationArg(d *caddyfile.Dispenser, into *caddy.Duration) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	dur, err := caddy.ParseDuration(d.Val())
	if err != nil {
		return d.Errf("%s: %v", d.Val(), err)
	}
	*into = caddy.Duration(dur)
	return nil
}

func uintArg(d *caddyfile.Dispenser, bits int) (uint64, error) {
	if !d.NextArg() {
		return 0, d.ArgErr()
	}
	n, err := strconv.ParseUint(d.Val(), 10, bits)
	if err != nil {
		return 0, d.Errf("%s: want a number below 2^%d", d.Val(), bits)
	}
	return n, nil
}
