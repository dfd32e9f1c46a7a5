//go:build !linux

package tcptune

import (
	"fmt"
	"runtime"
)

// untuned is why nothing is set outside Linux: the socket options differ
// per system (macOS has no TCP_CONGESTION, FreeBSD names its controllers
// otherwise, Windows has neither), and an edge is deployed on Linux.
var untuned = fmt.Sprintf("per-socket TCP tuning (congestion control, buffer sizes, TCP_NOTSENT_LOWAT) is implemented on Linux only; %s sockets keep the system's defaults", runtime.GOOS)

// Apply sets nothing: ChooseCongestion has already said why, once per
// configuration, and the connection is served untuned.
func (Options) Apply(uintptr) error { return nil }

// Available is empty: no congestion control can be chosen here.
func Available() ([]string, error) { return nil, nil }

// ChooseCongestion keeps the system default: "" (the default, bbr) gives
// ErrNoBBR with the reason, for the caller to log once; a named one is an
// error, as on a Linux kernel that lacks it.
func ChooseCongestion(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: %s", ErrNoBBR, untuned)
	}
	return "", fmt.Errorf("congestion control %q is not available: %s", name, untuned)
}
