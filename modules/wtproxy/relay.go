package wtproxy

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/modules/wtsession"
)

// Session close codes the relay sends when the other side's session ended
// without one of its own (its connection was lost).
const (
	codeUpstreamGone webtransport.SessionErrorCode = 0x1d50
	codeClientGone   webtransport.SessionErrorCode = 0x1d51
	codeInternal     webtransport.SessionErrorCode = 0x1d52
)

// Stream reset codes the relay sends when the other side gave none.
const (
	// streamCodeRelay: the other side's stream ended without a WebTransport
	// error code (its session or connection ended).
	streamCodeRelay webtransport.StreamErrorCode = 0x1d50
	// streamCodeRefused: the other side would not open the stream.
	streamCodeRefused webtransport.StreamErrorCode = 0x1d51
)

// peer is a WebTransport session, browser's or upstream's.
type peer interface {
	AcceptStream(context.Context) (*webtransport.Stream, error)
	AcceptUniStream(context.Context) (*webtransport.ReceiveStream, error)
	OpenStreamSync(context.Context) (*webtransport.Stream, error)
	OpenUniStreamSync(context.Context) (*webtransport.SendStream, error)
	ReceiveDatagram(context.Context) ([]byte, error)
	SendDatagram([]byte) error
	CloseWithError(webtransport.SessionErrorCode, string) error
	Context() context.Context
}

// direction is one way through the relay.
type direction struct {
	from, to peer
	// gone is the code `to` is closed with when `from` ends without one.
	gone    webtransport.SessionErrorCode
	metrics *directionMetrics
}

// relay copies everything of one browser session to its upstream
// session and back, until either ends.
type relay struct {
	client  *wtsession.Session
	bufSize int
	// slots bounds the streams relayed at once: with bufSize, the
	// session's relay memory.
	slots   chan struct{}
	ways    [2]direction
	endOnce sync.Once
	wg      sync.WaitGroup
}

func newRelay(client *wtsession.Session, upstream *webtransport.Session, bufSize, maxStreams int) *relay {
	return &relay{
		client:  client,
		bufSize: bufSize,
		slots:   make(chan struct{}, maxStreams),
		ways: [2]direction{
			{from: client, to: upstream, gone: codeClientGone, metrics: &metrics.toUpstream},
			{from: upstream, to: client, gone: codeUpstreamGone, metrics: &metrics.toClient},
		},
	}
}

// run relays until both sessions have ended and every stream is done.
func (r *relay) run() {
	for _, d := range r.ways {
		r.wg.Go(func() { r.watch(d) })
		r.wg.Go(func() { r.acceptStreams(d) })
		r.wg.Go(func() { r.acceptUniStreams(d) })
		r.wg.Go(func() { r.relayDatagrams(d) })
	}
	r.wg.Wait()
}

// watch closes the other side's session with the code and reason d.from's
// session ended with.
func (r *relay) watch(d direction) {
	<-d.from.Context().Done()
	err := closeError(d.from)
	r.endOnce.Do(func() {
		if se, ok := errors.AsType[*webtransport.SessionError](err); ok {
			d.to.CloseWithError(se.ErrorCode, se.Message)
			return
		}
		d.to.CloseWithError(d.gone, "peer's connection lost")
	})
}

// closeError is the error an ended session ended with. Its context may
// end a moment before the session's close reaches its stream maps, so the
// accept waits for that, briefly.
func closeError(s peer) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for {
		str, err := s.AcceptStream(ctx)
		if err != nil {
			return err
		}
		str.CancelRead(streamCodeRelay)
		str.CancelWrite(streamCodeRelay)
	}
}

func (r *relay) acquire(ctx context.Context) bool {
	select {
	case r.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *relay) release() { <-r.slots }

func (r *relay) acceptStreams(d direction) {
	ctx := d.from.Context()
	for r.acquire(ctx) {
		in, err := d.from.AcceptStream(ctx)
		if err != nil {
			r.release()
			return
		}
		out, err := d.to.OpenStreamSync(d.to.Context())
		if err != nil {
			in.CancelRead(streamCodeRefused)
			in.CancelWrite(streamCodeRefused)
			r.release()
			continue
		}
		d.metrics.bidiStreams.Inc()
		r.wg.Go(func() {
			defer r.release()
			var back sync.WaitGroup
			back.Go(func() { r.pipe(out, in, r.reverse(d).metrics) })
			r.pipe(in, out, d.metrics)
			back.Wait()
		})
	}
}

func (r *relay) acceptUniStreams(d direction) {
	ctx := d.from.Context()
	for r.acquire(ctx) {
		in, err := d.from.AcceptUniStream(ctx)
		if err != nil {
			r.release()
			return
		}
		out, err := d.to.OpenUniStreamSync(d.to.Context())
		if err != nil {
			in.CancelRead(streamCodeRefused)
			r.release()
			continue
		}
		d.metrics.uniStreams.Inc()
		r.wg.Go(func() {
			defer r.release()
			r.pipe(in, out, d.metrics)
		})
	}
}

func (r *relay) reverse(d direction) direction {
	if d.from == r.ways[0].from {
		return r.ways[1]
	}
	return r.ways[0]
}

// relayDatagrams forwards datagrams as they come; one the other path
// cannot carry (too large, queue full) is dropped, as the network would.
func (r *relay) relayDatagrams(d direction) {
	ctx := d.from.Context()
	for {
		msg, err := d.from.ReceiveDatagram(ctx)
		if err != nil {
			return
		}
		r.client.Touch()
		if d.to.SendDatagram(msg) != nil {
			d.metrics.datagramsDropped.Inc()
			continue
		}
		d.metrics.datagrams.Inc()
	}
}

type receiveSide interface {
	Read([]byte) (int, error)
	CancelRead(webtransport.StreamErrorCode)
	SetReadDeadline(time.Time) error
}

type sendSide interface {
	Write([]byte) (int, error)
	Close() error
	CancelWrite(webtransport.StreamErrorCode)
	Context() context.Context
}

// smallCopyBuffer is the buffer a stream is relayed with until one read
// fills it: streams of small messages never need more.
const smallCopyBuffer = 16 << 10

// pipe copies src to dst through one buffer: it reads no more until dst
// took the last read, so a slow reader behind dst stops the writer
// behind src through QUIC flow control. A reset of src resets dst with
// its code, and a STOP_SENDING on dst stops src with its code.
//
// The buffer starts small and becomes bufSize once a read fills it: a
// bulk stream then hands quic-go few large writes, each of which it
// packs into one batch of packets (sendmsg with GSO), instead of many
// small ones, each a wake-up of the connection's send loop and a short
// batch.
func (r *relay) pipe(src receiveSide, dst sendSide, m *directionMetrics) {
	buf, giveBack := copyBuffer(min(smallCopyBuffer, r.bufSize))
	defer func() { giveBack() }()
	// The peer's STOP_SENDING ends dst's context; wake the read so it is
	// passed on at once, not when src next has data.
	stop := context.AfterFunc(dst.Context(), func() { src.SetReadDeadline(time.Now()) })
	defer stop()
	for {
		n, err := src.Read(buf)
		if n > 0 {
			r.client.Touch()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.CancelRead(streamCode(werr))
				return
			}
			m.bytes.Add(float64(n))
			if n == len(buf) && len(buf) < r.bufSize {
				giveBack()
				buf, giveBack = copyBuffer(r.bufSize)
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			dst.Close()
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			// An empty write returns the code dst was stopped with.
			_, werr := dst.Write(nil)
			src.CancelRead(streamCode(werr))
			return
		default:
			dst.CancelWrite(streamCode(err))
			return
		}
	}
}

// streamCode is the application's code a stream was reset or stopped
// with, or the relay's own when it ended otherwise.
func streamCode(err error) webtransport.StreamErrorCode {
	if se, ok := errors.AsType[*webtransport.StreamError](err); ok {
		return se.ErrorCode
	}
	return streamCodeRelay
}
