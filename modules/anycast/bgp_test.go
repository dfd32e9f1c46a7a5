package anycast

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	_ "github.com/lastmile-edge/lastmile/modules/originlink"
)

const testPrefix = "203.0.113.0/24"

// routerPeer is a second GoBGP speaker, the router the edge announces to:
// passive, on a free loopback port.
func routerPeer(t *testing.T) (*server.BgpServer, string) {
	t.Helper()
	port := testcaddy.FreePort(t)
	p, _ := strconv.Atoi(port)
	srv := server.NewBgpServer(server.LoggerOption(slog.New(slog.DiscardHandler), new(slog.LevelVar)))
	go srv.Serve()
	ctx := context.Background()
	if err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: 65000, RouterId: "10.255.0.1", ListenPort: int32(p), ListenAddresses: []string{"127.0.0.1"},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 65010},
		Transport: &api.Transport{PassiveMode: true},
	}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv, port
}

// routerHas reports whether the router's RIB holds a path to prefix.
func routerHas(srv *server.BgpServer, prefix string) bool {
	found := false
	_ = srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: bgp.RF_IPv4_UC},
		func(n bgp.NLRI, paths []*apiutil.Path) {
			if n.String() == prefix && len(paths) > 0 {
				found = true
			}
		})
	return found
}

// await polls cond until it holds or within passes; it returns how long
// that took.
func await(t *testing.T, what string, within time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// h2cOrigin is a real HTTP/2 cleartext origin that can go away and come
// back on the same address.
type h2cOrigin struct {
	addr string
	srv  *http.Server
}

func (o *h2cOrigin) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		t.Fatal(err)
	}
	o.addr = ln.Addr().String()
	o.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("origin")) }),
		Protocols: new(http.Protocols)}
	o.srv.Protocols.SetHTTP1(true)
	o.srv.Protocols.SetUnencryptedHTTP2(true)
	go o.srv.Serve(ln)
	t.Cleanup(func() { o.srv.Close() })
}

const (
	checkInterval = 50 * time.Millisecond
	holdDown      = 700 * time.Millisecond
	drainWait     = 300 * time.Millisecond
	// withdrawWithin bounds how long a withdrawal may take to reach the
	// router on loopback, from the moment the node became unready.
	withdrawWithin = checkInterval + time.Second
)

// startAnycastEdge runs an edge proxying to origin over origin_link, with
// the anycast app announcing testPrefix to the router on peerPort.
func startAnycastEdge(t *testing.T, origin, peerPort string) (admin string) {
	t.Helper()
	admin, port := "127.0.0.1:"+testcaddy.FreePort(t), testcaddy.FreePort(t)
	t.Cleanup(undrain) // the drain belongs to the process
	testcaddy.Run(t, fmt.Sprintf(`{
	admin %s
	auto_https off
	persist_config off
	anycast {
		check_interval %s
		hold_down %s
		drain_wait %s
		drain_timeout 1s
		bgp {
			router_id 10.255.0.2
			local_asn 65010
			next_hop 192.0.2.10
			prefix %s
			peer 127.0.0.1 65000 {
				port %s
			}
		}
	}
}
http://127.0.0.1:%s {
	reverse_proxy %s {
		transport origin_link {
			warm %s
			ping_interval 200ms
			dial_timeout 500ms
		}
	}
}
`, admin, checkInterval, holdDown, drainWait, testPrefix, peerPort, port, origin, origin))
	return admin
}

func readiness(t *testing.T, admin string) (int, Status) {
	t.Helper()
	resp, err := http.Get("http://" + admin + "/lastmile/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, st
}

func post(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// The router sees the prefix while the edge is ready, loses it at once on
// a drain, gets it back only after the hold-down once undrained; loses it
// when the origin goes away and gets it back after the origin returns and
// the hold-down has passed.
func TestRouteFollowsReadiness(t *testing.T) {
	router, peerPort := routerPeer(t)
	origin := &h2cOrigin{addr: "127.0.0.1:0"}
	origin.start(t)
	admin := startAnycastEdge(t, origin.addr, peerPort)

	await(t, "the router learns the prefix", 30*time.Second, func() bool { return routerHas(router, testPrefix) })
	if code, st := readiness(t, admin); code != http.StatusOK || !st.Ready || !st.Announced {
		t.Fatalf("ready: %d %+v", code, st)
	}
	// `lastmile health --ready`, the check for bird2 and ExaBGP.
	if code, err := callAdmin(http.MethodGet, admin, "/lastmile/ready", 2*time.Second); code != 0 || err != nil {
		t.Fatalf("health --ready while ready: exit %d, %v", code, err)
	}
	if v := testcaddy.Metric(t, admin, "lastmile_anycast_announced"); v != 1 {
		t.Fatalf("lastmile_anycast_announced = %v", v)
	}

	// Drain: withdrawn at once; a second drain with ?wait=1 (drains are
	// idempotent) answers once drain_wait is over.
	start := time.Now()
	if resp := post(t, "http://"+admin+"/lastmile/drain"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("drain answered %d, want 503 (not ready)", resp.StatusCode)
	}
	took := await(t, "the router loses the prefix after the drain", withdrawWithin, func() bool { return !routerHas(router, testPrefix) })
	t.Logf("withdrawn %s after the drain", took)
	post(t, "http://"+admin+"/lastmile/drain?wait=1")
	if waited := time.Since(start); waited < drainWait {
		t.Fatalf("drain?wait=1 answered %s after the drain, before drain_wait %s", waited, drainWait)
	}
	if code, err := callAdmin(http.MethodGet, admin, "/lastmile/ready", 2*time.Second); code != 1 || err != nil {
		t.Fatalf("health --ready while drained: exit %d, %v", code, err)
	}
	if code, st := readiness(t, admin); code != http.StatusServiceUnavailable || !st.Draining || st.DrainPhase != phaseDrained || st.Announced {
		t.Fatalf("drained: %d %+v", code, st)
	}

	// Undrain: back only after the hold-down.
	start = time.Now()
	post(t, "http://"+admin+"/lastmile/undrain")
	await(t, "the router relearns the prefix", holdDown+5*time.Second, func() bool { return routerHas(router, testPrefix) })
	if back := time.Since(start); back < holdDown {
		t.Fatalf("re-announced %s after the undrain, inside the %s hold-down", back, holdDown)
	}

	// The origin goes away: withdrawn once its links are gone.
	origin.srv.Close()
	took = await(t, "the router loses the prefix after the origin went away", 5*time.Second, func() bool { return !routerHas(router, testPrefix) })
	t.Logf("withdrawn %s after the origin closed", took)
	if _, st := readiness(t, admin); st.Ready || len(st.Reasons) == 0 {
		t.Fatalf("with the origin gone: %+v", st)
	}

	// It comes back on the same address: re-announced after the pool's
	// redial (backoff up to 5 s) and the hold-down.
	origin.start(t)
	start = time.Now()
	await(t, "the router relearns the prefix after the origin's return", holdDown+15*time.Second, func() bool { return routerHas(router, testPrefix) })
	if back := time.Since(start); back < holdDown {
		t.Fatalf("re-announced %s after the origin's return, inside the hold-down", back)
	}
	if v := testcaddy.Metric(t, admin, `lastmile_anycast_transitions_total{to="withdrawn"}`); v < 2 {
		t.Fatalf("withdrawn transitions = %v, want at least 2", v)
	}
}
