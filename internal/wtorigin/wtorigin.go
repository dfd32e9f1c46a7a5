// Package wtorigin is a site's own WebTransport server, as tests, the k6
// scenarios and the benchmarks run it behind the edge's `session proxy`:
// a webtransport-go server on a loopback UDP port whose routes the caller
// adds, the echo application most of them use, and the discard and
// source applications that throughput measurements use.
package wtorigin

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// sessionFlowControl enables WebTransport flow control, without which
// webtransport-go carries one session per connection: the edge's pooled
// connections need more.
var sessionFlowControl = &webtransport.Config{MaxIncomingStreams: 100, MaxIncomingUniStreams: 100, MaxIncomingData: 16 << 20}

// Server is a WebTransport server listening on a UDP socket.
type Server struct {
	Addr string // host:port it listens on
	WT   *webtransport.Server
	Mux  *http.ServeMux // plain HTTP/3 routes, such as refusals
	pc   net.PacketConn
}

// Listen opens a UDP socket on addr (e.g. 127.0.0.1:0) and prepares a
// server with the certificate; Serve starts it. quicConf may be nil.
func Listen(addr string, cert tls.Certificate, quicConf *quic.Config) (*Server, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	return &Server{
		Addr: pc.LocalAddr().String(),
		Mux:  mux,
		pc:   pc,
		WT: &webtransport.Server{Config: sessionFlowControl, H3: &http3.Server{
			Handler:    mux,
			TLSConfig:  http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{cert}}),
			QUICConfig: quicConf,
		}},
	}, nil
}

// HandleSessions accepts WebTransport sessions on pattern and runs serve
// for each in its own goroutine; a request that is not a valid CONNECT
// gets 400.
func (s *Server) HandleSessions(pattern string, serve func(*webtransport.Session, *http.Request)) {
	s.Mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		sess, err := s.WT.Upgrade(w, r)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		go serve(sess, r)
	})
}

// Serve serves until Close; it returns at once.
func (s *Server) Serve() { go s.WT.Serve(s.pc) }

// Close closes the server, its connections and its socket.
func (s *Server) Close() {
	s.WT.Close()
	s.pc.Close()
}

// Echo sends back each bidirectional stream on itself, each
// unidirectional stream on a new one, and each datagram, until the
// session ends.
func Echo(s *webtransport.Session) {
	ctx := s.Context()
	go func() {
		for {
			str, err := s.AcceptStream(ctx)
			if err != nil {
				return
			}
			go func() {
				io.Copy(str, str)
				str.Close()
			}()
		}
	}()
	go func() {
		for {
			in, err := s.AcceptUniStream(ctx)
			if err != nil {
				return
			}
			go func() {
				data, err := io.ReadAll(in)
				if err != nil {
					return
				}
				out, err := s.OpenUniStreamSync(ctx)
				if err != nil {
					return
				}
				out.Write(data)
				out.Close()
			}()
		}
	}()
	for {
		msg, err := s.ReceiveDatagram(ctx)
		if err != nil {
			return
		}
		s.SendDatagram(msg)
	}
}

// Discard reads each bidirectional stream to its end and answers with
// the number of bytes read, in decimal: the upload half of a throughput
// measurement (wtclient.Upload).
func Discard(s *webtransport.Session) {
	for {
		str, err := s.AcceptStream(s.Context())
		if err != nil {
			return
		}
		go func() {
			n, _ := io.Copy(io.Discard, str)
			fmt.Fprint(str, n)
			str.Close()
		}()
	}
}

// Source answers each bidirectional stream that asks for n bytes (n in
// decimal, then the stream's end) with n bytes: the download half of a
// throughput measurement (wtclient.Download). A malformed request has its
// stream reset.
func Source(s *webtransport.Session) {
	for {
		str, err := s.AcceptStream(s.Context())
		if err != nil {
			return
		}
		go serveSource(str)
	}
}

func serveSource(str *webtransport.Stream) {
	req, err := io.ReadAll(io.LimitReader(str, 20))
	n, perr := strconv.ParseInt(string(req), 10, 64)
	if err != nil || perr != nil || n < 0 {
		str.CancelWrite(0x40)
		return
	}
	chunk := make([]byte, 64<<10)
	for n > 0 {
		w, err := str.Write(chunk[:min(n, int64(len(chunk)))])
		if err != nil {
			return
		}
		n -= int64(w)
	}
	str.Close()
}
