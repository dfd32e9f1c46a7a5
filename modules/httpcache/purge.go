package httpcache

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(PurgeAPI{})
}

// PurgeAPI is the admin endpoint POST /lastmile/cache/purge. Each request
// names a store and carries that store's purge token as a bearer token.
type PurgeAPI struct{}

// CaddyModule returns the Caddy module information.
func (PurgeAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.edge_cache_purge",
		New: func() caddy.Module { return new(PurgeAPI) },
	}
}

// Routes returns the purge route.
func (PurgeAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: "/lastmile/cache/purge", Handler: caddy.AdminHandlerFunc(servePurge)}}
}

// PurgeRequest is the body of a purge: any mix of URLs (every variant of
// each), URL prefixes, tags (Surrogate-Key / Cache-Tag), or everything.
// Soft purges mark entries stale, so they are revalidated (and may still
// be served stale within stale-while-revalidate or stale-if-error); hard
// purges delete them.
type PurgeRequest struct {
	Cache    string   `json:"cache,omitempty"` // store name, default "default"
	URLs     []string `json:"urls,omitempty"`
	Prefixes []string `json:"prefixes,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	All      bool     `json:"all,omitempty"`
	Soft     bool     `json:"soft,omitempty"`

	// With a fleet app (fanout.go): ID names the purge in the fleet's log,
	// so a retried request is applied once (default: a random id);
	// WaitFor is how many nodes must acknowledge before the answer, within
	// Timeout (default the fleet's).
	ID      string         `json:"id,omitempty"`
	WaitFor int            `json:"wait_for,omitempty"`
	Timeout caddy.Duration `json:"timeout,omitempty"`
}

// PurgeResult says how many entries were purged.
type PurgeResult struct {
	Purged int `json:"purged"`
}

// maxPurgeBody bounds a purge request.
const maxPurgeBody = 1 << 20

func servePurge(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed; POST a purge request", r.Method)}
	}
	var req PurgeRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxPurgeBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("decoding purge request: %w", err)}
	}
	if req.Cache == "" {
		req.Cache = "default"
	}
	store, ok := lookupStore(req.Cache)
	if !ok {
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no cache named %q", req.Cache)}
	}
	if err := authorize(r, store); err != nil {
		return err
	}
	if !req.All && len(req.URLs)+len(req.Prefixes)+len(req.Tags) == 0 {
		return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("nothing to purge: give urls, prefixes, tags or all")}
	}
	if err := checkFleetFields(req); err != nil {
		return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: err}
	}
	if f := currentFanout(); f != nil {
		return publishPurge(w, r, f, req)
	}
	if req.ID != "" || req.WaitFor != 0 || req.Timeout != 0 {
		return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("id, wait_for and timeout need the fleet app, which is not configured")}
	}
	n := purge(store, req)
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(PurgeResult{Purged: n})
}

// publishPurge hands the purge to the fleet; the answer is 200 once it is
// durable (and acknowledged by WaitFor nodes), 504 if fewer acknowledged
// in time.
func publishPurge(w http.ResponseWriter, r *http.Request, f PurgeFanout, req PurgeRequest) error {
	res, err := f.Publish(r.Context(), req)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	if !res.Complete {
		w.WriteHeader(http.StatusGatewayTimeout)
	}
	return json.NewEncoder(w).Encode(res)
}

// authorize demands the store's purge token; a store without one cannot be
// purged remotely.
func authorize(r *http.Request, store *namedStore) error {
	token := *store.purgeToken.Load()
	if token == "" {
		return caddy.APIError{HTTPStatus: http.StatusForbidden, Err: fmt.Errorf("cache %q has no purge_token configured", store.name)}
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
		w := caddy.APIError{HTTPStatus: http.StatusUnauthorized, Err: fmt.Errorf("a valid bearer token is required")}
		return w
	}
	return nil
}

func purge(store *namedStore, req PurgeRequest) int {
	mode := "hard"
	if req.Soft {
		mode = "soft"
	}
	n := 0
	apply := func(kind, key string) {
		v, ok := store.Get(key)
		if !ok {
			return
		}
		if req.Soft {
			if e, ok := v.(*entry); ok {
				e.softPurged.Store(true)
			} else {
				return // vary records hold no response; their variants are marked
			}
		} else {
			store.Delete(key)
		}
		metrics.purges.WithLabelValues(kind, mode).Inc()
		n++
	}
	if req.All {
		if !req.Soft {
			entries, _ := store.Usage()
			store.Clear()
			metrics.purges.WithLabelValues("all", mode).Add(float64(entries))
			return entries
		}
		store.Keys(func(k string) bool { apply("all", k); return true })
		return n
	}
	for _, tag := range req.Tags {
		for _, k := range store.KeysWithTag(tag) {
			apply("tag", k)
		}
	}
	if len(req.URLs)+len(req.Prefixes) > 0 {
		urls := make(map[string]bool, len(req.URLs))
		for _, u := range req.URLs {
			urls[normalizePurgeURL(u)] = true
		}
		var keys []struct{ kind, key string }
		store.Keys(func(k string) bool {
			v, ok := store.Get(k)
			if !ok {
				return true
			}
			u := storedURL(v)
			switch {
			case urls[u]:
				keys = append(keys, struct{ kind, key string }{"url", k})
			case hasAnyPrefix(u, req.Prefixes):
				keys = append(keys, struct{ kind, key string }{"prefix", k})
			}
			return true
		})
		for _, k := range keys {
			apply(k.kind, k.key)
		}
	}
	return n
}

func storedURL(v any) string {
	switch v := v.(type) {
	case *entry:
		return v.url
	case *varyRecord:
		return v.url
	}
	return ""
}

// normalizePurgeURL lower-cases scheme and host as stored URLs are.
func normalizePurgeURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	host, path, _ := strings.Cut(rest, "/")
	return strings.ToLower(scheme) + "://" + strings.ToLower(host) + "/" + path
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, normalizePurgeURL(p)) {
			return true
		}
	}
	return false
}

// Interface guards
var _ caddy.AdminRouter = (*PurgeAPI)(nil)
