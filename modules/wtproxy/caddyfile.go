package wtproxy

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
)

// UnmarshalCaddyfile sets up the module, inside a webtransport block:
//
//	session proxy <upstream-url> {
//		tls_trusted_ca_certs <pem-files...>
//		tls_server_name <name>
//		tls_client_auth <cert-file> <key-file>
//		tls_insecure_skip_verify
//		dial_timeout <duration>
//		buffer_size <size>
//		max_streams <n>
//		sessions_per_connection <n>
//		forward_headers <header-names...>
//		protocols <application-protocols...>
//	}
func (p *Proxy) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // module name
	if !d.NextArg() {
		return d.Err("proxy: an upstream URL is required")
	}
	p.Upstream = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		if ok, err := ParseTLSOption(d, &p.TLS); err != nil {
			return err
		} else if ok {
			continue
		}
		switch opt {
		case "dial_timeout":
			if !d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(d.Val())
			if err != nil {
				return d.Errf("dial_timeout %q: want a duration", d.Val())
			}
			p.DialTimeout = caddy.Duration(dur)
		case "buffer_size":
			if !d.NextArg() {
				return d.ArgErr()
			}
			size, err := humanize.ParseBytes(d.Val())
			if err != nil || size > maxBufferSize {
				return d.Errf("buffer_size %q: want a size such as 32KiB, at most 16MiB", d.Val())
			}
			p.BufferSize = int(size)
		case "max_streams", "sessions_per_connection":
			if !d.NextArg() {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(d.Val())
			if err != nil {
				return d.Errf("%s %q: want a whole number", opt, d.Val())
			}
			if opt == "max_streams" {
				p.MaxStreams = n
			} else {
				p.SessionsPerConnection = n
			}
		case "forward_headers":
			names := d.RemainingArgs()
			if len(names) == 0 {
				return d.ArgErr()
			}
			p.ForwardHeaders = append(p.ForwardHeaders, names...)
		case "protocols":
			names := d.RemainingArgs()
			if len(names) == 0 {
				return d.ArgErr()
			}
			p.Protocols = append(p.Protocols, names...)
		default:
			return d.Errf("unrecognized proxy option %q", opt)
		}
	}
	return nil
}

// ParseTLSOption parses the upstream TLS option at d, if it is one, into
// *t (allocated on first use): tls_trusted_ca_certs, tls_server_name,
// tls_client_auth, tls_insecure_skip_verify.
func ParseTLSOption(d *caddyfile.Dispenser, t **UpstreamTLS) (bool, error) {
	conf := func() *UpstreamTLS {
		if *t == nil {
			*t = new(UpstreamTLS)
		}
		return *t
	}
	switch d.Val() {
	case "tls_trusted_ca_certs":
		files := d.RemainingArgs()
		if len(files) == 0 {
			return true, d.ArgErr()
		}
		conf().RootCAPEMFiles = append(conf().RootCAPEMFiles, files...)
	case "tls_server_name":
		if !d.AllArgs(&conf().ServerName) {
			return true, d.ArgErr()
		}
	case "tls_client_auth":
		c := conf()
		if !d.AllArgs(&c.ClientCertificateFile, &c.ClientCertificateKeyFile) {
			return true, d.ArgErr()
		}
	case "tls_insecure_skip_verify":
		if d.NextArg() {
			return true, d.ArgErr()
		}
		conf().InsecureSkipVerify = true
	default:
		return false, nil
	}
	return true, nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Proxy)(nil)
