package originlink

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"go.uber.org/zap"
)

// errHTTP1Origin: the origin negotiated HTTP/1.1; requests to it go
// through a keep-alive HTTP/1.1 transport instead of the pool.
var errHTTP1Origin = errors.New("origin speaks HTTP/1.1 only")

// ErrNoLink is returned when no connection to the origin can be had now:
// the pool is empty and a dial failed. reverse_proxy answers 502 at once.
var ErrNoLink = errors.New("originlink: no connection to the origin")

// link is one warm connection of a pool.
type link struct {
	slot     int
	cc       linkConn
	tcp      net.Conn   // the TCP socket under TLS, for TCP_INFO (nil for HTTP/3)
	quic     *quic.Conn // the QUIC connection of an HTTP/3 link
	created  time.Time
	lastBusy atomic.Int64 // unix nanos when it last had a stream
	pingRTT  atomic.Int64 // ns, last PING
}

// pool keeps size HTTP/2 connections open to one origin address, pinging
// them, replacing dead or long-idle ones before the origin closes them,
// and redialling with backoff.
type pool struct {
	t       *Transport
	network string
	addr    string

	mu    sync.Mutex
	links []*link // len size; nil where a slot is being (re)dialled
	http1 atomic.Bool

	dials, dialFailures atomic.Int64
	ready               chan struct{} // closed when the first round of dials is over
	stop                chan struct{}
	done                chan struct{}
}

func newPool(t *Transport, network, addr string) *pool {
	return &pool{t: t, network: network, addr: addr, links: make([]*link, t.PoolSize),
		ready: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
}

// start dials every slot, then keeps them up in the background. It waits
// for the first round of dials (bounded by the dial timeout), and so do
// requests that find the pool while it dials (see poolFor): they then use
// its links instead of dialling their own.
func (p *pool) start() {
	var wg sync.WaitGroup
	for i := range p.links {
		wg.Go(func() { p.fill(i) })
	}
	wg.Wait()
	close(p.ready)
	go p.maintain()
}

// fill dials slot i; it reports whether the slot holds a link.
func (p *pool) fill(i int) bool {
	l, err := p.dial(i)
	if err != nil {
		if !errors.Is(err, errHTTP1Origin) {
			p.t.logger.Debug("dialling origin", zap.String("origin", p.addr), zap.Error(err))
		}
		return false
	}
	p.mu.Lock()
	old := p.links[i]
	p.links[i] = l
	p.mu.Unlock()
	if old != nil {
		go p.retire(old)
	}
	return true
}

func (p *pool) dial(slot int) (*link, error) {
	p.dials.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(p.t.DialTimeout))
	defer cancel()
	if p.t.Protocol == "h3" {
		return p.dialQUIC(ctx, slot)
	}
	raw, err := p.t.tuning.dialContext(ctx, p.network, p.addr, time.Duration(p.t.DialTimeout))
	if err != nil {
		p.dialFailures.Add(1)
		return nil, err
	}
	conn := raw
	if p.t.tlsConfig != nil {
		tc := tls.Client(raw, p.t.tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			p.dialFailures.Add(1)
			return nil, fmt.Errorf("TLS handshake with %s: %w", p.addr, err)
		}
		if tc.ConnectionState().NegotiatedProtocol != "h2" {
			tc.Close()
			p.http1.Store(true)
			return nil, errHTTP1Origin
		}
		conn = tc
	}
	cc, err := p.t.h2.NewClientConn(conn)
	if err != nil {
		conn.Close()
		p.dialFailures.Add(1)
		return nil, err
	}
	l := &link{slot: slot, cc: h2Conn{cc}, tcp: raw, created: time.Now()}
	l.lastBusy.Store(time.Now().UnixNano())
	return l, nil
}

// dialQUIC opens an HTTP/3 link; QUIC keep-alives at the ping interval
// keep it (and NAT state on the way) warm.
func (p *pool) dialQUIC(ctx context.Context, slot int) (*link, error) {
	qc, err := quic.DialAddr(ctx, p.addr, p.t.tlsConfig, &quic.Config{
		KeepAlivePeriod: time.Duration(p.t.PingInterval),
		MaxIdleTimeout:  3 * time.Duration(p.t.PingInterval),
	})
	if err != nil {
		p.dialFailures.Add(1)
		return nil, fmt.Errorf("QUIC handshake with %s: %w", p.addr, err)
	}
	cc := p.t.h3.NewClientConn(qc)
	l := &link{slot: slot, cc: h3Conn{qc: qc, cc: cc, inFlight: new(atomic.Int64)}, quic: qc, created: time.Now()}
	l.lastBusy.Store(time.Now().UnixNano())
	return l, nil
}

// retire lets a replaced link finish its streams, then closes it.
func (p *pool) retire(l *link) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l.cc.shutdown(ctx)
}

// maintain pings, replaces and redials until the pool stops.
func (p *pool) maintain() {
	defer close(p.done)
	backoff := make([]time.Duration, len(p.links))
	next := make([]time.Time, len(p.links))
	tick := time.NewTicker(min(time.Duration(p.t.PingInterval), time.Second))
	defer tick.Stop()
	lastPing := time.Now()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		now := time.Now()
		pingDue := now.Sub(lastPing) >= time.Duration(p.t.PingInterval)
		if pingDue {
			lastPing = now
		}
		for i := range p.links {
			p.mu.Lock()
			l := p.links[i]
			p.mu.Unlock()
			if p.http1.Load() {
				return
			}
			switch {
			case l == nil || !l.cc.usable():
				if now.Before(next[i]) {
					continue
				}
				if l != nil {
					p.mu.Lock()
					p.links[i] = nil
					p.mu.Unlock()
					l.cc.close()
				}
				if p.fill(i) {
					backoff[i] = 0
				} else {
					// Exponential backoff from 100 ms to 5 s.
					backoff[i] = min(max(2*backoff[i], 100*time.Millisecond), 5*time.Second)
					next[i] = now.Add(backoff[i])
				}
			case l.cc.streams() == 0 && now.Sub(time.Unix(0, l.lastBusy.Load())) >= time.Duration(p.t.ReplaceIdle):
				// Replace before the origin's idle timeout closes it
				// under a request; the new one is open first.
				p.fill(i)
			case pingDue:
				go p.ping(l)
			}
		}
	}
}

func (p *pool) ping(l *link) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(p.t.PingInterval))
	defer cancel()
	rtt, err := l.cc.ping(ctx)
	if err != nil {
		// A dead link: the next round replaces it.
		l.cc.close()
		return
	}
	l.pingRTT.Store(int64(rtt))
}

// roundTrip sends req on the least busy live link.
func (p *pool) roundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 2; attempt++ {
		l := p.pick()
		if l == nil {
			// Nothing open: one dial now, so a request fails fast
			// rather than waiting for the background redial.
			if !p.fill(0) {
				if p.http1.Load() {
					return p.t.h1.RoundTrip(req)
				}
				return nil, fmt.Errorf("%w %s", ErrNoLink, p.addr)
			}
			continue
		}
		l.lastBusy.Store(time.Now().UnixNano())
		resp, err := l.cc.RoundTrip(req)
		l.lastBusy.Store(time.Now().UnixNano())
		if err != nil && !l.cc.usable() && (req.Body == nil || req.Body == http.NoBody) && attempt == 0 {
			// The link died under a body-less request that it had not
			// started: try another link once.
			continue
		}
		return resp, err
	}
	return nil, fmt.Errorf("%w %s", ErrNoLink, p.addr)
}

func (p *pool) pick() *link {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best *link
	bestLoad := 0
	for _, l := range p.links {
		if l == nil || !l.cc.usable() {
			continue
		}
		load := l.cc.streams()
		if best == nil || load < bestLoad {
			best, bestLoad = l, load
		}
	}
	return best
}

func (p *pool) close() {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	links := p.links
	p.links = make([]*link, len(links))
	p.mu.Unlock()
	for _, l := range links {
		if l != nil {
			go p.retire(l)
		}
	}
}

// liveLinks returns the pool's open links.
func (p *pool) liveLinks() []*link {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*link
	for _, l := range p.links {
		if l != nil && l.cc.usable() {
			out = append(out, l)
		}
	}
	return out
}
