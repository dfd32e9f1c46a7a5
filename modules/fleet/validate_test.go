package fleet

import (
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// JSON configs (and the admin API) get the checks Caddyfiles get.
func TestValidateRefusesInvalidJSON(t *testing.T) {
	app := func(settings string) string {
		return `{"admin": {"disabled": true}, "apps": {"fleet": {"node": "n1"` + settings + `}}}`
	}
	const url = `, "servers": ["nats://127.0.0.1:4222"]`
	testcaddy.RefuseAll(t, []testcaddy.Invalid{
		{"no servers", app(``), "at least one server URL"},
		{"not a url", app(`, "servers": ["127.0.0.1:4222"]`), "want a URL"},
		{"two kinds of auth", app(url + `, "token": "t", "credentials": "f.creds"`), "one of credentials, nkey, token, user"},
		{"user without password", app(url + `, "user": "u"`), "user and password go together"},
		{"cert without key", app(url + `, "tls": {"cert": "c.pem"}`), "cert and key go together"},
		{"stream name", app(url + `, "stream": "a.b"`), `stream "a.b"`},
		{"node name", app(url + `, "node": "a b"`), `node "a b"`},
		{"wildcard subject", app(url + `, "subject": "lastmile.>"`), "without wildcards"},
		{"acks in the stream", app(url + `, "ack_subject": "lastmile.purge.ack"`), "must lie outside subject"},
		{"short max age", app(url + `, "max_age": 1000000000`), "max_age 1s"},
		{"no messages", app(url + `, "max_msgs": -1`), "max_msgs -1"},
		{"replicas", app(url + `, "replicas": 7`), "replicas 7"},
		{"long timeout", app(url + `, "timeout": 3600000000000`), "timeout 1h0m0s"},
	})
}
