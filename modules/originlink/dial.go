package originlink

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/lastmile-edge/lastmile/internal/tcptune"
)

// socketTuning is what the dialer sets on every origin socket.
type socketTuning struct {
	tcptune.Options
	keepAlive net.KeepAliveConfig
}

// dialer returns a net.Dialer whose sockets are tuned before connect, so
// the handshake already runs with the chosen congestion control and
// buffers.
func (st socketTuning) dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{
		Timeout:         timeout,
		KeepAliveConfig: st.keepAlive,
		Control: func(network, _ string, rc syscall.RawConn) error {
			if network != "tcp" && network != "tcp4" && network != "tcp6" {
				return nil
			}
			var serr error
			err := rc.Control(func(fd uintptr) { serr = st.Apply(fd) })
			return errors.Join(err, serr)
		},
	}
}

// dialContext is a context-aware dial with the tuning.
func (st socketTuning) dialContext(ctx context.Context, network, addr string, timeout time.Duration) (net.Conn, error) {
	return st.dialer(timeout).DialContext(ctx, network, addr)
}
