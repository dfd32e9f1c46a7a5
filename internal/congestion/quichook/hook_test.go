package quichook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/lastmile-edge/lastmile/internal/congestion"
)

// upstreamQuicGo is set when the tests run against quic-go without
// lastmile's patch (make quic-go-check), which never asks for a controller:
// connections still work, on quic-go's own sender.
var upstreamQuicGo = os.Getenv("LASTMILE_UPSTREAM_QUIC_GO") == "1"

func checkUpstream(t *testing.T, cc *Conn) {
	t.Helper()
	if cc.Consulted() || cc.Stats().Paths != 0 {
		t.Fatalf("upstream quic-go consulted the factory: %+v", cc.Stats())
	}
}

// recorder is a controller with a fixed window and no pacing that records
// what quic-go tells it.
type recorder struct {
	mu                 sync.Mutex
	sent               []congestion.Packet
	acked, lost        int
	lostBytes          int64
	ackEvents          int
	ackBeforeFirstSend bool
	sentTimeAfterAck   bool
	inFlightMismatch   bool
	appLimited         int
	maxDatagram        int64
	initialMaxDatagram int64
	lastBytesInFlight  int64
}

func (r *recorder) OnPacketSent(now congestion.Time, p congestion.Packet, bytesInFlight int64, _ bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, p)
	r.lastBytesInFlight = bytesInFlight
}

func (r *recorder) OnAck(ev congestion.AckEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sent) == 0 {
		r.ackBeforeFirstSend = true
	}
	r.ackEvents++
	r.acked += len(ev.Acked)
	r.lost += len(ev.Lost)
	for _, p := range ev.Lost {
		r.lostBytes += p.Bytes
	}
	var bytes int64
	for _, p := range append(append([]congestion.Packet(nil), ev.Acked...), ev.Lost...) {
		if p.SentTime > ev.Now {
			r.sentTimeAfterAck = true
		}
		bytes += p.Bytes
	}
	// Every acked or lost packet left bytes in flight (ECN-only events
	// and lost MTU probes aside, which this loopback test has none of).
	if ev.PriorInFlight-ev.BytesInFlight < bytes {
		r.inFlightMismatch = true
	}
}

func (r *recorder) OnRetransmissionTimeout(bool) {}

func (r *recorder) OnAppLimited(congestion.Time, int64) {
	r.mu.Lock()
	r.appLimited++
	r.mu.Unlock()
}

func (r *recorder) CanSend(bytesInFlight int64) bool { return bytesInFlight < 64*1500 }

func (r *recorder) HasPacingBudget(congestion.Time) bool { return true }

func (r *recorder) TimeUntilSend(int64) congestion.Time { return 0 }

func (r *recorder) SetMaxDatagramSize(b int64) {
	r.mu.Lock()
	r.maxDatagram = b
	r.mu.Unlock()
}

func (r *recorder) Info() congestion.Info {
	return congestion.Info{CongestionWindow: 64 * 1500, State: "fixed"}
}

// lossyProxy relays UDP between one client and a server, dropping every
// dropEvery-th packet from the server after the first skip of them (so
// the handshake gets through and the loss pattern is the same every run).
type lossyProxy struct {
	conn      *net.UDPConn
	server    *net.UDPAddr
	skip      int
	dropEvery int

	mu      sync.Mutex
	client  *net.UDPAddr
	dropped int
}

func startLossyProxy(t *testing.T, server *net.UDPAddr, skip, dropEvery int) *lossyProxy {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	up, err := net.DialUDP("udp", nil, server)
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{conn: conn, server: server, skip: skip, dropEvery: dropEvery}
	t.Cleanup(func() { conn.Close(); up.Close() })
	go func() { // client -> server
		buf := make([]byte, 2048)
		for {
			n, addr, err := conn.ReadFromUDP(buf)
			if err != nil {
				return
			}
			p.mu.Lock()
			p.client = addr
			p.mu.Unlock()
			up.Write(buf[:n])
		}
	}()
	go func() { // server -> client, lossy
		buf := make([]byte, 2048)
		for i := 1; ; i++ {
			n, err := up.Read(buf)
			if err != nil {
				return
			}
			p.mu.Lock()
			client := p.client
			drop := i > p.skip && i%p.dropEvery == 0
			if drop {
				p.dropped++
			}
			p.mu.Unlock()
			if !drop {
				conn.WriteToUDP(buf[:n], client)
			}
		}
	}()
	return p
}

func selfSigned(t *testing.T) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, NextProtos: []string{"test"}}
}

// transfer serves size bytes on one stream to a client that reaches the
// server through a proxy dropping every 20th packet from the server, and
// returns the server's connection once the client has read everything.
func transfer(t *testing.T, cc *Conn, size int) *quic.Conn {
	t.Helper()
	srv, ln := serve(t, cc)
	proxy := startLossyProxy(t, srv.Conn.LocalAddr().(*net.UDPAddr), 10, 20)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	served := make(chan *quic.Conn, 1)
	go func() {
		conn, err := ln.Accept(ctx)
		if err != nil {
			close(served)
			return
		}
		str, err := conn.OpenStream()
		if err != nil {
			close(served)
			return
		}
		str.Write(make([]byte, size))
		str.Close()
		served <- conn
	}()
	client, err := quic.DialAddr(ctx, proxy.conn.LocalAddr().String(),
		clientTLS(), &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseWithError(0, "")
	str, err := client.AcceptStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, str)
	if err != nil || n != int64(size) {
		t.Fatalf("read %d of %d bytes: %v", n, size, err)
	}
	conn, ok := <-served
	if !ok {
		t.Fatal("server side failed")
	}
	proxy.mu.Lock()
	dropped := proxy.dropped
	proxy.mu.Unlock()
	if dropped == 0 {
		t.Fatal("the proxy dropped nothing")
	}
	return conn
}

// The patched quic-go asks the factory for the controller before its first
// packet, sends every packet (Initial and Handshake included) through it,
// and tells it each ACK's acked and lost packets with their send times.
func TestControllerSeesEveryPacketAckAndLoss(t *testing.T) {
	rec := &recorder{}
	var conns []congestion.Conn
	cc := New("recorder", func(c congestion.Conn) congestion.Controller {
		conns = append(conns, c)
		rec.initialMaxDatagram = c.InitialMaxDatagramSize
		return rec
	}, false)
	const size = 1 << 20
	conn := transfer(t, cc, size)
	if upstreamQuicGo {
		checkUpstream(t, cc)
		return
	}
	if !cc.Consulted() || len(conns) != 1 {
		t.Fatalf("factory consulted %v, %d controllers made; want one", cc.Consulted(), len(conns))
	}
	stats := conn.ConnectionStats()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if uint64(len(rec.sent)) < stats.PacketsSent-2 || uint64(len(rec.sent)) > stats.PacketsSent {
		t.Errorf("controller saw %d packets sent, quic-go counts %d", len(rec.sent), stats.PacketsSent)
	}
	// The server's first packet is its Initial, packet number 0.
	if len(rec.sent) == 0 || rec.sent[0].Number != 0 {
		t.Errorf("first packet the controller saw: %+v", rec.sent[:min(1, len(rec.sent))])
	}
	if rec.ackBeforeFirstSend || rec.sentTimeAfterAck || rec.inFlightMismatch {
		t.Errorf("inconsistent events: ack before send %v, send time after ack %v, in flight mismatch %v",
			rec.ackBeforeFirstSend, rec.sentTimeAfterAck, rec.inFlightMismatch)
	}
	if rec.acked < size/1500 || rec.lost == 0 {
		t.Errorf("controller told of %d acked and %d lost packets in %d events", rec.acked, rec.lost, rec.ackEvents)
	}
	if uint64(rec.lost) != stats.PacketsLost {
		t.Errorf("controller told of %d losses, quic-go counts %d", rec.lost, stats.PacketsLost)
	}
	if rec.appLimited == 0 {
		t.Error("never told the sender ran out of data")
	}
	if rec.initialMaxDatagram == 0 || rec.maxDatagram <= rec.initialMaxDatagram {
		t.Errorf("datagram size: initial %d, after path MTU discovery %d", rec.initialMaxDatagram, rec.maxDatagram)
	}
	st := cc.Stats()
	if st.Delivered < size || st.State != "fixed" || st.CongestionWindow != 64*1500 || st.Paths != 1 || st.DeliveryRate() <= 0 {
		t.Errorf("stats: %+v", st)
	}
	if st.Lost != rec.lostBytes {
		t.Errorf("stats: %d bytes lost, the controller was told of %d", st.Lost, rec.lostBytes)
	}
}

// quic-go's own senders, chosen through the hook, are observed too.
func TestBuiltinSenderThroughHook(t *testing.T) {
	for _, reno := range []bool{true, false} {
		cc := New("builtin", nil, reno)
		conn := transfer(t, cc, 256<<10)
		if upstreamQuicGo {
			checkUpstream(t, cc)
			continue
		}
		st := cc.Stats()
		if !cc.Consulted() || st.CongestionWindow <= 0 || st.PacingRate <= 0 || len(st.StateTime) == 0 {
			t.Errorf("reno %v: consulted %v, stats %+v", reno, cc.Consulted(), st)
		}
		if st.Delivered < 256<<10 {
			t.Errorf("reno %v: delivered %d", reno, st.Delivered)
		}
		if conn.ConnectionStats().PacketsLost == 0 {
			t.Errorf("reno %v: quic-go counted no loss", reno)
		}
	}
}
