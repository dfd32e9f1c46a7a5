package rum

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

type edge struct{ base, admin string }

// startEdge runs `site` (Caddyfile directives) in front of origin.
func startEdge(t *testing.T, site string, origin http.Handler) *edge {
	t.Helper()
	o := httptest.NewServer(origin)
	t.Cleanup(o.Close)
	port, admin := testcaddy.FreePort(t), testcaddy.FreePort(t)
	testcaddy.Run(t, fmt.Sprintf("{\n\tadmin 127.0.0.1:%s\n\tauto_https off\n\tpersist_config off\n}\nhttp://127.0.0.1:%s {\n%s\n\treverse_proxy %s\n}\n",
		admin, port, site, strings.TrimPrefix(o.URL, "http://")))
	return &edge{base: "http://127.0.0.1:" + port, admin: "http://127.0.0.1:" + admin}
}

func (e *edge) post(t *testing.T, body string, hdr ...string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.base+"/lastmile/rum", strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (e *edge) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(e.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func metricValue(metrics, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(metrics)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

const chromeMobileUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36"

func TestCollectorTurnsBeaconsIntoMetrics(t *testing.T) {
	e := startEdge(t, "\trum {\n\t\tregion_header X-Geo\n\t\tregions eu us\n\t}", http.NotFoundHandler())
	series := `lastmile_rum_page_views_total{browser="chrome",cache="hit",conn="new",device="mobile",nav="navigate",protocol="h3",region="eu"}`
	before := metricValue(e.metrics(t), series)
	if code := e.post(t, goodBeacon, "User-Agent", chromeMobileUA, "X-Geo", "eu"); code != http.StatusNoContent {
		t.Fatalf("status %d", code)
	}
	m := e.metrics(t)
	if got := metricValue(m, series) - before; got != 1 {
		t.Fatalf("%s grew by %v\n%s", series, got, m)
	}
	if !strings.Contains(m, `lastmile_rum_ttfb_seconds_bucket{cache="hit",conn="new",device="mobile",protocol="h3",region="eu",le="0.0`) {
		t.Fatal("no TTFB histogram")
	}
	if metricValue(m, `lastmile_rum_edge_gap_seconds_count{cache="hit",conn="new",device="mobile",protocol="h3",region="eu"}`) < 1 {
		t.Fatal("no edge gap")
	}
}

func TestCollectorRefusesBadBeacons(t *testing.T) {
	e := startEdge(t, "\trum {\n\t\torigins https://shop.example\n\t\trate_limit 1\n\t}", http.NotFoundHandler())
	for _, tc := range []struct {
		body string
		hdr  []string
		want int
	}{
		{strings.Repeat("x", 10000), nil, http.StatusRequestEntityTooLarge},
		{"{not json", nil, http.StatusBadRequest},
		{strings.Replace(goodBeacon, `"v":1`, `"v":9`, 1), nil, http.StatusBadRequest},
		{goodBeacon, []string{"Origin", "https://evil.example"}, http.StatusForbidden},
	} {
		if code := e.post(t, tc.body, tc.hdr...); code != tc.want {
			t.Errorf("%.30q: %d, want %d", tc.body, code, tc.want)
		}
	}
	// CORS preflight from an allowed page origin.
	req, _ := http.NewRequest(http.MethodOptions, e.base+"/lastmile/rum", nil)
	req.Header.Set("Origin", "https://shop.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://shop.example" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// Rate limit: 1/s with a burst of 4; the bad ones above used tokens.
	limited := false
	for range 10 {
		if e.post(t, goodBeacon, "Origin", "https://shop.example") == http.StatusTooManyRequests {
			limited = true
		}
	}
	if !limited {
		t.Fatal("no 429 from one client's flood")
	}
	m := e.metrics(t)
	for _, reason := range []string{"too_large", "malformed", "version", "origin", "rate_limited"} {
		if metricValue(m, `lastmile_rum_rejected_total{reason="`+reason+`"}`) < 1 {
			t.Errorf("no rejection counted for %s", reason)
		}
	}
}

// Hostile beacons and clients cannot grow the series: every label comes
// from a closed set.
func TestHostileBeaconsKeepSeriesBounded(t *testing.T) {
	e := startEdge(t, "\trum {\n\t\trate_limit 1000000\n\t\tregion_header X-Geo\n\t\tregions eu\n\t}", http.NotFoundHandler())
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return strconv.FormatUint(rng.Uint64(), 36) }
	for range 600 {
		b := strings.NewReplacer(`"p":"h3"`, `"p":"`+word()+`"`, `"nt":"navigate"`, `"nt":"`+word()+`"`, `["hit"`, `["`+word()+`"`, `"cr":0`, `"cr":`+strconv.Itoa(rng.IntN(2))).Replace(goodBeacon)
		if code := e.post(t, b, "User-Agent", word()+" Chrome/"+word(), "X-Geo", word(), "Sec-Ch-Ua-Mobile", "?"+word()); code != http.StatusNoContent {
			t.Fatalf("status %d", code)
		}
	}
	series := 0
	for _, line := range strings.Split(e.metrics(t), "\n") {
		// Other tests' beacons count into the same process-wide series.
		if strings.HasPrefix(line, "lastmile_rum_page_views_total{") && strings.Contains(line, `protocol="other"`) {
			series++
		}
	}
	// protocol other, cache other, 2 conn values, nav other, browser chrome, device desktop, region other.
	if series > 2 {
		t.Fatalf("600 hostile beacons made %d page-view series", series)
	}
}

func TestSnippetServedImmutable(t *testing.T) {
	e := startEdge(t, "\trum", http.NotFoundHandler())
	resp, err := http.Get(e.base + "/lastmile/rum." + snippetVersion + ".js")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, snippet) || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("%d %q, %d bytes", resp.StatusCode, resp.Header.Get("Cache-Control"), len(body))
	}
}

// The tag goes before </head> even when "</head>" is split across writes;
// the origin is asked for identity and encode compresses the result;
// non-HTML and already compressed bodies pass untouched.
func TestInjection(t *testing.T) {
	var sawAE string
	origin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAE = r.Header.Get("Accept-Encoding")
		switch r.URL.Path {
		case "/page":
			parts := []string{"<html><head><title>t</title></he", "AD><body>" + strings.Repeat("hello ", 200) + "</body></html>"}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(parts[0])+len(parts[1]))) // the edge must drop it
			for _, part := range parts {
				w.Write([]byte(part))
				w.(http.Flusher).Flush()
				time.Sleep(10 * time.Millisecond)
			}
		case "/big":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<html><head></head><body>" + strings.Repeat("hello ", 200) + "</body></html>"))
		case "/br":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte("not really brotli </head>"))
		case "/data":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"a":"</head>"}`))
		case "/gz":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			gz.Write([]byte("<head></head>"))
			gz.Close()
		}
	})
	e := startEdge(t, "\tencode gzip\n\trum {\n\t\tinject\n\t\tsample_rate 0.5\n\t}", origin)
	get := func(path, ae string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
		req.Header.Set("Accept", "text/html,*/*")
		if ae != "" {
			req.Header.Set("Accept-Encoding", ae)
		}
		resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			r = gz
		}
		b, _ := io.ReadAll(r)
		return resp, string(b)
	}
	tag := `<script src="/lastmile/rum.` + snippetVersion + `.js" async data-endpoint="/lastmile/rum" data-sample="0.5"></script>`
	resp, body := get("/page", "gzip, br")
	if want := "<html><head><title>t</title>" + tag + "</heAD><body>" + strings.Repeat("hello ", 200) + "</body></html>"; body != want {
		t.Fatalf("injected page:\n%s\nwant\n%s", body, want)
	}
	if strings.Contains(sawAE, "br") {
		t.Fatalf("origin saw the client's Accept-Encoding %q", sawAE)
	}
	// Unflushed, the page is compressed by encode after the tag went in
	// (the flushed one above is not: encode does not compress a response
	// flushed before its minimum length).
	resp, body = get("/big", "gzip, br")
	if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, tag+"</head>") {
		t.Fatalf("big page: encoding %q, body %.200q", resp.Header.Get("Content-Encoding"), body)
	}
	if _, body := get("/data", ""); body != `{"a":"</head>"}` {
		t.Fatalf("JSON changed: %q", body)
	}
	// A gzip page is decoded by the proxy's transport (it asked for gzip
	// itself) and gets the tag; a body still encoded passes untouched.
	if _, body := get("/gz", "gzip"); body != "<head>"+tag+"</head>" {
		t.Fatalf("gzip page: %q", body)
	}
	req, _ := http.NewRequest(http.MethodGet, e.base+"/br", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(raw) != "not really brotli </head>" || resp.Header.Get("Content-Encoding") != "br" {
		t.Fatalf("encoded page changed: %q", raw)
	}
}

func TestRawSink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beacons.jsonl")
	e := startEdge(t, "\trum {\n\t\traw_sink "+path+" 1 2\n\t}", http.NotFoundHandler())
	for range 3 {
		if code := e.post(t, goodBeacon, "User-Agent", chromeMobileUA); code != http.StatusNoContent {
			t.Fatal(code)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if n := strings.Count(string(data), "\n"); n == 3 {
			if !strings.Contains(string(data), `"browser":"chrome"`) || strings.Contains(string(data), "127.0.0.1") {
				t.Fatalf("sink lines: %s", data)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sink has %q", data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The per-client limiter keeps a bounded number of clients.
func TestLimiterIsBounded(t *testing.T) {
	l := newClientLimiter(1, 1)
	for i := range 150_000 {
		l.allow("198.18." + strconv.Itoa(i>>8&255) + "." + strconv.Itoa(i&255) + ":" + strconv.Itoa(i))
	}
	l.buckets.CleanUp()
	if n := l.buckets.EstimatedSize(); n > 100_000 {
		t.Fatalf("%d limiters kept", n)
	}
}
