package wtsession

import (
	"fmt"
	"io"
	"sync"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(Echo{})
}

// Echo sends back what the client sends: each bidirectional stream on
// itself, each unidirectional stream on a new unidirectional stream, each
// datagram as a datagram. It is the demo's and tests' session module and a
// reachability probe for clients.
type Echo struct {
	// MaxStreamBytes bounds what one stream may echo. Default 1 MiB.
	MaxStreamBytes int64 `json:"max_stream_bytes,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Echo) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "webtransport.sessions.echo",
		New: func() caddy.Module { return new(Echo) },
	}
}

// Provision sets the default stream limit.
func (e *Echo) Provision(caddy.Context) error {
	if e.MaxStreamBytes == 0 {
		e.MaxStreamBytes = 1 << 20
	}
	return nil
}

// Validate refuses a stream limit below one byte.
func (e *Echo) Validate() error {
	if e.MaxStreamBytes < 1 {
		return fmt.Errorf("echo: max_stream_bytes %d: want a positive whole number", e.MaxStreamBytes)
	}
	return nil
}

// ServeSession echoes until the session ends.
func (e *Echo) ServeSession(s *Session) {
	ctx := s.Context()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		for {
			str, err := s.AcceptStream(ctx)
			if err != nil {
				return
			}
			wg.Go(func() {
				_, _ = io.Copy(str, io.LimitReader(touchReader{str, s}, e.MaxStreamBytes))
				str.Close()
			})
		}
	})
	wg.Go(func() {
		for {
			rstr, err := s.AcceptUniStream(ctx)
			if err != nil {
				return
			}
			wg.Go(func() {
				data, err := io.ReadAll(io.LimitReader(touchReader{rstr, s}, e.MaxStreamBytes))
				if err != nil {
					return
				}
				sstr, err := s.OpenUniStreamSync(ctx)
				if err != nil {
					return
				}
				_, _ = sstr.Write(data)
				sstr.Close()
			})
		}
	})
	for {
		msg, err := s.ReceiveDatagram(ctx)
		if err != nil {
			return
		}
		_ = s.SendDatagram(msg)
	}
}

// touchReader resets the session's idle timer as stream data arrives.
type touchReader struct {
	r io.Reader
	s *Session
}

func (t touchReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.s.Touch()
	}
	return n, err
}

// Interface guards
var (
	_ caddy.Provisioner = (*Echo)(nil)
	_ caddy.Validator   = (*Echo)(nil)
	_ SessionHandler    = (*Echo)(nil)
)
