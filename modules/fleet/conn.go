package fleet

import (
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// natsOptions turns the config into nats.go options.
func (a *App) natsOptions() ([]nats.Option, error) {
	opts := []nats.Option{
		nats.Name("lastmile " + a.Node),
		// The edge starts and serves while NATS is down; the client keeps
		// trying forever, every half second (plus nats.go's jitter): a
		// partitioned node catches up soon after the network heals.
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(500 * time.Millisecond),
	}
	switch {
	case a.Credentials != "":
		opts = append(opts, nats.UserCredentials(a.Credentials))
	case a.NKey != "":
		opt, err := nats.NkeyOptionFromSeed(a.NKey)
		if err != nil {
			return nil, fmt.Errorf("fleet: nkey: %w", err)
		}
		opts = append(opts, opt)
	case a.Token != "":
		opts = append(opts, nats.Token(a.Token))
	case a.User != "":
		opts = append(opts, nats.UserInfo(a.User, a.Password))
	}
	if a.TLS != nil {
		if a.TLS.CA != "" {
			opts = append(opts, nats.RootCAs(a.TLS.CA))
		}
		if a.TLS.Cert != "" {
			opts = append(opts, nats.ClientCert(a.TLS.Cert, a.TLS.Key))
		}
		opts = append(opts, nats.Secure())
	}
	return opts, nil
}
