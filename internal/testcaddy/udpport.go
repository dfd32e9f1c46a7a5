package testcaddy

import (
	"net"
	"testing"
)

// FreeTCPUDPPort returns a port free on loopback for TCP and UDP alike,
// for a site served over HTTP/3 on the port number of its TCP listener.
func FreeTCPUDPPort(t testing.TB) string {
	t.Helper()
	for range 50 {
		port := FreePort(t)
		pc, err := net.ListenPacket("udp", "127.0.0.1:"+port)
		if err != nil {
			continue
		}
		pc.Close()
		return port
	}
	t.Fatal("no port free on both TCP and UDP")
	return ""
}
