package quicedge_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// earlyRequest dials through addr a connection that resumes the session
// cached in tlsConf and sends its first request in 0-RTT, without waiting
// for the handshake.
func earlyRequest(t *testing.T, s *testcaddy.Site, addr string, tlsConf *tls.Config, method, path string) (status int, used0RTT bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := quic.DialAddrEarly(ctx, addr, tlsConf, &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseWithError(0, "")
	cc := (&http3.Transport{}).NewClientConn(conn)
	str, err := cc.OpenRequestStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// SendRequestHeader takes a body-less request; the body is written
	// to the stream after it.
	req, _ := http.NewRequestWithContext(ctx, method, s.URL(path), nil)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if err := str.SendRequestHeader(req); err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		if _, err := str.Write([]byte("order=1")); err != nil {
			t.Fatal(err)
		}
	}
	str.Close()
	resp, err := str.ReadResponse()
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, conn.ConnectionState().Used0RTT
}

// ticketCache tells when a session ticket is stored.
type ticketCache struct {
	tls.ClientSessionCache
	stored chan struct{}
}

func (c *ticketCache) Put(key string, cs *tls.ClientSessionState) {
	c.ClientSessionCache.Put(key, cs)
	if cs != nil {
		select {
		case c.stored <- struct{}{}:
		default:
		}
	}
}

// Replay-safe requests run in 0-RTT; a POST in 0-RTT gets 425 (RFC 8470)
// and succeeds once the handshake is done.
func TestZeroRTTSafeMethodsOnly(t *testing.T) {
	s := testcaddy.NewSite(t)
	testcaddy.Run(t, siteConfig(s, `respond "hello"`))
	const (
		refusedSeries  = `lastmile_quic_early_data_requests_total{result="refused"}`
		acceptedSeries = `lastmile_quic_early_data_requests_total{result="accepted"}`
		zeroRTTSeries  = `lastmile_quic_zero_rtt_connections_total`
	)
	refused, accepted, zeroRTT := s.Metric(t, refusedSeries), s.Metric(t, acceptedSeries), s.Metric(t, zeroRTTSeries)
	tickets := &ticketCache{ClientSessionCache: tls.NewLRUClientSessionCache(8), stored: make(chan struct{}, 8)}
	tlsConf := s.TLSConfig()
	tlsConf.NextProtos = []string{http3.NextProtoH3}
	tlsConf.ClientSessionCache = tickets

	// A first, full handshake yields a session ticket.
	tr := &http3.Transport{
		TLSClientConfig: tlsConf,
		Dial: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return quic.DialAddrEarly(ctx, s.Addr(), tlsCfg, cfg)
		},
	}
	get(t, &http.Client{Transport: tr}, s.URL("/"))
	// The ticket arrives after the handshake.
	select {
	case <-tickets.stored:
	case <-time.After(5 * time.Second):
		t.Fatal("no session ticket")
	}
	tr.Close()

	// The client's Finished is 300 ms late, so the server sees the
	// requests while they are still early data.
	proxy := startSlowHandshakeProxy(t, s.Addr(), 300*time.Millisecond)
	status, used := earlyRequest(t, s, proxy, tlsConf, http.MethodGet, "/")
	if !used {
		t.Fatal("the server did not accept 0-RTT")
	}
	if status != http.StatusOK {
		t.Fatalf("GET in 0-RTT: %d, want 200", status)
	}
	status, used = earlyRequest(t, s, proxy, tlsConf, http.MethodPost, "/")
	if !used {
		t.Fatal("the server did not accept 0-RTT")
	}
	if status != http.StatusTooEarly {
		t.Fatalf("POST in 0-RTT: %d, want 425", status)
	}
	// After the handshake the same POST goes through.
	post, err := s.H3Client(t, nil).Post(s.URL("/"), "text/plain", strings.NewReader("order=1"))
	if err != nil {
		t.Fatal(err)
	}
	post.Body.Close()
	if post.StatusCode != http.StatusOK {
		t.Fatalf("POST after handshake: %d", post.StatusCode)
	}
	if got := s.Metric(t, refusedSeries) - refused; got != 1 {
		t.Errorf("early_data_requests{refused} grew by %v, want 1", got)
	}
	if got := s.Metric(t, acceptedSeries) - accepted; got != 1 {
		t.Errorf("early_data_requests{accepted} grew by %v, want 1", got)
	}
	if got := s.Metric(t, zeroRTTSeries) - zeroRTT; got != 2 {
		t.Errorf("zero_rtt_connections_total grew by %v, want 2", got)
	}
}
