package quicedge

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/lastmile-edge/lastmile/internal/frontdoor"
)

func init() {
	caddy.RegisterModule(AltSvc{})
}

// AltSvc advertises HTTP/3 with an Alt-Svc header on responses sent over
// TCP, naming the UDP port that the quic app serves for the port the
// request came in on. HTTP/3 responses never carry it: the client is
// already there.
type AltSvc struct {
	// MaxAge is how long clients may remember the advertisement (ma).
	// Default 24h: long enough to start most visits on HTTP/3, short
	// enough that clients stop trying soon after UDP is turned off.
	MaxAge caddy.Duration `json:"max_age,omitempty"`

	maSuffix string
}

// CaddyModule returns the Caddy module information.
func (AltSvc) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.alt_svc",
		New: func() caddy.Module { return new(AltSvc) },
	}
}

// Provision sets the default max age.
func (h *AltSvc) Provision(caddy.Context) error {
	if h.MaxAge == 0 {
		h.MaxAge = caddy.Duration(24 * time.Hour)
	}
	h.maSuffix = `"; ma=` + strconv.FormatInt(int64(time.Duration(h.MaxAge)/time.Second), 10)
	return nil
}

// Validate rejects a negative max age.
func (h *AltSvc) Validate() error {
	if h.MaxAge < 0 {
		return errors.New("alt_svc: max_age must not be negative")
	}
	return nil
}

func (h *AltSvc) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	h.AddFields(r, w.Header())
	return next.ServeHTTP(w, r)
}

// PassesThrough is true: alt_svc only adds a field, so a cache hit may be
// answered past it (internal/frontdoor).
func (h *AltSvc) PassesThrough(*http.Request) bool { return true }

// AddFields adds the Alt-Svc advertisement to the response to r.
func (h *AltSvc) AddFields(r *http.Request, hdr http.Header) {
	if r.ProtoMajor < 3 && r.TLS != nil {
		if port := localPort(r); port != "" && altSvcPort(port) {
			hdr["Alt-Svc"] = append(hdr["Alt-Svc"], `h3=":`+port+h.maSuffix)
		}
	}
}

func localPort(r *http.Request) string {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return ""
	}
	_, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return ""
	}
	return port
}

// Interface guards
var (
	_ caddy.Provisioner           = (*AltSvc)(nil)
	_ caddy.Validator             = (*AltSvc)(nil)
	_ caddyhttp.MiddlewareHandler = (*AltSvc)(nil)
	_ frontdoor.FieldAdder        = (*AltSvc)(nil)
)
