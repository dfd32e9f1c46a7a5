// Package cdnloop is the hop marker of lastmile's cache tiers: a handler
// that refuses a request which already passed this node and marks every
// other one as having passed it, in the CDN-Loop request field (RFC 8586),
// so tiers of caches that forward to each other can never loop.
package cdnloop

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler is the cdn_loop handler.
//
// A request whose CDN-Loop already lists this node is refused with 508
// Loop Detected, before the cache: in a tree of tiers a request meets a
// node twice only through a misconfiguration (a shield whose parents
// include one of its own children), and refusing costs nothing. Sending
// it on to the origin instead would give any client that forges the
// marker a way around every cache, straight to the origin; and a looped
// request that reached the cache again would wait on the very fetch it
// is part of. Operators who prefer to answer such requests from the
// origin route the error: `handle_errors 508 { reverse_proxy <origin> }`.
type Handler struct {
	// CDNID is the cdn-id this fleet writes in CDN-Loop: a pseudonym or
	// host[:port] (RFC 8586 section 2). Default "lastmile".
	CDNID string `json:"cdn_id,omitempty"`

	// Node names this node among the fleet's; required. It goes in the
	// member's node parameter: CDN-Loop: lastmile; node=edge-fra-1.
	Node string `json:"node,omitempty"`

	member string
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.cdn_loop",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision sets the default cdn-id and builds the member this node adds.
func (h *Handler) Provision(caddy.Context) error {
	if h.CDNID == "" {
		h.CDNID = "lastmile"
	}
	h.member = h.CDNID + "; node=" + h.Node
	return nil
}

// Validate checks that the member this node writes parses back as itself.
func (h *Handler) Validate() error {
	if !validCDNID(h.CDNID) {
		return fmt.Errorf("cdn_loop: cdn_id %q: want a token or host[:port]", h.CDNID)
	}
	if h.Node == "" {
		return fmt.Errorf("cdn_loop: node is required (this node's name in the fleet)")
	}
	if !isToken(h.Node) {
		return fmt.Errorf("cdn_loop: node %q: want a token (letters, digits, -._~ and the like)", h.Node)
	}
	return nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if listsNode(r.Header.Values("Cdn-Loop"), h.CDNID, h.Node) {
		return caddyhttp.Error(http.StatusLoopDetected,
			fmt.Errorf("cdn_loop: the request already passed %s node %s", h.CDNID, h.Node))
	}
	// A line of its own: members a client or another CDN wrote, however
	// malformed, cannot run into ours.
	r.Header.Add("Cdn-Loop", h.member)
	return next.ServeHTTP(w, r)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
