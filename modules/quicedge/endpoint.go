package quicedge

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/quic-go/quic-go"
)

// endpoints holds one UDP socket per address across config reloads: Caddy
// starts the new config before it stops the old one, so a socket per config
// would fail with "address in use".
var endpoints = caddy.NewUsagePool()

// endpoint is a UDP socket with its QUIC transport and listener. New
// connections go to whichever binding is current: the one of the newest
// config that serves this address.
type endpoint struct {
	key     string
	port    string
	conn    net.PacketConn
	tr      *quic.Transport
	ln      *quic.EarlyListener
	current atomic.Pointer[binding]
	cancel  context.CancelFunc
	done    chan struct{}

	mu sync.Mutex
	// live holds the bindings that may still have connections: the
	// current one and those of replaced configs whose connections are
	// still open.
	live map[*binding]struct{}
}

// openConns counts QUIC connections of all endpoints, for the gauge.
var openConns atomic.Int64

// advertisedPorts is the set of UDP ports served now, for Alt-Svc.
var advertisedPorts sync.Map // port string -> *endpoint

func loadEndpoint(network, hostport, port string) (*endpoint, error) {
	key := network + "/" + hostport
	val, _, err := endpoints.LoadOrNew(key, func() (caddy.Destructor, error) {
		return listenEndpoint(key, network, hostport, port)
	})
	if err != nil {
		return nil, err
	}
	return val.(*endpoint), nil
}

func listenEndpoint(key, network, hostport, port string) (*endpoint, error) {
	pc, err := net.ListenPacket(network, hostport)
	if err != nil {
		return nil, fmt.Errorf("binding UDP %s: %w", hostport, err)
	}
	e := &endpoint{key: key, port: port, conn: pc, done: make(chan struct{}), live: make(map[*binding]struct{})}
	e.tr = &quic.Transport{Conn: pc, ConnContext: e.connContext}
	// TLS and QUIC settings are looked up per connection, so a reload
	// changes them for new connections without a new listener.
	tlsConf := &tls.Config{GetConfigForClient: e.tlsConfigForClient}
	quicConf := &quic.Config{GetConfigForClient: e.quicConfigForClient, Allow0RTT: true, EnableDatagrams: true, EnableStreamResetPartialDelivery: true}
	e.ln, err = e.tr.ListenEarly(tlsConf, quicConf)
	if err != nil {
		pc.Close()
		return nil, fmt.Errorf("listening for QUIC on %s: %w", hostport, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	var acceptors sync.WaitGroup
	for range acceptLoops {
		acceptors.Go(func() { e.acceptLoop(ctx) })
	}
	go func() {
		acceptors.Wait()
		close(e.done)
	}()
	advertisedPorts.Store(port, e)
	return e, nil
}

func (e *endpoint) tlsConfigForClient(hello *tls.ClientHelloInfo) (*tls.Config, error) {
	b := e.current.Load()
	if b == nil {
		return nil, errors.New("no server for this address")
	}
	return b.tlsConfig.GetConfigForClient(hello)
}

func (e *endpoint) quicConfigForClient(*quic.ClientInfo) (*quic.Config, error) {
	b := e.current.Load()
	if b == nil {
		return nil, errors.New("no server for this address")
	}
	return b.quicConfig, nil
}

// acceptLoops take connections from quic-go's accept queue, which holds 32
// and refuses (CONNECTION_REFUSED) a handshaken connection when full:
// under a burst of handshakes on busy cores, one goroutine may not be
// scheduled often enough to keep it from filling.
const acceptLoops = 4

func (e *endpoint) acceptLoop(ctx context.Context) {
	for {
		conn, err := e.ln.Accept(ctx)
		if err != nil {
			return
		}
		b := e.current.Load()
		if b == nil {
			conn.CloseWithError(0, "shutting down")
			continue
		}
		go b.serveConn(conn)
	}
}

// attach makes b the binding that serves new connections.
func (e *endpoint) attach(b *binding) {
	e.mu.Lock()
	e.live[b] = struct{}{}
	e.mu.Unlock()
	e.current.Store(b)
}

// forget drops b once it is replaced and its last connection is gone, so
// old configs are not kept alive by the endpoint.
func (e *endpoint) forget(b *binding) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.current.Load() != b && b.conns.Load() == 0 {
		delete(e.live, b)
	}
}

// shutdown stops accepting, waits up to grace for the requests in flight
// on any binding's connections, then closes every connection.
func (e *endpoint) shutdown(grace time.Duration) (timedOut bool, err error) {
	e.cancel()
	e.mu.Lock()
	live := make([]*binding, 0, len(e.live))
	for b := range e.live {
		live = append(live, b)
	}
	e.mu.Unlock()
	// Polling keeps the request path to one atomic add; a WaitGroup may not
	// be waited on while new requests still Add to it.
	deadline := time.Now().Add(grace)
	for inFlight(live) > 0 {
		if time.Now().After(deadline) {
			timedOut = true
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var errs []error
	for _, b := range live {
		errs = append(errs, b.wt.Close())
	}
	return timedOut, errors.Join(errs...)
}

// Destruct closes the socket once no config uses it.
func (e *endpoint) Destruct() error {
	if cur, ok := advertisedPorts.Load(e.port); ok && cur == e {
		advertisedPorts.Delete(e.port)
	}
	e.cancel()
	err := e.ln.Close()
	<-e.done
	return errors.Join(err, e.tr.Close(), e.conn.Close())
}

// altSvcPort reports whether the UDP port matching a TCP listener's port
// serves HTTP/3, so it may be advertised.
func altSvcPort(port string) bool {
	_, ok := advertisedPorts.Load(port)
	return ok
}

func inFlight(bindings []*binding) (n int64) {
	for _, b := range bindings {
		n += b.inFlight.Load()
	}
	return n
}
