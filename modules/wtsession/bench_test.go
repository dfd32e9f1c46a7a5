package wtsession_test

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSessionSetup is the time to a usable session: on a new QUIC
// connection (a handshake, then the CONNECT), against on the one a client
// holds (the CONNECT alone), which several sessions per connection allow.
func BenchmarkSessionSetup(b *testing.B) {
	// The sessions of one loop are released as the edge sees them end.
	s := runQUIC(b, "webtransport_max_sessions_per_connection 1024", "max_sessions_per_client 1024")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b.Run("new-connection", func(b *testing.B) {
		for b.Loop() {
			client, conn := dialConn(b, ctx, s)
			_, sess, err := client.Dial(ctx, s.URL("/wt"), nil)
			if err != nil {
				b.Fatal(err)
			}
			sess.CloseWithError(0, "")
			conn.CloseWithError(0, "")
		}
	})
	b.Run("existing-connection", func(b *testing.B) {
		client, conn := dialConn(b, ctx, s)
		defer conn.CloseWithError(0, "")
		for b.Loop() {
			_, sess, err := client.Dial(ctx, s.URL("/wt"), nil)
			if err != nil {
				b.Fatal(err)
			}
			sess.CloseWithError(0, "")
		}
	})
}
