package quicedge_test

import (
	"net"
	"sync"
	"testing"
	"time"
)

// slowHandshakeProxy relays UDP between a client and the server and holds
// back the client's handshake-completing packets for delay, while its
// first flight and 0-RTT packets pass at once. On loopback a handshake
// completes in microseconds, before the server looks at early requests;
// this reproduces a real path where the client's Finished is late, so
// requests are processed while still in early data.
type slowHandshakeProxy struct {
	conn   *net.UDPConn
	target *net.UDPAddr
	delay  time.Duration
	mu     sync.Mutex
	peers  map[string]*net.UDPConn
	wg     sync.WaitGroup
}

func startSlowHandshakeProxy(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	targetAddr, err := net.ResolveUDPAddr("udp", target)
	if err != nil {
		t.Fatal(err)
	}
	p := &slowHandshakeProxy{conn: conn, target: targetAddr, delay: delay, peers: map[string]*net.UDPConn{}}
	p.wg.Add(1)
	go p.run()
	t.Cleanup(func() {
		conn.Close()
		p.mu.Lock()
		for _, up := range p.peers {
			up.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return conn.LocalAddr().String()
}

func (p *slowHandshakeProxy) run() {
	defer p.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, client, err := p.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		pkt := append([]byte(nil), buf[:n]...)
		p.mu.Lock()
		up, seen := p.peers[client.String()]
		if !seen {
			up, err = net.DialUDP("udp", nil, p.target)
			if err != nil {
				p.mu.Unlock()
				continue
			}
			p.peers[client.String()] = up
			p.wg.Add(1)
			go p.back(up, client)
		}
		p.mu.Unlock()
		if !seen || isZeroRTTPacket(pkt) {
			_, _ = up.Write(pkt)
			continue
		}
		time.AfterFunc(p.delay, func() { _, _ = up.Write(pkt) })
	}
}

func (p *slowHandshakeProxy) back(up *net.UDPConn, client *net.UDPAddr) {
	defer p.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, err := up.Read(buf)
		if err != nil {
			return
		}
		_, _ = p.conn.WriteToUDP(buf[:n], client)
	}
}

// isZeroRTTPacket: a QUIC v1 long header (top bit set) of type 0-RTT (01).
func isZeroRTTPacket(b []byte) bool {
	return len(b) > 0 && b[0]&0x80 != 0 && (b[0]&0x30)>>4 == 1
}
