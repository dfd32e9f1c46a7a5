package anycast

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

func TestCaddyfileAdapt(t *testing.T) { adapttest.Run(t, "testdata") }

// JSON configs get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	app := func(fields string) string {
		return `{"admin": {"disabled": true}, "apps": {"anycast": {` + fields + `}}}`
	}
	bgp := func(fields string) string {
		return app(`"bgp": {"router_id": "10.0.0.2", "local_asn": 65010, "prefixes": ["203.0.113.0/24"], ` +
			`"peers": [{"address": "192.0.2.1", "asn": 65000}]` + fields + `}`)
	}
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"negative hold-down", app(`"hold_down": "-1s"`), "hold_down -1s: want a positive duration"},
		{"negative drain wait", app(`"drain_wait": "-5s"`), "drain_wait -5s: want a positive duration"},
		{"check interval too short", app(`"check_interval": "1ms"`), "check_interval 1ms: want at least 10ms"},
		{"router id not IPv4", app(`"bgp": {"router_id": "::1"}`), `router_id "::1": want an IPv4 address`},
		{"no local ASN", app(`"bgp": {"router_id": "10.0.0.2"}`), "local_asn: required"},
		{"no peers", app(`"bgp": {"router_id": "10.0.0.2", "local_asn": 65010}`), "at least one peer is required"},
		{"peer not an address", app(`"bgp": {"router_id": "10.0.0.2", "local_asn": 65010, "peers": [{"address": "router.example", "asn": 65000}]}`), `peer "router.example": want an IP address`},
		{"peer without ASN", app(`"bgp": {"router_id": "10.0.0.2", "local_asn": 65010, "peers": [{"address": "192.0.2.1"}]}`), "peer 192.0.2.1: asn required"},
		{"no prefixes", bgp(`, "prefixes": []`), "at least one prefix is required"},
		{"prefix with host bits", bgp(`, "prefixes": ["203.0.113.7/24"]`), `prefix "203.0.113.7/24": want a network in CIDR form`},
		{"IPv6 prefix without next_hop6", bgp(`, "prefixes": ["2001:db8::/48"]`), `prefix 2001:db8::/48: next_hop6 "": want an IPv6 address`},
		{"IPv4 next hop that is IPv6", bgp(`, "next_hop": "2001:db8::1"`), `next_hop "2001:db8::1": want an IPv4 address`},
		{"negative connect retry", bgp(`, "connect_retry": "-1s"`), "connect_retry -1s: want a positive duration"},
	})
}
