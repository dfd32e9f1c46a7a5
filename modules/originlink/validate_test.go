package originlink

import (
	"net"
	"sync/atomic"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// proxyTo is a config whose route proxies to addr through origin_link with
// the given transport fields.
func proxyTo(t *testing.T, addr, fields string) string {
	return testcaddy.HTTPHandlerConfig(t, `{"handler": "reverse_proxy", "upstreams": [{"dial": "`+addr+`"}], `+
		`"transport": {"protocol": "origin_link"`+fields+`}}`)
}

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	link := func(fields string) string { return proxyTo(t, "127.0.0.1:9", fields) }
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"unknown protocol", link(`, "origin_protocol": "spdy"`), `protocol "spdy": want h2, h2c, h3 or h1`},
		{"h2 without TLS", link(`, "origin_protocol": "h2"`), "protocol h2 needs tls"},
		{"pool too large", link(`, "pool_size": 65`), "pool_size 65: want 1 to 64"},
		{"negative pool", link(`, "pool_size": -1`), "pool_size -1: want 1 to 64"},
		{"negative notsent_lowat", link(`, "notsent_lowat": -1`), "notsent_lowat -1: want 1 byte to 1 GiB"},
		{"negative bandwidth", link(`, "path_bandwidth": -1000000`), "path_bandwidth -1000000: must not be negative"},
		{"negative path RTT", link(`, "path_rtt": "-20ms"`), "path_rtt -20ms: want a positive duration"},
		{"negative ping interval", link(`, "ping_interval": "-1s"`), "ping_interval -1s: want a positive duration"},
		{"negative dial timeout", link(`, "dial_timeout": "-3s"`), "dial_timeout -3s: want a positive duration"},
		{"warm without port", link(`, "warm": ["origin.internal"]`), `warm "origin.internal": want host:port`},
	})
}

// `caddy validate` and `lastmile validate` provision a config without
// starting it, and must not dial its warm pools; started, the same pools
// dial before any request. The origin is TLS so that the check is exact:
// the origin accepts a connection before the client's handshake can
// complete, so a dial made while validating would be counted by the time
// Validate returns.
func TestValidateDoesNotDialWarmPools(t *testing.T) {
	var accepted atomic.Int64
	addr := startTLSOrigin(t, nil, func(net.Conn) { accepted.Add(1) })

	cfg := proxyTo(t, addr, `, "warm": ["`+addr+`"], "pool_size": 2, "dial_timeout": "5s", "tls": {"insecure_skip_verify": true}`)
	if err := testcaddy.Validate(t, cfg); err != nil {
		t.Fatal(err)
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("validating the config opened %d connections to the origin", n)
	}

	startEdge(t, addr, "pool_size 2\n\t\t\ttls\n\t\t\ttls_insecure_skip_verify")
	waitFor(t, "the started config's 2 warm links", func() bool { return accepted.Load() == 2 })
}
