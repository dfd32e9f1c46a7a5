package xk6lastmile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"
	"go.k6.io/k6/v2/js/common"
	"go.k6.io/k6/v2/metrics"
)

// Limits on what one call hands to the script, so a peer that streams
// without end cannot grow a VU's memory without bound.
const (
	readChunk  = 64 << 10
	maxReadAll = 16 << 20
)

// Session is a WebTransport session as a script sees it: open it with
// lastmile.webtransport(url, params), check ok, then drive its streams and
// datagrams. Every blocking call is bounded by params.timeout and by the
// iteration. A session the script does not close is closed at the end of
// the iteration, or of the test with closeAt: "vu".
type Session struct {
	OK         bool    `js:"ok"`
	Status     int     `js:"status"` // of the CONNECT response, 0 if none came
	Error      string  `js:"error"`
	Connecting float64 `js:"connecting"` // ms: QUIC handshake and CONNECT

	i         *instance
	p         Params
	iteration context.Context // the iteration that opened it
	tags      *metrics.TagSet
	tr        *webtransport.Transport
	sess      *webtransport.Session
	opened    time.Time
	ended     sync.Once
}

// webtransport opens a session. A refused or failed session is not an
// exception (as k6's http.get does not throw on a 5xx): it comes back with
// ok false, its status and error, and counts in lastmile_wt_failed.
func (i *instance) webtransport(url string, p map[string]any) (*Session, error) {
	if i.vu.State() == nil {
		return nil, errors.New("webtransport: only in the VU context")
	}
	prm, err := params(p)
	if err != nil {
		return nil, err
	}
	s := &Session{i: i, p: prm, iteration: i.vu.Context(), tags: i.tags("url", url)}
	s.tr = &webtransport.Transport{
		TLSClientConfig: i.tlsConfig(prm),
		QUICConfig:      &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true},
	}
	hdr := http.Header{}
	for k, v := range prm.Headers {
		hdr.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(i.vu.Context(), prm.Timeout)
	defer cancel()
	start := time.Now()
	rsp, sess, err := s.tr.Dial(ctx, url, hdr)
	s.opened = time.Now()
	s.Connecting = ms(s.opened.Sub(start))
	if rsp != nil {
		s.Status = rsp.StatusCode
	}
	failed := 0.0
	if err != nil {
		s.Error = err.Error()
		s.tr.Close()
		failed = 1
	} else {
		s.OK, s.sess = true, sess
		i.mu.Lock()
		i.sessions[s] = struct{}{}
		i.mu.Unlock()
	}
	vals := map[*metrics.Metric]float64{i.m.wtSessions: 1, i.m.wtFailed: failed}
	if err == nil {
		vals[i.m.wtConnecting] = s.Connecting // as k6's ws_connecting: opened sessions only
	}
	i.push(i.vu.Context(), s.tags.With("status", fmt.Sprint(s.Status)), s.opened, vals)
	return s, nil
}

// Close ends the session (code 0) and its QUIC connection.
func (s *Session) Close() error {
	if s.sess == nil {
		return nil
	}
	s.end(s.i.vu.Context())
	return nil
}

// end closes the session once; its duration goes to k6 unless ctx is done
// (the test is over and its outputs are closed).
func (s *Session) end(ctx context.Context) {
	s.ended.Do(func() {
		_ = s.sess.CloseWithError(0, "")
		s.tr.Close()
		s.i.mu.Lock()
		delete(s.i.sessions, s)
		s.i.mu.Unlock()
		now := time.Now()
		s.i.push(ctx, s.tags, now, map[*metrics.Metric]float64{s.i.m.wtDuration: ms(now.Sub(s.opened))})
	})
}

// closeSessions ends the VU's open sessions that match.
func (i *instance) closeSessions(ctx context.Context, match func(*Session) bool) {
	i.mu.Lock()
	var open []*Session
	for s := range i.sessions {
		if match(s) {
			open = append(open, s)
		}
	}
	i.mu.Unlock()
	for _, s := range open {
		s.end(ctx)
	}
}

func (s *Session) open() error {
	if s.sess == nil {
		return fmt.Errorf("webtransport session not open: %s", s.Error)
	}
	return nil
}

// call bounds one blocking call by the timeout and the iteration.
func (s *Session) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.i.vu.Context(), s.p.Timeout)
}

// within runs op, one of the session's blocking calls, if the session is
// open, bounded like call.
func within[T any](s *Session, op func(*webtransport.Session, context.Context) (T, error)) (T, error) {
	if err := s.open(); err != nil {
		var none T
		return none, err
	}
	ctx, cancel := s.call()
	defer cancel()
	return op(s.sess, ctx)
}

func (s *Session) countStream(kind string) {
	s.i.push(s.i.vu.Context(), s.tags.With("stream", kind), time.Now(), map[*metrics.Metric]float64{s.i.m.wtStreams: 1})
}

// OpenStream opens a bidirectional stream (waiting for the peer's stream
// credit, within the timeout).
func (s *Session) OpenStream() (*Stream, error) {
	str, err := within(s, (*webtransport.Session).OpenStreamSync)
	if err != nil {
		return nil, err
	}
	s.countStream("bidi")
	return &Stream{sendHalf{s, str}, receiveHalf{s, str}}, nil
}

// OpenUniStream opens a stream the script only writes to.
func (s *Session) OpenUniStream() (*SendStream, error) {
	str, err := within(s, (*webtransport.Session).OpenUniStreamSync)
	if err != nil {
		return nil, err
	}
	s.countStream("uni")
	return &SendStream{sendHalf{s, str}}, nil
}

// AcceptStream waits for a bidirectional stream the peer opens.
func (s *Session) AcceptStream() (*Stream, error) {
	str, err := within(s, (*webtransport.Session).AcceptStream)
	if err != nil {
		return nil, err
	}
	return &Stream{sendHalf{s, str}, receiveHalf{s, str}}, nil
}

// AcceptUniStream waits for a stream the peer opens and only writes to.
func (s *Session) AcceptUniStream() (*ReceiveStream, error) {
	str, err := within(s, (*webtransport.Session).AcceptUniStream)
	if err != nil {
		return nil, err
	}
	return &ReceiveStream{receiveHalf{s, str}}, nil
}

// SendDatagram sends data (a string or an ArrayBuffer) as one datagram.
func (s *Session) SendDatagram(data any) error {
	if err := s.open(); err != nil {
		return err
	}
	b, err := common.ToBytes(data)
	if err != nil {
		return err
	}
	if err := s.sess.SendDatagram(b); err != nil {
		return err
	}
	s.i.push(s.i.vu.Context(), s.tags, time.Now(), map[*metrics.Metric]float64{s.i.m.wtDatagramsSent: 1})
	return nil
}

// ReceiveDatagram returns the next datagram as a string, or null if none
// came within the timeout: datagrams may be lost, and a script decides
// what a loss means.
func (s *Session) ReceiveDatagram() (any, error) {
	b, err := within(s, func(_ *webtransport.Session, ctx context.Context) ([]byte, error) { return s.receiveDatagram(ctx) })
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func (s *Session) receiveDatagram(ctx context.Context) ([]byte, error) {
	b, err := s.sess.ReceiveDatagram(ctx)
	if err == nil {
		s.i.push(s.i.vu.Context(), s.tags, time.Now(), map[*metrics.Metric]float64{s.i.m.wtDatagramsReceived: 1})
	}
	return b, err
}

// Stream is a bidirectional stream: write, close (the sending side), read,
// readAll.
type Stream struct {
	sendHalf
	receiveHalf
}

// SendStream is the sending side of a unidirectional stream.
type SendStream struct{ sendHalf }

// ReceiveStream is the receiving side of a unidirectional stream.
type ReceiveStream struct{ receiveHalf }

type sendHalf struct {
	s *Session
	w interface {
		io.WriteCloser
		SetWriteDeadline(time.Time) error
	}
}

// Write sends data (a string or an ArrayBuffer).
func (h sendHalf) Write(data any) error {
	b, err := common.ToBytes(data)
	if err != nil {
		return err
	}
	defer h.s.bound(h.w.SetWriteDeadline)()
	_, err = h.w.Write(b)
	return err
}

// Close ends the sending side (FIN); the peer reads to its end.
func (h sendHalf) Close() error { return h.w.Close() }

type receiveHalf struct {
	s *Session
	r interface {
		io.Reader
		SetReadDeadline(time.Time) error
	}
}

// Read returns the next data the peer sent, as a string (at most 64 KiB),
// or null once the peer has ended its side.
func (h receiveHalf) Read() (any, error) {
	defer h.s.bound(h.r.SetReadDeadline)()
	buf := make([]byte, readChunk)
	n, err := h.r.Read(buf)
	if n > 0 {
		return string(buf[:n]), nil
	}
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	return nil, err
}

// ReadAll reads until the peer ends its side (at most 16 MiB).
func (h receiveHalf) ReadAll() (string, error) {
	defer h.s.bound(h.r.SetReadDeadline)()
	b, err := io.ReadAll(io.LimitReader(h.r, maxReadAll+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxReadAll {
		return "", fmt.Errorf("stream longer than %d bytes", maxReadAll)
	}
	return string(b), nil
}

// bound sets a stream deadline for one call (the timeout, or now when the
// iteration is interrupted) and returns what lifts it.
func (s *Session) bound(setDeadline func(time.Time) error) (lift func()) {
	_ = setDeadline(time.Now().Add(s.p.Timeout))
	stop := context.AfterFunc(s.i.vu.Context(), func() { _ = setDeadline(time.Now()) })
	return func() {
		stop()
		_ = setDeadline(time.Time{})
	}
}

// webtransportEcho opens a session, echoes a bidirectional stream, a
// unidirectional stream and a datagram (lastmile_wt_datagram_rtt) on it,
// and closes it: one call per iteration for ramps to thousands of
// sessions.
func (i *instance) webtransportEcho(url string, p map[string]any) (map[string]any, error) {
	start := time.Now()
	s, err := i.webtransport(url, p)
	if err != nil {
		return nil, err
	}
	rtt, err := s.echo()
	s.Close()
	out := map[string]any{"ok": err == nil, "duration": ms(time.Since(start)), "datagram_rtt": ms(rtt), "status": s.Status}
	if err != nil {
		out["error"] = err.Error()
	}
	return out, nil
}

func (s *Session) echo() (time.Duration, error) {
	if err := s.open(); err != nil {
		return 0, err
	}
	str, err := s.OpenStream()
	if err != nil {
		return 0, err
	}
	if err := echoed(str.sendHalf, str.receiveHalf, "k6 stream"); err != nil {
		return 0, fmt.Errorf("bidirectional stream: %w", err)
	}
	ustr, err := s.OpenUniStream()
	if err != nil {
		return 0, err
	}
	if err := ustr.Write("k6 uni"); err != nil {
		return 0, err
	}
	ustr.Close()
	back, err := s.AcceptUniStream()
	if err != nil {
		return 0, err
	}
	if got, err := back.ReadAll(); err != nil || got != "k6 uni" {
		return 0, fmt.Errorf("unidirectional stream echo %q: %v", got, err)
	}
	ctx, cancel := s.call()
	defer cancel()
	// A datagram may be lost: resend every 300 ms until one comes back.
	// Each carries its number, so a late echo of an earlier one is timed
	// from its own sending.
	var sent []time.Time
	for {
		sent = append(sent, time.Now())
		if err := s.SendDatagram(fmt.Sprintf("k6 datagram %d", len(sent)-1)); err != nil {
			return 0, err
		}
		rctx, rcancel := context.WithTimeout(ctx, 300*time.Millisecond)
		b, err := s.receiveDatagram(rctx)
		rcancel()
		if err == nil {
			var n int
			if _, err := fmt.Sscanf(string(b), "k6 datagram %d", &n); err != nil || n < 0 || n >= len(sent) {
				return 0, fmt.Errorf("datagram echo: got %q", b)
			}
			rtt := time.Since(sent[n])
			s.i.push(s.i.vu.Context(), s.tags, time.Now(), map[*metrics.Metric]float64{s.i.m.wtDatagramRTT: ms(rtt)})
			return rtt, nil
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("datagram echo: %w", ctx.Err())
		}
	}
}

func echoed(w sendHalf, r receiveHalf, msg string) error {
	if err := w.Write(msg); err != nil {
		return err
	}
	w.Close()
	got, err := r.ReadAll()
	if err != nil || got != msg {
		return fmt.Errorf("echo %q: %v", got, err)
	}
	return nil
}
