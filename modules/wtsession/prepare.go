package wtsession

import (
	"net/http"

	"github.com/dunglas/httpsfv"
)

// SessionPreparer is a session module with work to do before the client's
// session is accepted, such as opening the upstream session a proxy relays
// to: a failure is then answered with an HTTP status instead of a session
// that is accepted and closed at once.
type SessionPreparer interface {
	PrepareSession(r *http.Request) (PreparedSession, error)
}

// PreparedSession serves the one session it was prepared for.
type PreparedSession interface {
	SessionHandler
	// Abort releases what was prepared when the client's session could
	// not be accepted after all.
	Abort()
}

// ProtocolChooser is a PreparedSession that chose the session's
// application protocol from the client's WT-Available-Protocols
// (draft-ietf-webtrans-http3, section 3.3), as the proxy relays its
// upstream's choice; "" chooses none.
type ProtocolChooser interface {
	ApplicationProtocol() string
}

// chosenProtocol is prepared's WT-Protocol response header value, "" if
// it chose none. webtransport-go's Upgrade only answers a protocol from
// its server's one list, so the handler sets the header itself.
func chosenProtocol(prepared PreparedSession) string {
	pc, ok := prepared.(ProtocolChooser)
	if !ok || pc.ApplicationProtocol() == "" {
		return ""
	}
	v, err := httpsfv.Marshal(httpsfv.NewItem(pc.ApplicationProtocol()))
	if err != nil {
		return ""
	}
	return v
}

// prepare runs the session module's preparation, if it has one.
func (h *Handler) prepare(r *http.Request) (PreparedSession, error) {
	if p, ok := h.session.(SessionPreparer); ok {
		return p.PrepareSession(r)
	}
	return unprepared{h.session}, nil
}

// unprepared serves a session module that needs no preparation.
type unprepared struct{ SessionHandler }

func (unprepared) Abort() {}
