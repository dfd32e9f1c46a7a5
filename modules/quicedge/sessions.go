package quicedge

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// Several WebTransport sessions on one QUIC connection (browsers pool a
// page's sessions to one origin; load tools open many per connection):
// webtransport-go carries more than one only with WebTransport's
// per-session flow control on both sides, so the edge always offers it,
// and bounds what one connection may hold with a session cap.

// maxSessionsPerConn bounds WebTransportMaxSessions: each session holds
// up to WebTransportSessionData of the client's data in the edge.
const maxSessionsPerConn = 1024

// maxSessionData bounds WebTransportSessionData.
const maxSessionData = 1 << 30

func (a *App) provisionSessionLimits() {
	if a.WebTransportMaxSessions == 0 {
		// As many as the webtransport handler's default per-client limit:
		// a few tabs of one user, pooled on one connection.
		a.WebTransportMaxSessions = 16
	}
	if a.WebTransportSessionStreams == 0 {
		// The connection bounds its streams anyway; one session may use
		// all of them, as a lone session could before.
		a.WebTransportSessionStreams = a.MaxIncomingStreams
	}
	if a.WebTransportSessionData == 0 {
		// A session that stops reading holds the connection's receive
		// window with what it did not read; 4 MiB (a 100 ms path at
		// 300 Mbit/s) leaves the rest of quic-go's 15 MiB to the others.
		a.WebTransportSessionData = 4 << 20
	}
}

func (a *App) checkSessionLimits() error {
	switch {
	case a.WebTransportMaxSessions < 1 || a.WebTransportMaxSessions > maxSessionsPerConn:
		return fmt.Errorf("quic: webtransport_max_sessions_per_connection %d: want 1 to %d", a.WebTransportMaxSessions, maxSessionsPerConn)
	case a.WebTransportSessionStreams < 1 || a.WebTransportSessionStreams > a.MaxIncomingStreams:
		return fmt.Errorf("quic: webtransport_session_max_streams %d: want 1 to max_incoming_streams (%d)", a.WebTransportSessionStreams, a.MaxIncomingStreams)
	case a.WebTransportSessionData < 1 || a.WebTransportSessionData > maxSessionData:
		return fmt.Errorf("quic: webtransport_session_max_data %d: want 1 to %d bytes", a.WebTransportSessionData, maxSessionData)
	}
	return nil
}

// sessionFlowControl is what the edge's SETTINGS offer each session.
func (a *App) sessionFlowControl() *webtransport.Config {
	return &webtransport.Config{
		MaxIncomingStreams:    a.WebTransportSessionStreams,
		MaxIncomingUniStreams: a.WebTransportSessionStreams,
		MaxIncomingData:       a.WebTransportSessionData,
	}
}

// connSessions counts the sessions open on one QUIC connection; it lives
// in the connection's context, so it outlives the config that accepted the
// connection.
type connSessions struct{ n atomic.Int64 }

var connSessionsKey = &contextKey{"webtransport-sessions"}

// ErrConnSessionLimit is returned by ReserveSession when the client's
// connection holds webtransport_max_sessions_per_connection sessions.
var ErrConnSessionLimit = errors.New("quicedge: too many WebTransport sessions on this connection")

// ReserveSession takes a place for one more session on r's QUIC
// connection, under the current config's cap; release gives it back once
// the session ended or was not accepted. Call it before any work for the
// session, then UpgradeWebTransport.
func ReserveSession(r *http.Request) (release func(), err error) {
	h3r, ok := r.Context().Value(h3RequestKey).(*h3Request)
	if !ok {
		return nil, ErrNoWebTransport
	}
	// Looked up here, not for every HTTP/3 request: r's context derives
	// from its connection's.
	c := r.Context().Value(connSessionsKey).(*connSessions)
	if c.n.Add(1) > h3r.sessionCap() {
		c.n.Add(-1)
		return nil, ErrConnSessionLimit
	}
	return sync.OnceFunc(func() { c.n.Add(-1) }), nil
}

// The client's SETTINGS that enable WebTransport's per-session flow
// control (draft-ietf-webtrans-http3: SETTINGS_WT_INITIAL_MAX_STREAMS_UNI,
// _BIDI and SETTINGS_WT_INITIAL_MAX_DATA; webtransport-go's values).
const (
	settingWTInitialMaxStreamsUni  = 0x2b64
	settingWTInitialMaxStreamsBidi = 0x2b65
	settingWTInitialMaxData        = 0x2b61
)

// sessionCap is how many sessions the request's connection may hold: the
// config's cap, or 1 when the client's SETTINGS enable no per-session
// flow control. webtransport-go carries no second session for such a
// client, and v0.13.0 refuses it only after its Upgrade has sent the 200
// (taking the request stream sends the header), so the browser would see
// a session open and then die; refused here it gets a plain 429. A client
// whose SETTINGS have not arrived yet opens its first session, which any
// cap allows (webtransport-go waits for them before accepting it).
func (h3r *h3Request) sessionCap() int64 {
	settings, ok := h3r.w.(http3.Settingser)
	if !ok {
		return int64(h3r.maxSessions)
	}
	select {
	case <-settings.ReceivedSettings():
	default:
		return int64(h3r.maxSessions)
	}
	other := settings.Settings().Other
	if other[settingWTInitialMaxStreamsUni] > 0 || other[settingWTInitialMaxStreamsBidi] > 0 || other[settingWTInitialMaxData] > 0 {
		return int64(h3r.maxSessions)
	}
	return 1
}
