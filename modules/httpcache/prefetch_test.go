package httpcache

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The same-origin preload links of a stored page are warmed into the
// store, each once; other origins' links are not fetched.
func TestPrefetchPreloadLinks(t *testing.T) {
	o := newOrigin(t)
	o.respond("/page", 200, "Cache-Control", "max-age=60",
		"Link", `</app.css>; rel=preload; as=style, </api/data?x=1>; rel="prefetch"`,
		"Link", `<https://cdn.elsewhere.example/lib.js>; rel=preload; as=script, </ignored.js>; rel=stylesheet`)
	o.respond("/app.css", 200, "Cache-Control", "max-age=60")
	o.respond("/api/data", 200, "Cache-Control", "max-age=60")
	o.respond("/ignored.js", 200, "Cache-Control", "max-age=60")
	e := startCache(t, o, "prefetch {\n\t\t\tconcurrency 2\n\t\t}")
	e.get(t, "/page")
	eventually(t, "the preload links to be warmed", func() bool {
		return o.count("/app.css") > 0 && o.count("/api/data") > 0
	})
	awaitIdle(t, "default") // and stored
	wantHit(t, e.get(t, "/app.css"))
	wantHit(t, e.get(t, "/api/data?x=1"))
	if o.count("/ignored.js") != 0 {
		t.Fatal("a non-preload link was fetched")
	}
	// Once while fresh: the page again warms nothing more.
	e.get(t, "/page", "Cache-Control", "no-cache")
	// A warming fetch holds a flight from before the page's fetch ends.
	awaitIdle(t, "default")
	if o.count("/app.css") != 1 || o.count("/api/data") != 1 {
		t.Fatalf("warmed again: %d %d", o.count("/app.css"), o.count("/api/data"))
	}
}

// While revalidating a page it holds, the edge sends 103 Early Hints with
// the page's preload links.
func TestEarlyHints(t *testing.T) {
	o := newOrigin(t)
	o.handle("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=1")
		w.Header().Set("Link", "</app.css>; rel=preload; as=style")
		w.Write([]byte("page"))
	})
	o.respond("/app.css", 200, "Cache-Control", "max-age=60")
	e, clock := startCacheWithFakeClock(t, o, "prefetch {\n\t\t\tearly_hints\n\t\t}")
	e.get(t, "/page")
	clock.advance(2 * time.Second)
	// A raw request shows the interim response.
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /page HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", strings.TrimPrefix(e.base, "http://"))
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(conn)
	status, _ := br.ReadString('\n')
	if !strings.HasPrefix(status, "HTTP/1.1 103") {
		t.Fatalf("first status line %q, want 103 Early Hints", status)
	}
	hint, _ := br.ReadString('\n')
	if !strings.Contains(hint, "</app.css>; rel=preload") {
		t.Fatalf("103 carries %q", hint)
	}
}
