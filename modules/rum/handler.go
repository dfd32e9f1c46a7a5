package rum

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/maypok86/otter/v2"
	"go.uber.org/zap"
	"golang.org/x/time/rate"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler serves the snippet, collects beacons and, optionally, injects
// the snippet into HTML passing through.
type Handler struct {
	// Path of the collector. Default /lastmile/rum.
	Path string `json:"path,omitempty"`
	// Origins are page origins allowed to post beacons besides the
	// site's own (CORS).
	Origins []string `json:"origins,omitempty"`
	// RateLimit is beacons per second per client IP, with a burst of 4x.
	// Default 2: a page view sends one.
	RateLimit float64 `json:"rate_limit,omitempty"`
	// RegionHeader names a request header (set in front of the edge, for
	// example by a geo lookup) whose value labels metrics; Regions lists
	// the values kept as labels (others are "other").
	RegionHeader string   `json:"region_header,omitempty"`
	Regions      []string `json:"regions,omitempty"`
	// Inject adds the snippet's <script> tag to HTML responses.
	Inject bool `json:"inject,omitempty"`
	// SampleRate and RespectPrivacy configure the injected snippet.
	SampleRate     float64 `json:"sample_rate,omitempty"`
	RespectPrivacy bool    `json:"respect_privacy,omitempty"`
	// RawSink appends accepted beacons as JSON lines to a rotating file.
	RawSink *RawSink `json:"raw_sink,omitempty"`

	snippetPath string
	limiter     *clientLimiter
	sink        *sink
	logger      *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.rum",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision sets defaults and opens the raw sink.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if h.Path == "" {
		h.Path = "/lastmile/rum"
	}
	if h.RateLimit == 0 {
		h.RateLimit = 2
	}
	if h.SampleRate == 0 {
		h.SampleRate = 1
	}
	h.snippetPath = h.Path + "." + snippetVersion + ".js"
	h.limiter = newClientLimiter(rate.Limit(h.RateLimit), int(max(1, 4*h.RateLimit)))
	if h.RawSink != nil {
		s, err := h.RawSink.open()
		if err != nil {
			return err
		}
		h.sink = s
	}
	return registerMetrics(ctx.GetMetricsRegistry())
}

// Validate checks the settings once Provision has set the defaults, so
// JSON configs get the checks Caddyfiles get.
func (h *Handler) Validate() error {
	if !strings.HasPrefix(h.Path, "/") {
		return fmt.Errorf("rum: path %q must start with /", h.Path)
	}
	if err := validateRateLimit(h.RateLimit); err != nil {
		return err
	}
	if h.SampleRate <= 0 || h.SampleRate > 1 {
		return fmt.Errorf("rum: sample_rate %v: want more than 0, up to 1", h.SampleRate)
	}
	for _, o := range h.Origins {
		if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("rum: origin %q: want scheme://host[:port]", o)
		}
	}
	if h.RawSink != nil {
		return h.RawSink.validate()
	}
	return nil
}

func validateRateLimit(perSecond float64) error {
	if !(perSecond > 0) || math.IsInf(perSecond, 0) {
		return fmt.Errorf("rum: rate_limit %v: want a positive number of beacons per second", perSecond)
	}
	return nil
}

// Cleanup releases the raw sink.
func (h *Handler) Cleanup() error {
	if h.sink != nil {
		return h.RawSink.release()
	}
	return nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	switch r.URL.Path {
	case h.Path:
		return h.collect(w, r)
	case h.snippetPath:
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(snippet))
		return nil
	}
	if h.Inject && wantsHTML(r) {
		return h.inject(w, r, next)
	}
	return next.ServeHTTP(w, r)
}

// collect takes one beacon over HTTP. It answers at once: decoding and
// counting are cheap, the raw sink never blocks.
func (h *Handler) collect(w http.ResponseWriter, r *http.Request) error {
	origin := r.Header.Get("Origin")
	allowed := origin == "" || h.originAllowed(origin, r)
	if allowed && origin != "" {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Vary", "Origin")
	}
	switch {
	case r.Method == http.MethodOptions && allowed:
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.Header().Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return nil
	case r.Method != http.MethodPost:
		return h.refuse(w, r, "method", http.StatusMethodNotAllowed)
	case !allowed:
		return h.refuse(w, r, "origin", http.StatusForbidden)
	case !h.limiter.allow(clientIP(r)):
		return h.refuse(w, r, "rate_limited", http.StatusTooManyRequests)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBeaconBytes+1))
	if err != nil {
		return h.refuse(w, r, "malformed", http.StatusBadRequest)
	}
	if reason := take(body, "http", clientOf(r, h.RegionHeader, h.Regions), h.sink); reason != "" {
		status := http.StatusBadRequest
		if reason == "too_large" {
			status = http.StatusRequestEntityTooLarge
		}
		return h.refuse(w, r, reason, status)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, reason string, status int) error {
	metrics.rejected.WithLabelValues(reason).Inc()
	// Read (a bounded amount of) what the client is still sending, so the
	// refusal reaches it instead of a reset connection.
	_, _ = io.CopyN(io.Discard, r.Body, 64<<10)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, err := io.WriteString(w, "beacon refused: "+reason+"\n")
	return err
}

func (h *Handler) originAllowed(origin string, r *http.Request) bool {
	if u, err := url.Parse(origin); err == nil && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, o := range h.Origins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// clientIP is the client's address as Caddy determined it for the
// request: the peer, or what a trusted proxy passed on.
func clientIP(r *http.Request) string {
	ip, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	return ip
}

// clientLimiter holds a token bucket per client IP. otter bounds how many
// it keeps (the least recently seen go first), so a flood of addresses
// cannot grow it.
type clientLimiter struct {
	limit   rate.Limit
	burst   int
	buckets *otter.Cache[string, *rate.Limiter]
}

func newClientLimiter(limit rate.Limit, burst int) *clientLimiter {
	return &clientLimiter{limit: limit, burst: burst, buckets: otter.Must(&otter.Options[string, *rate.Limiter]{MaximumSize: 100_000})}
}

func (l *clientLimiter) allow(ip string) bool {
	b, _ := l.buckets.ComputeIfAbsent(ip, func() (*rate.Limiter, bool) { return rate.NewLimiter(l.limit, l.burst), false })
	return b.Allow()
}

func wantsHTML(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html")
}

// scriptTag is the tag injected before </head>.
func (h *Handler) scriptTag() string {
	tag := `<script src="` + h.snippetPath + `" async data-endpoint="` + h.Path + `" data-sample="` + strconv.FormatFloat(h.SampleRate, 'f', -1, 64) + `"`
	if h.RespectPrivacy {
		tag += ` data-privacy`
	}
	return tag + `></script>`
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
