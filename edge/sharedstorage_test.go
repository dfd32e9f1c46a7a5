package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/caddyserver/caddy/v2"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// Two edges with one Redis certificate storage: the first obtains the
// certificate (Caddy's internal issuer, as ACME is not reachable here),
// the second serves the stored one without issuing again. The edges run
// one after the other: Caddy is one per process.
func TestSharedCertificateStorage(t *testing.T) {
	redis := miniredis.RunT(t)
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // no file storage shared by chance
	edge := func(port string) string {
		return fmt.Sprintf(`{
	admin off
	skip_install_trust
	storage redis {
		address %s
		key_prefix lastmile
	}
}
https://shared.test:%s {
	tls internal
	respond "edge"
}`, redis.Addr(), port)
	}
	serial := func(port string) string {
		var got string
		waitForWithin(t, 20*time.Second, func() bool {
			conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", "127.0.0.1:"+port,
				&tls.Config{ServerName: "shared.test", InsecureSkipVerify: true}) // the serial is compared, not trusted
			if err != nil {
				return false
			}
			defer conn.Close()
			got = conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
			return true
		})
		return got
	}
	certKeys := func() []string {
		var keys []string
		for _, k := range redis.Keys() {
			if strings.Contains(k, "certificates/") && strings.HasSuffix(k, "shared.test.crt") {
				keys = append(keys, k)
			}
		}
		return keys
	}

	portA := testcaddy.FreePort(t)
	testcaddy.Run(t, edge(portA))
	first := serial(portA)
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	stored := certKeys()
	if len(stored) != 1 {
		t.Fatalf("storage holds %v, want one certificate for shared.test (keys %v)", stored, redis.Keys())
	}
	crt, _ := redis.Get(stored[0])

	portB := testcaddy.FreePort(t)
	testcaddy.Run(t, edge(portB))
	if second := serial(portB); second != first {
		t.Fatalf("edge B serves serial %s, edge A obtained %s: issued again", second, first)
	}
	if again, _ := redis.Get(stored[0]); again != crt || len(certKeys()) != 1 {
		t.Fatal("edge B rewrote the stored certificate")
	}
}
