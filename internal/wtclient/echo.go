// Package wtclient holds the WebTransport client steps tests and load
// tools take: the connection to a server, and one round of a stream, a
// unidirectional stream or a datagram against an echoing one, and the
// uploads and downloads of throughput measurements.
package wtclient

import (
	"context"
	"io"
	"time"

	"github.com/quic-go/webtransport-go"
)

// EchoStream sends msg on a new bidirectional stream, closes its sending
// side and returns all that comes back.
func EchoStream(ctx context.Context, s *webtransport.Session, msg []byte) ([]byte, error) {
	str, err := s.OpenStreamSync(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := str.Write(msg); err != nil {
		return nil, err
	}
	if err := str.Close(); err != nil {
		return nil, err
	}
	return io.ReadAll(str)
}

// EchoUniStream sends msg on a new unidirectional stream and returns the
// next unidirectional stream the server opens.
func EchoUniStream(ctx context.Context, s *webtransport.Session, msg []byte) ([]byte, error) {
	str, err := s.OpenUniStreamSync(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := str.Write(msg); err != nil {
		return nil, err
	}
	if err := str.Close(); err != nil {
		return nil, err
	}
	rstr, err := s.AcceptUniStream(ctx)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(rstr)
}

// EchoDatagram sends msg until a datagram comes back: datagrams may be
// lost.
func EchoDatagram(ctx context.Context, s *webtransport.Session, msg []byte) ([]byte, error) {
	for {
		if err := s.SendDatagram(msg); err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		got, err := s.ReceiveDatagram(rctx)
		cancel()
		if err == nil {
			return got, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}
