package testcaddy

import (
	"net"
	"strconv"
	"testing"
)

// FreeTCPAndUDPPort returns a port free on TCP and UDP alike, for a
// server that speaks HTTP/3 beside HTTP/1.1 and HTTP/2, and never one
// this process's FreePort or FreeTCPAndUDPPort returned before.
func FreeTCPAndUDPPort(t testing.TB) string {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", ":0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		pc, err := net.ListenPacket("udp", ":"+strconv.Itoa(port))
		ln.Close()
		if err != nil {
			continue
		}
		pc.Close()
		if claim(port) {
			return strconv.Itoa(port)
		}
	}
	t.Fatal("no port free on both TCP and UDP")
	return ""
}
