package wtproxy

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
	"github.com/lastmile-edge/lastmile/internal/wtorigin"
)

// dialOffering opens a session through the edge from a client that offers
// protocols in WT-Available-Protocols, as a page's
// `new WebTransport(url, {protocols})` does.
func (e *edge) dialOffering(t *testing.T, ctx context.Context, path string, protocols ...string) (*http.Response, *webtransport.Session, error) {
	t.Helper()
	tr := &webtransport.Transport{
		TLSClientConfig:      &tls.Config{RootCAs: e.cert.Pool, ServerName: "localhost"},
		QUICConfig:           &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
		ApplicationProtocols: protocols,
	}
	t.Cleanup(func() { tr.Close() })
	return tr.Dial(ctx, "https://localhost:"+e.port+path, nil)
}

// The browser's offer reaches a webtransport-go upstream cut to the
// relayed protocols, and the upstream's choice reaches the browser.
func TestProtocolNegotiationRelayed(t *testing.T) {
	cert := testcert.Write(t)
	up := startUpstream(t, cert, nil, func(s *webtransport.Server) {
		s.ApplicationProtocols = []string{"chat-v2", "chat-v1"}
	})
	e := startEdge(t, cert, up.addr, "protocols chat-v1 chat-v2 chat-v3")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	for _, tc := range []struct {
		name      string
		offer     []string
		wantOffer string // WT-Available-Protocols at the upstream
		want      string // the session's protocol at the browser
	}{
		{"client order kept, unrelayed dropped", []string{"secret-v9", "chat-v1", "chat-v2"}, `"chat-v1", "chat-v2"`, "chat-v1"},
		{"upstream picks among the offer", []string{"chat-v3", "chat-v2"}, `"chat-v3", "chat-v2"`, "chat-v2"},
		{"nothing relayable", []string{"secret-v9"}, "", ""},
		{"no offer", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, s, err := e.dialOffering(t, ctx, "/echo/chat", tc.offer...)
			if err != nil {
				t.Fatalf("dialing: %v", err)
			}
			defer s.CloseWithError(0, "")
			r := receive(t, up.requests, "CONNECT at the upstream")
			if got := r.Header.Get("WT-Available-Protocols"); got != tc.wantOffer {
				t.Errorf("the upstream got WT-Available-Protocols %q, want %q", got, tc.wantOffer)
			}
			if got := s.SessionState().ApplicationProtocol; got != tc.want {
				t.Errorf("the browser's session speaks %q (WT-Protocol %q), want %q", got, resp.Header.Get("WT-Protocol"), tc.want)
			}
			if reply, err := wtclient.EchoStream(ctx, s, []byte("hi")); err != nil || string(reply) != "hi" {
				t.Errorf("echo through the negotiated session: %q, %v", reply, err)
			}
		})
	}
}

// An upstream that answers a protocol the browser did not offer is
// refused with 502, counted as protocol: one relayed for other browsers
// (webtransport-go accepts it, the proxy checks this browser's offer),
// or one never relayed (webtransport-go refuses it).
func TestProtocolNotOfferedRefused(t *testing.T) {
	cert := testcert.Write(t)
	srv, err := wtorigin.Listen("127.0.0.1:0", cert.KeyPair, nil)
	if err != nil {
		t.Fatal(err)
	}
	// This upstream answers the protocol named by the path, whatever was
	// offered.
	srv.Mux.HandleFunc("/answer/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WT-Protocol", `"`+strings.TrimPrefix(r.URL.Path, "/answer/")+`"`)
		s, err := srv.WT.Upgrade(w, r)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		go wtorigin.Echo(s)
	})
	srv.Serve()
	t.Cleanup(srv.Close)
	e := startEdge(t, cert, srv.Addr, "protocols chat-v1 chat-v2")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	series := `lastmile_webtransport_proxy_refused_total{reason="protocol"}`
	before := e.metric(t, series)
	for i, answer := range []string{"chat-v2", "rogue"} {
		resp, s, err := e.dialOffering(t, ctx, "/answer/"+answer, "chat-v1")
		if err == nil {
			s.CloseWithError(0, "")
			t.Fatalf("upstream answering %s to an offer of chat-v1: the session opened", answer)
		}
		if resp == nil || resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("upstream answering %s: %v (response %v), want 502", answer, err, resp)
		}
		if got := e.metric(t, series) - before; got != float64(i+1) {
			t.Errorf("%s rose by %v, want %d", series, got, i+1)
		}
	}
}
