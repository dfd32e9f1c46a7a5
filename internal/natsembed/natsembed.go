// Package natsembed runs a NATS server with JetStream inside this process,
// on loopback: for `lastmile demo --fleet` and the fleet's tests, which
// need a real server and no installed one.
package natsembed

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start runs a JetStream-enabled server on 127.0.0.1:port (0: any free
// port) that keeps its streams in storeDir; a server restarted on the same
// directory finds them again.
func Start(storeDir string, port int) (*server.Server, error) {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  storeDir,
		NoSigs:    true, // the process's signals are Caddy's
		NoLog:     true,
	})
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("nats server on port %d did not become ready", port)
	}
	return s, nil
}
