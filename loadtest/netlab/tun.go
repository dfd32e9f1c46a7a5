//go:build linux

package netlab

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// openTUN creates (or attaches to) TUN device name inside network
// namespace ns and returns it. The calling OS thread visits ns only for
// the open; the device stays in ns.
func openTUN(ns, name string) (*os.File, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, err
	}
	defer orig.Close()
	target, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("entering namespace %s: %w", ns, err)
	}
	fd, openErr := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if openErr == nil {
		ifr, err := unix.NewIfreq(name)
		if err == nil {
			ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
			err = unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr)
		}
		if err != nil {
			unix.Close(fd)
			openErr = fmt.Errorf("TUNSETIFF %s: %w", name, err)
		}
	}
	// Back home, even if the open failed; a thread that cannot return is
	// not handed back to the scheduler.
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.LockOSThread() // leave this thread locked: it dies with the goroutine
		return nil, fmt.Errorf("leaving namespace %s: %w", ns, err)
	}
	if openErr != nil {
		return nil, openErr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}
