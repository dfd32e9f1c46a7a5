package quicedge_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// A burst of handshakes, more than quic-go's accept queue holds (32), is
// accepted whole: none is refused, each connection is served.
func TestAcceptLoopsTakeABurstOfHandshakes(t *testing.T) {
	s := testcaddy.NewSite(t)
	testcaddy.Run(t, siteConfig(s, `respond "hello"`))
	const burst = 96
	ok := s.Metric(t, `lastmile_quic_handshakes_total{result="ok"}`)
	failed := s.Metric(t, `lastmile_quic_handshakes_total{result="failed"}`)
	start := make(chan struct{})
	errs := make(chan error, burst)
	var wg sync.WaitGroup
	for range burst {
		c := s.H3Client(t, nil)
		wg.Go(func() {
			<-start
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, s.URL("/"), nil)
			resp, err := c.Do(req)
			if err != nil {
				errs <- err
				return
			}
			resp.Body.Close()
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := s.Metric(t, `lastmile_quic_handshakes_total{result="ok"}`) - ok; got != burst {
		t.Errorf("handshakes ok grew by %v, want %d", got, burst)
	}
	if got := s.Metric(t, `lastmile_quic_handshakes_total{result="failed"}`) - failed; got != 0 {
		t.Errorf("handshakes failed grew by %v", got)
	}
}
