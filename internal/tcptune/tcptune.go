// Package tcptune sets the per-socket TCP options lastmile tunes on both
// of its sides: the origin links' dialer and the client listener wrapper.
// The options are Linux's (tcptune_linux.go); elsewhere sockets keep the
// system's defaults and ChooseCongestion says so (tcptune_others.go).
package tcptune

import (
	"errors"
	"syscall"
)

// Options are what Apply sets; zero values leave the kernel's defaults.
type Options struct {
	Congestion   string // TCP_CONGESTION by name
	BufferBytes  int    // SO_SNDBUF and SO_RCVBUF; 0 leaves autotuning
	NotsentLowat int    // TCP_NOTSENT_LOWAT in bytes
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
	err = rc.Control(func(fd uintptr) { serr = o.Apply(fd) })
	return errors.Join(err, serr)
}

// ErrNoBBR says the default, bbr, is missing here: the caller keeps the
// system default and should say so.
var ErrNoBBR = errors.New("bbr is not available in this kernel")
