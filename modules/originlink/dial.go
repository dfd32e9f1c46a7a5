package originlink

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// socketTuning is what the dialer sets on every origin socket.
type socketTuning struct {
	congestion   string // "" leaves the system default
	bufferBytes  int    // SO_SNDBUF and SO_RCVBUF; 0 leaves autotuning
	notsentLowat int    // TCP_NOTSENT_LOWAT; 0 leaves the default
	keepAlive    net.KeepAliveConfig
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
			err := rc.Control(func(fd uintptr) { serr = st.apply(int(fd)) })
			return errors.Join(err, serr)
		},
	}
}

func (st socketTuning) apply(fd int) error {
	if st.congestion != "" {
		if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, st.congestion); err != nil {
			return fmt.Errorf("TCP_CONGESTION %s: %w", st.congestion, err)
		}
	}
	if st.bufferBytes > 0 {
		// The kernel doubles these and caps them at net.core.wmem_max /
		// rmem_max; deploy/sysctl raises those.
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, st.bufferBytes); err != nil {
			return fmt.Errorf("SO_SNDBUF: %w", err)
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, st.bufferBytes); err != nil {
			return fmt.Errorf("SO_RCVBUF: %w", err)
		}
	}
	if st.notsentLowat > 0 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, st.notsentLowat); err != nil {
			return fmt.Errorf("TCP_NOTSENT_LOWAT: %w", err)
		}
	}
	return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
}

// availableCongestion lists the congestion controls the kernel offers.
func availableCongestion() ([]string, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var names []string
	for _, cc := range []string{"bbr", "cubic", "reno", "htcp", "vegas", "westwood"} {
		if unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc) == nil {
			names = append(names, cc)
		}
	}
	return names, nil
}

// dialContext is a context-aware dial with the tuning.
func (st socketTuning) dialContext(ctx context.Context, network, addr string, timeout time.Duration) (net.Conn, error) {
	return st.dialer(timeout).DialContext(ctx, network, addr)
}
