package httpcache

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestArmourAllows(t *testing.T) {
	for _, tc := range []struct {
		path, contentType string
		allowed           bool
	}{
		{"/app.css", "text/css", true},
		{"/app.css", "text/css; charset=utf-8", true},
		{"/APP.CSS", "TEXT/CSS", true},
		{"/app.css", "text/html", false},
		{"/app.css", "", false},
		{"/app.css", "text/css;;;", false},
		{"/account;x.css", "text/html; charset=utf-8", false},
		{"/account/x.css", "text/html", false},
		{"/a.js", "text/javascript", true},
		{"/a.mjs", "application/javascript", true},
		{"/a.js", "application/json", false},
		{"/f.woff2", "application/octet-stream", true},
		{"/i.png", "application/octet-stream", false},
		{"/i.png", "image/png", true},
		{"/i.svg", "text/html", false},
		{"/account", "text/html", true},
		{"/page.html", "text/html", true},
		{"/data.json", "text/html", true},
		{"/x.css/", "text/html", true},
	} {
		if got := armourAllows(staticExtension(tc.path), tc.contentType); got != tc.allowed {
			t.Errorf("%s as %q: allowed %v, want %v", tc.path, tc.contentType, got, tc.allowed)
		}
	}
}

// Heuristic freshness and micro-caching do not store a response whose
// Content-Type is not the one its path's extension names, even for a
// request without credentials; the refusal is counted. Explicit freshness
// is the origin's word and is not second-guessed; the armour can be
// turned off.
func TestArmourRefusesGuessedFreshnessForMismatchedTypes(t *testing.T) {
	lastModified := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	o := newOrigin(t)
	o.respond("/app.css", 200, "Content-Type", "text/css", "Last-Modified", lastModified)
	o.respond("/page.css", 200, "Content-Type", "text/html", "Last-Modified", lastModified)
	o.respond("/micro.js", 200, "Content-Type", "text/html")
	o.respond("/explicit.css", 200, "Content-Type", "text/html", "Cache-Control", "max-age=60")
	e := startCache(t, o, "micro_cache 10s")
	refused := e.metric(t, `lastmile_cache_deception_refused_total{guard="armour"}`)
	for path, stored := range map[string]bool{"/app.css": true, "/page.css": false, "/micro.js": false, "/explicit.css": true} {
		first := e.get(t, path)
		second := e.get(t, path)
		if stored {
			wantHit(t, second)
			continue
		}
		if !strings.Contains(first.cacheStatus(), "detail=armour") {
			t.Errorf("%s: Cache-Status %q, want detail=armour", path, first.cacheStatus())
		}
		wantMiss(t, second)
	}
	if got := e.metric(t, `lastmile_cache_deception_refused_total{guard="armour"}`) - refused; got != 4 {
		t.Errorf("armour refusals counted %v, want 4", got)
	}

	o2 := newOrigin(t)
	o2.respond("/page.css", 200, "Content-Type", "text/html", "Last-Modified", lastModified)
	e2 := startCache(t, o2, "deception_armour off")
	e2.get(t, "/page.css")
	wantHit(t, e2.get(t, "/page.css"))
}
