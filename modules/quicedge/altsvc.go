package quicedge

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
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
	// fields is the field's value by local port (int -> *altSvcField),
	// made on the first response over the port: a hit answered past
	// alt_svc then allocates nothing for it. The ports are those of the
	// quic app's endpoints, so it stays small; a reload provisions anew.
	fields *sync.Map
}

// altSvcField is the Alt-Svc value for one port.
type altSvcField struct {
	port  string   // as advertisedPorts names it
	value []string // shared by every response: never modified
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
	h.fields = new(sync.Map)
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
	if f := h.field(r); f != nil {
		// A copy: handlers after this one (header's replace) may modify
		// the response's values in place.
		hdr := w.Header()
		hdr["Alt-Svc"] = append(hdr["Alt-Svc"], f.value[0])
	}
	return next.ServeHTTP(w, r)
}

// PassesThrough is true: alt_svc only adds a field, so a cache hit may be
// answered past it (internal/frontdoor).
func (h *AltSvc) PassesThrough(*http.Request) bool { return true }

// AddFields adds the Alt-Svc advertisement to the response to r. A front
// answers a hit with no handler after it, so the value is the shared one.
func (h *AltSvc) AddFields(r *http.Request, hdr http.Header) {
	if f := h.field(r); f != nil {
		if prev := hdr["Alt-Svc"]; len(prev) > 0 {
			hdr["Alt-Svc"] = append(prev, f.value[0])
		} else {
			hdr["Alt-Svc"] = f.value
		}
	}
}

// field is the advertisement for a response to r, nil if it gets none:
// it came over HTTP/3 or plain TCP, or no quic endpoint serves its port.
// The endpoint is looked up on every response, as one may close while
// the config lives.
func (h *AltSvc) field(r *http.Request) *altSvcField {
	if r.ProtoMajor >= 3 || r.TLS == nil {
		return nil
	}
	port := localPort(r)
	if port == 0 {
		return nil
	}
	if f, ok := h.fields.Load(port); ok {
		if f := f.(*altSvcField); altSvcPort(f.port) {
			return f
		}
		return nil
	}
	p := strconv.Itoa(port)
	if !altSvcPort(p) {
		return nil
	}
	f := &altSvcField{port: p, value: []string{`h3=":` + p + h.maSuffix}}
	h.fields.Store(port, f)
	return f
}

// localPort is the port r came in on, 0 if unknown. Addresses that know
// their port (*net.TCPAddr, client_tcp's) give it without a string.
func localPort(r *http.Request) int {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return 0
	}
	if a, ok := addr.(interface{ AddrPort() netip.AddrPort }); ok {
		if port := a.AddrPort().Port(); port != 0 {
			return int(port)
		}
	}
	_, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return 0
	}
	return int(n)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*AltSvc)(nil)
	_ caddy.Validator             = (*AltSvc)(nil)
	_ caddyhttp.MiddlewareHandler = (*AltSvc)(nil)
	_ frontdoor.FieldAdder        = (*AltSvc)(nil)
)
