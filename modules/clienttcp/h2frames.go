package clienttcp

import (
	"bytes"

	"golang.org/x/net/http2"
)

// h2Preface is what an HTTP/2 client sends first (RFC 9113 section 3.4).
const h2Preface = http2.ClientPreface

// frameScanner follows the frame boundaries of one direction of an HTTP/2
// connection, so frames can be added between the server's own and the
// client's answer to them recognised.
type frameScanner struct {
	hdr     [9]byte
	hdrN    int
	remain  int    // payload bytes of the current frame still to come
	payload []byte // the current frame's first payload bytes (up to 8)
}

// atBoundary reports whether the next byte starts a frame.
func (s *frameScanner) atBoundary() bool { return s.hdrN == 0 && s.remain == 0 }

// step consumes p up to the end of the current frame at most; it returns
// how many bytes it took and whether a frame ended there.
func (s *frameScanner) step(p []byte) (n int, ended bool) {
	if s.hdrN < len(s.hdr) {
		n = copy(s.hdr[s.hdrN:], p)
		s.hdrN += n
		if s.hdrN < len(s.hdr) {
			return n, false
		}
		s.remain = int(s.hdr[0])<<16 | int(s.hdr[1])<<8 | int(s.hdr[2])
		s.payload = s.payload[:0]
	}
	k := min(s.remain, len(p)-n)
	if keep := min(k, 8-len(s.payload)); keep > 0 {
		s.payload = append(s.payload, p[n:n+keep]...)
	}
	s.remain -= k
	n += k
	if s.remain > 0 {
		return n, false
	}
	s.hdrN = 0
	return n, true
}

// frameType is the type of the frame that ended last.
func (s *frameScanner) frameType() http2.FrameType { return http2.FrameType(s.hdr[3]) }

// streamID is the stream of the frame that ended last.
func (s *frameScanner) streamID() uint32 {
	return (uint32(s.hdr[5])<<24 | uint32(s.hdr[6])<<16 | uint32(s.hdr[7])<<8 | uint32(s.hdr[8])) & (1<<31 - 1)
}

// isPingAck reports whether the frame that ended last acknowledges a PING
// carrying data.
func (s *frameScanner) isPingAck(data [8]byte) bool {
	return s.frameType() == http2.FramePing && http2.Flags(s.hdr[4]).Has(http2.FlagPingAck) &&
		bytes.Equal(s.payload, data[:])
}

// goAwayFrames are the first step of RFC 9113 section 6.8's graceful
// shutdown: a GOAWAY with the largest stream id, so the client stops
// opening streams while every stream it already sent is still served,
// then a PING whose acknowledgement shows the client has seen the GOAWAY
// and sent all the streams it will.
func goAwayFrames(ping [8]byte) []byte {
	var buf bytes.Buffer
	fr := http2.NewFramer(&buf, nil)
	_ = fr.WriteGoAway(1<<31-1, http2.ErrCodeNo, nil)
	_ = fr.WritePing(false, ping)
	return buf.Bytes()
}
