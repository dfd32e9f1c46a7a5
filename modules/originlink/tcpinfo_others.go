//go:build !linux

package originlink

import "net"

// readLinkInfo has nothing to read: TCP_INFO's layout is Linux's, and the
// admin API says so with has_tcp_info false.
func readLinkInfo(net.Conn) (LinkInfo, bool) { return LinkInfo{}, false }
