package httpcache

import (
	"net/http"
	"testing"
	"time"

	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
)

// startCacheTLS is startTLSCache as testEdges: one for HTTP/1.1 over TLS
// and one for HTTP/3, for the tests written against testEdge.
func startCacheTLS(t *testing.T, origin *testOrigin, options string) (h1, h3 *testEdge) {
	t.Helper()
	edges := startTLSCache(t, hostPort(origin.URL), options).testEdges()
	return edges["h1"], edges["h3"]
}

// testEdges are e's clients as testEdges, by protocol name.
func (e *tlsEdge) testEdges() map[string]*testEdge {
	noRedirects := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	edges := make(map[string]*testEdge)
	for protocol, c := range e.clients {
		edges[protocol] = &testEdge{base: "https://localhost:" + e.port, admin: e.admin,
			client: &http.Client{Timeout: 10 * time.Second, Transport: c.Transport, CheckRedirect: noRedirects}}
	}
	return edges
}

// The HTTP/3 edge answers from the same store as the HTTP/1.1 one.
func TestCacheOverHTTP3(t *testing.T) {
	o := newOrigin(t)
	o.respond("/shared", http.StatusOK, "Cache-Control", "max-age=60")
	h1, h3 := startCacheTLS(t, o, "")
	var proto string
	h3.client.Transport = protoRecorder{h3.client.Transport, &proto}
	first := h1.get(t, "/shared")
	r := h3.get(t, "/shared")
	wantHit(t, r)
	if r.body != first.body || proto != "HTTP/3.0" {
		t.Fatalf("over %s: %q, want the stored %q over HTTP/3.0", proto, r.body, first.body)
	}
	if got := o.count("/shared"); got != 1 {
		t.Fatalf("origin saw %d requests, want 1", got)
	}
}

// protoRecorder notes the protocol of each response.
type protoRecorder struct {
	http.RoundTripper
	proto *string
}

func (p protoRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := p.RoundTripper.RoundTrip(r)
	if err == nil {
		*p.proto = resp.Proto
	}
	return resp, err
}
