package tcptune

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Apply sets the options and TCP_NODELAY (HTTP writes whole frames) on
// a TCP socket.
func (o Options) Apply(fd uintptr) error {
	s := int(fd)
	if o.Congestion != "" {
		if err := unix.SetsockoptString(s, unix.IPPROTO_TCP, unix.TCP_CONGESTION, o.Congestion); err != nil {
			return fmt.Errorf("TCP_CONGESTION %s: %w", o.Congestion, err)
		}
	}
	if o.BufferBytes > 0 {
		// The kernel doubles these and caps them at net.core.wmem_max /
		// rmem_max; deploy/sysctl raises those.
		if err := unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_SNDBUF, o.BufferBytes); err != nil {
			return fmt.Errorf("SO_SNDBUF: %w", err)
		}
		if err := unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_RCVBUF, o.BufferBytes); err != nil {
			return fmt.Errorf("SO_RCVBUF: %w", err)
		}
	}
	if o.NotsentLowat > 0 {
		if err := unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, o.NotsentLowat); err != nil {
			return fmt.Errorf("TCP_NOTSENT_LOWAT: %w", err)
		}
	}
	return unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
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
