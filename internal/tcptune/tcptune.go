// Package tcptune sets the per-socket TCP options lastmile tunes on both
// of its sides: the origin links' dialer and the client listener wrapper.
package tcptune

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// Options are what Apply sets; zero values leave the kernel's defaults.
type Options struct {
	Congestion   string // TCP_CONGESTION by name
	BufferBytes  int    // SO_SNDBUF and SO_RCVBUF; 0 leaves autotuning
	NotsentLowat int    // TCP_NOTSENT_LOWAT in bytes
}

// Apply sets the options and TCP_NODELAY (HTTP writes whole frames) on
// a TCP socket.
func (o Options) Apply(fd int) error {
	if o.Congestion != "" {
		if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, o.Congestion); err != nil {
			return fmt.Errorf("TCP_CONGESTION %s: %w", o.Congestion, err)
		}
	}
	if o.BufferBytes > 0 {
		// The kernel doubles these and caps them at net.core.wmem_max /
		// rmem_max; deploy/sysctl raises those.
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, o.BufferBytes); err != nil {
			return fmt.Errorf("SO_SNDBUF: %w", err)
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, o.BufferBytes); err != nil {
			return fmt.Errorf("SO_RCVBUF: %w", err)
		}
	}
	if o.NotsentLowat > 0 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, o.NotsentLowat); err != nil {
			return fmt.Errorf("TCP_NOTSENT_LOWAT: %w", err)
		}
	}
	return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
}

// ApplyConn applies the options to a connection's socket; nil (no socket
// found) is an error.
func (o Options) ApplyConn(c syscall.Conn) error {
	if c == nil {
		return errors.New("no TCP socket under the connection")
	}
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) { serr = o.Apply(int(fd)) })
	return errors.Join(err, serr)
}

// Available lists the common congestion controls the kernel lets this
// process set (for messages: ChooseCongestion probes the name it is given).
func Available() ([]string, error) {
	var names []string
	for _, cc := range []string{"bbr", "cubic", "reno", "htcp", "vegas", "westwood", "dctcp", "illinois"} {
		ok, err := settable(cc)
		if err != nil {
			return nil, err
		}
		if ok {
			names = append(names, cc)
		}
	}
	return names, nil
}

// settable tries name on a throwaway socket.
func settable(name string) (bool, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return false, err
	}
	defer unix.Close(fd)
	return unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, name) == nil, nil
}

// ErrNoBBR says the default, bbr, is missing from this kernel: the
// caller keeps the system default and should say so.
var ErrNoBBR = errors.New("bbr is not available in this kernel")

// ChooseCongestion resolves a configured congestion control: "" means
// bbr, which keeps its rate through random loss where CUBIC collapses
// (ErrNoBBR, with "" chosen, if the kernel lacks it); a name the kernel
// does not let this process set is an error.
func ChooseCongestion(name string) (string, error) {
	want := name
	if want == "" {
		want = "bbr"
	}
	ok, err := settable(want)
	switch {
	case err != nil:
		return "", err
	case ok:
		return want, nil
	}
	have, _ := Available()
	if name == "" {
		return "", fmt.Errorf("%w (have %v)", ErrNoBBR, have)
	}
	return "", fmt.Errorf("congestion control %q is not available (have %v)", name, have)
}
