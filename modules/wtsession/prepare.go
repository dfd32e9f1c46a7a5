package wtsession

import "net/http"

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
