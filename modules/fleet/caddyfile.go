package fleet

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("fleet", parseGlobalOption)
}

// parseGlobalOption sets up the fleet app:
//
//	fleet {
//		nats <url...>
//		credentials <file>
//		nkey <seed file>
//		token <token>
//		user <user> <password>
//		tls {
//			ca <file>
//			cert <file>
//			key <file>
//		}
//		stream <name>
//		subject <subject>
//		ack_subject <subject>
//		node <id>
//		max_age <duration>
//		max_msgs <n>
//		replicas <n>
//		duplicate_window <duration>
//		timeout <duration>
//	}
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	app := new(App)
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "fleet", Value: caddyconfig.JSON(app, nil)}, nil
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
		case "nats":
			a.Servers = append(a.Servers, d.RemainingArgs()...)
			if len(a.Servers) == 0 {
				return d.ArgErr()
			}
		case "credentials", "nkey", "token", "stream", "subject", "ack_subject", "node":
			v, err := oneArg(d)
			if err != nil {
				return err
			}
			*map[string]*string{"credentials": &a.Credentials, "nkey": &a.NKey, "token": &a.Token, "stream": &a.Stream,
				"subject": &a.Subject, "ack_subject": &a.AckSubject, "node": &a.Node}[opt] = v
		case "user":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.ArgErr()
			}
			a.User, a.Password = args[0], args[1]
		case "tls":
			if d.NextArg() {
				return d.ArgErr()
			}
			a.TLS = new(TLS)
			for d.NextBlock(1) {
				field := d.Val()
				v, err := oneArg(d)
				if err != nil {
					return err
				}
				switch field {
				case "ca":
					a.TLS.CA = v
				case "cert":
					a.TLS.Cert = v
				case "key":
					a.TLS.Key = v
				default:
					return d.Errf("unrecognized fleet tls option %q", field)
				}
			}
		case "max_age", "duplicate_window", "timeout":
			v, err := oneArg(d)
			if err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil {
				return d.Errf("%s %s: %v", opt, v, err)
			}
			*map[string]*caddy.Duration{"max_age": &a.MaxAge, "duplicate_window": &a.Duplicates, "timeout": &a.Timeout}[opt] = caddy.Duration(dur)
		case "max_msgs", "replicas":
			v, err := oneArg(d)
			if err != nil {
				return err
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return d.Errf("%s %s: want a whole number", opt, v)
			}
			if opt == "max_msgs" {
				a.MaxMsgs = n
			} else {
				a.Replicas = int(min(max(n, -1), 1000)) // Validate names the range
			}
		default:
			return d.Errf("unrecognized fleet option %q", opt)
		}
	}
	return nil
}

func oneArg(d *caddyfile.Dispenser) (string, error) {
	if !d.NextArg() {
		return "", d.ArgErr()
	}
	v := d.Val()
	if d.NextArg() {
		return "", d.ArgErr()
	}
	return v, nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*App)(nil)
