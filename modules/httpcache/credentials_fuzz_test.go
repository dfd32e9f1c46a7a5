package httpcache

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// The store decision, fuzzed over request and response headers: a
// response to a request with credentials is never served to a request
// without them, unless the response gives explicit permission to share
// it. Each input runs the handler itself, in process: a credentialed
// request, then an anonymous one and another user's for the same URL.
func FuzzCredentialedResponseNeverShared(f *testing.F) {
	lm := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	for _, seed := range []struct {
		req, resp string
		status    uint8
		cred      uint8
		micro     bool
	}{
		{"", "Last-Modified: " + lm, 0, 0, false},
		{"", "Last-Modified: " + lm + "\nContent-Type: text/css", 0, 1, false},
		{"Cookie: lang=de", "Cache-Control: max-age=60", 0, 2, false},
		{"", "Cache-Control: public, max-age=60", 0, 0, false},
		{"", "Cache-Control: max-age=60\nVary: Cookie", 0, 0, true},
		{"", "CDN-Cache-Control: no-cache\nCache-Control: s-maxage=60", 0, 1, false},
		{"", "Cache-Control: must-revalidate, max-age=60", 5, 1, false},
		{"", "ETag: \"x\"\nCache-Control: no-cache", 0, 0, false},
		{"", "", 0, 0, true},
		{"Accept: */*", "Surrogate-Control: max-age=30\nCache-Control: private", 0, 2, false},
	} {
		f.Add(seed.req, seed.resp, seed.status, seed.cred, seed.micro)
	}
	handlers := map[bool]*Handler{false: fuzzHandler(f, "fuzz-default", 0), true: fuzzHandler(f, "fuzz-micro", 10*time.Second)}
	var n atomic.Int64
	statuses := []int{200, 203, 204, 206, 300, 301, 302, 304, 307, 308, 404, 410, 451, 500, 503}
	credentials := [][2]string{{"Cookie", "session=secret"}, {"Authorization", "Bearer secret"}, {"X-Session", "secret"}, {"Cookie", "lang=de; sid=secret"}}
	f.Fuzz(func(t *testing.T, reqFields, respFields string, statusPick, credPick uint8, micro bool) {
		h := handlers[micro]
		status := statuses[int(statusPick)%len(statuses)]
		cred := credentials[int(credPick)%len(credentials)]
		respHeader := fuzzHeader(respFields)
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			for k, v := range respHeader {
				w.Header()[k] = v
			}
			w.WriteHeader(status)
			who := "public"
			if strings.Contains(strings.Join(append(r.Header.Values("Cookie"), r.Header.Get("Authorization"), r.Header.Get("X-Session")), " "), "secret") {
				who = "secret"
			}
			_, _ = w.Write([]byte(who))
			return nil
		})
		path := fmt.Sprintf("/f/%d", n.Add(1))
		victim := httptest.NewRequest(http.MethodGet, path, nil)
		for k, v := range fuzzHeader(reqFields) {
			if k != "Range" {
				victim.Header[k] = v
			}
		}
		victim.Header.Add(cred[0], cred[1])
		_ = h.ServeHTTP(httptest.NewRecorder(), victim, next)

		anonymous := httptest.NewRequest(http.MethodGet, path, nil)
		otherUser := httptest.NewRequest(http.MethodGet, path, nil)
		otherUser.Header.Set("Cookie", "session=other")
		for _, r := range []*http.Request{anonymous, otherUser} {
			w := httptest.NewRecorder()
			_ = h.ServeHTTP(w, r, next)
			if strings.Contains(w.Body.String(), "secret") && !permitsSharing(respHeader, cred[0] == "Authorization") {
				t.Fatalf("a response to a request with %s: %s was served to another request (%v); response fields %q", cred[0], cred[1], r.Header, respHeader)
			}
		}
	})
}

// permitsSharing is the test's own, textual reading of explicit
// permission: any mention of public or s-maxage, freshness in a field for
// the edge, must-revalidate for Authorization.
func permitsSharing(h http.Header, authorization bool) bool {
	cc := strings.ToLower(strings.Join(h.Values("Cache-Control"), ","))
	edge := strings.ToLower(strings.Join(append(h.Values("Cdn-Cache-Control"), h.Values("Surrogate-Control")...), ","))
	return strings.Contains(cc, "public") || strings.Contains(cc, "s-maxage") ||
		strings.Contains(edge, "max-age") || strings.Contains(edge, "public") ||
		(authorization && strings.Contains(cc+edge, "must-revalidate"))
}

// fuzzHeader reads "Name: value" lines, leaving out what no HTTP/1.1,
// HTTP/2 or HTTP/3 server would pass on.
func fuzzHeader(s string) http.Header {
	h := http.Header{}
	for i, line := range strings.Split(s, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || i >= 32 || !validToken(name) || strings.ContainsAny(value, "\r\x00") {
			continue
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h
}

func fuzzHandler(f *testing.F, name string, micro time.Duration) *Handler {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	f.Cleanup(cancel)
	h := &Handler{
		Name: name, MaxBytes: 8 << 20, MaxObjectBytes: 1 << 20, MicroCache: caddy.Duration(micro),
		CredentialHeaders: []string{"X-Session"}, Key: KeyConfig{Cookies: []string{"lang"}},
	}
	if err := h.Provision(ctx); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = h.Cleanup() })
	return h
}
