package quicedge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
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
