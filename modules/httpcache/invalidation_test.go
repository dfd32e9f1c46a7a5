package httpcache

import (
	"net/http"
	"testing"
)

// A successful unsafe request invalidates the target URI and the
// same-origin Location and Content-Location (RFC 9111 section 4.4); a
// failed one invalidates nothing.
func TestUnsafeMethodsInvalidate(t *testing.T) {
	o := newOrigin(t)
	for _, p := range []string{"/item", "/list", "/other"} {
		o.respond(p, 200, "Cache-Control", "max-age=60")
	}
	o.handle("/item/edit", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Fail") != "" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Location", "/list")
		w.Header().Set("Content-Location", "http://elsewhere.example/other")
		w.WriteHeader(http.StatusSeeOther)
	})
	o.handle("/item", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Cache-Control", "max-age=60")
		w.Write([]byte("item"))
	})
	e := startCache(t, o, "")
	for _, p := range []string{"/item", "/list", "/other"} {
		e.get(t, p)
		wantHit(t, e.get(t, p))
	}
	e.do(t, http.MethodPost, "/item/edit", "X-Fail", "1")
	wantHit(t, e.get(t, "/list"))
	e.do(t, http.MethodPost, "/item/edit")
	wantMiss(t, e.get(t, "/list"))
	wantHit(t, e.get(t, "/other")) // another origin's URL: untouched
	e.do(t, http.MethodPost, "/item")
	wantMiss(t, e.get(t, "/item"))
	wantHit(t, e.get(t, "/item"))
}
