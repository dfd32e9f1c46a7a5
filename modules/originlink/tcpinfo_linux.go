package originlink

import (
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// readLinkInfo reads TCP_INFO and the socket options of c.
func readLinkInfo(c net.Conn) (LinkInfo, bool) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return LinkInfo{}, false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return LinkInfo{}, false
	}
	var li LinkInfo
	var ierr error
	err = rc.Control(func(fd uintptr) {
		var ti *unix.TCPInfo
		ti, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if ierr != nil {
			return
		}
		li = LinkInfo{
			RTT:               time.Duration(ti.Rtt) * time.Microsecond,
			RTTVar:            time.Duration(ti.Rttvar) * time.Microsecond,
			MinRTT:            time.Duration(ti.Min_rtt) * time.Microsecond,
			CwndPackets:       ti.Snd_cwnd,
			MSS:               ti.Snd_mss,
			Retransmits:       ti.Total_retrans,
			DeliveryRateBytes: ti.Delivery_rate,
			BytesInFlight:     uint64(ti.Unacked) * uint64(ti.Snd_mss),
			BytesSent:         ti.Bytes_sent,
			BytesReceived:     ti.Bytes_received,
		}
		li.Congestion, _ = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		li.SendBuffer, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
		li.ReceiveBuffer, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF)
	})
	if err != nil || ierr != nil {
		return LinkInfo{}, false
	}
	return li, true
}
