package quicedge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

func validate(t *testing.T, caddyfile string) error {
	t.Helper()
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		t.Fatal(err)
	}
	var c caddy.Config
	if err := json.Unmarshal(cfg, &c); err != nil {
		t.Fatal(err)
	}
	return caddy.Validate(&c)
}

// Caddy's own HTTP/3 would bind the same UDP port: the config says so
// instead of failing at bind time with "address in use".
func TestRefusesServerThatAlsoEnablesCaddysH3(t *testing.T) {
	err := validate(t, "{\n\tquic\n}\nlocalhost:9443 {\n\ttls internal\n\trespond hi\n}\n")
	if err == nil || !strings.Contains(err.Error(), "protocols h1 h2") {
		t.Fatalf("want an error that says to set protocols h1 h2, got %v", err)
	}
}

func TestRefusesUnknownServer(t *testing.T) {
	err := validate(t, "{\n\tservers {\n\t\tprotocols h1 h2\n\t}\n\tquic {\n\t\tservers nosuch\n\t}\n}\nlocalhost:9443 {\n\ttls internal\n\trespond hi\n}\n")
	if err == nil || !strings.Contains(err.Error(), `server "nosuch" is not in the http app`) {
		t.Fatalf("got %v", err)
	}
}

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	app := func(settings string) string {
		return `{"admin": {"disabled": true}, "apps": {"quic": {` + settings + `}}}`
	}
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"negative streams", app(`"max_incoming_streams": -1`), "max_incoming_streams -1: want 1 to 1048576"},
		{"too many streams", app(`"max_incoming_streams": 2000000`), "max_incoming_streams 2000000: want 1 to 1048576"},
		{"packet too small", app(`"initial_packet_size": 500`), "initial_packet_size 500: want 1200 to 65535"},
		{"negative idle timeout", app(`"idle_timeout": "-1s"`), "idle_timeout -1s: want a positive duration"},
		{"negative keep-alive other than off", app(`"keep_alive": "-5s"`), "keep_alive -5s: want a positive duration, or -1 (off)"},
		{"negative conn idle timeout", app(`"conn_idle_timeout": "-2m"`), "conn_idle_timeout -2m0s: want a positive duration"},
		{"negative grace period", app(`"grace_period": "-1s"`), "grace_period -1s: want a positive duration"},
		{"no sessions per connection", app(`"webtransport_max_sessions_per_connection": -1`), "webtransport_max_sessions_per_connection -1: want 1 to 1024"},
		{"too many sessions per connection", app(`"webtransport_max_sessions_per_connection": 5000`), "webtransport_max_sessions_per_connection 5000: want 1 to 1024"},
		{"session streams above the connection's", app(`"max_incoming_streams": 10, "webtransport_session_max_streams": 11`), "webtransport_session_max_streams 11: want 1 to max_incoming_streams (10)"},
		{"negative session data", app(`"webtransport_session_max_data": -1`), "webtransport_session_max_data -1: want 1 to 1073741824 bytes"},
		{"session data above 1 GiB", app(`"webtransport_session_max_data": 2147483648`), "webtransport_session_max_data 2147483648: want 1 to 1073741824 bytes"},
		{"careful resume without BBR", app(`"congestion_control": "reno", "careful_resume": true`), `careful_resume needs congestion_control bbr, not "reno"`},
		{"negative alt_svc max age", testcaddy.HTTPHandlerConfig(t, `{"handler": "alt_svc", "max_age": "-1h"}`), "alt_svc: max_age must not be negative"},
	})
}

// The Caddyfile's values reach Validate: a negative grace period parses
// (it is a duration) and is refused there.
func TestCaddyfileValuesAreValidated(t *testing.T) {
	err := validate(t, "{\n\tservers {\n\t\tprotocols h1 h2\n\t}\n\tquic {\n\t\tgrace_period -1s\n\t\tmax_incoming_streams 5\n\t}\n}\nlocalhost:9443 {\n\ttls internal\n\trespond hi\n}\n")
	if err == nil || !strings.Contains(err.Error(), "grace_period -1s: want a positive duration") {
		t.Fatalf("got %v", err)
	}
}
