// Package demoorigin is the small dynamic site `lastmile demo` puts behind
// the edge: HTML pages with subresources, a JSON API, a header echo and
// sized downloads, each with the cache headers a real site would send.
package demoorigin

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Handler is the demo origin. Requests counts what reached it, so a caller
// can tell edge-served responses from origin-served ones.
type Handler struct {
	Requests atomic.Int64
	mux      *http.ServeMux
}

// New returns the demo origin's handler.
func New() *Handler {
	h := &Handler{mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /{$}", h.page)
	h.mux.HandleFunc("GET /page/{n}", h.page)
	h.mux.HandleFunc("GET /static/app.css", h.css)
	h.mux.HandleFunc("GET /static/app.js", h.js)
	h.mux.HandleFunc("GET /img/{name}", h.image)
	h.mux.HandleFunc("GET /photo/{name}", h.photo)
	h.mux.HandleFunc("GET /api/products", h.products)
	h.mux.HandleFunc("GET /api/me", h.me)
	h.mux.HandleFunc("/echo", h.echo)
	h.mux.HandleFunc("GET /download", h.download)
	h.mux.HandleFunc("GET /webtransport", h.webtransportPage)
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.Requests.Add(1)
	h.mux.ServeHTTP(w, r)
}

const maxDownload = 256 << 20

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>lastmile demo: page {{.N}}</title>
<link rel="stylesheet" href="/static/app.css">
<link rel="preload" href="/api/products?page={{.N}}" as="fetch" crossorigin>
</head><body>
<h1>lastmile demo, page {{.N}}</h1>
<p>Rendered by the origin at <time id="rendered">{{.Now}}</time>.</p>
<p>Protocol the origin saw from the edge: {{.Proto}}</p>
<ul id="products"></ul>
<div class="gallery">{{range .Images}}<img src="/img/{{.}}" width="160" height="120" alt="product {{.}}">{{end}}</div>
<p><a href="/page/{{.Next}}">next page</a> · <a href="/webtransport">WebTransport echo</a> · <a href="/echo">request headers</a></p>
<script src="/static/app.js" defer></script>
</body></html>
`))

func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	n := 1
	if s := r.PathValue("n"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 1000 {
			http.NotFound(w, r)
			return
		}
		n = v
	}
	images := make([]string, 8)
	for i := range images {
		images[i] = fmt.Sprintf("p%d-%d.svg", n, i)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// A dynamic page that may be shared for a second at the edge and
	// served stale while the edge refreshes it; browsers revalidate.
	w.Header().Set("Cache-Control", "public, max-age=0, s-maxage=1, stale-while-revalidate=10, stale-if-error=60")
	w.Header().Set("Surrogate-Key", "pages page-"+strconv.Itoa(n))
	// The edge warms these before the browser asks for them.
	w.Header().Set("Link", "</static/app.css>; rel=preload; as=style, </api/products?page="+strconv.Itoa(n)+">; rel=preload; as=fetch; crossorigin")
	_ = pageTmpl.Execute(w, map[string]any{
		"N": n, "Next": n%1000 + 1, "Now": time.Now().UTC().Format(time.RFC3339Nano),
		"Proto": r.Proto, "Images": images,
	})
}

const appCSS = `body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}
.gallery{display:grid;grid-template-columns:repeat(4,160px);gap:8px}
img{background:#eee}`

const appJS = `document.addEventListener('DOMContentLoaded', async () => {
  const page = (location.pathname.match(/\/page\/(\d+)/) || [0, 1])[1];
  const res = await fetch('/api/products?page=' + page);
  const data = await res.json();
  const ul = document.getElementById('products');
  for (const p of data.products) {
    const li = document.createElement('li');
    li.textContent = p.name + ': ' + p.price;
    ul.appendChild(li);
  }
  document.body.dataset.loaded = 'true';
});`

func (h *Handler) css(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = io.WriteString(w, appCSS)
}

func (h *Handler) js(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = io.WriteString(w, appJS)
}

// image returns an SVG of roughly product-photo weight (a few KB).
func (h *Handler) image(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !strings.HasSuffix(name, ".svg") || len(name) > 64 {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120">`)
	seed := 0
	for _, c := range name {
		seed = seed*31 + int(c)
	}
	for range 60 {
		seed = seed*1103515245 + 12345
		x, y, rad := (seed>>8)%160, (seed>>12)%120, 4+(seed>>4)%12
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="%d" fill="#%06x" opacity="0.6"/>`, abs(x), abs(y), abs(rad), abs(seed)%0xffffff)
	}
	b.WriteString(`</svg>`)
	_, _ = io.WriteString(w, b.String())
}

// photo returns a photo-sized body (default 40 KB, ?kb= up to 1024) of
// incompressible bytes, as a JPEG would be.
func (h *Handler) photo(w http.ResponseWriter, r *http.Request) {
	kb, err := strconv.Atoi(r.URL.Query().Get("kb"))
	if err != nil || kb < 1 || kb > 1024 {
		kb = 40
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Content-Length", strconv.Itoa(kb<<10))
	x := uint32(len(r.URL.Path))*2654435761 + 1
	buf := make([]byte, kb<<10)
	for i := range buf {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		buf[i] = byte(x)
	}
	_, _ = w.Write(buf)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

type product struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Price string `json:"price"`
}

func (h *Handler) products(w http.ResponseWriter, r *http.Request) {
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 || page > 1000 {
		page = 1
	}
	products := make([]product, 20)
	for i := range products {
		id := (page-1)*20 + i + 1
		products[i] = product{ID: id, Name: fmt.Sprintf("Product %d", id), Price: fmt.Sprintf("%d.%02d EUR", 5+id%50, id%100)}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=0, s-maxage=5, stale-while-revalidate=30")
	w.Header().Set("Surrogate-Key", "products products-page-"+strconv.Itoa(page))
	_ = json.NewEncoder(w).Encode(map[string]any{"page": page, "products": products, "generated": time.Now().UTC()})
}

// me is a per-user response: it must never be shared.
func (h *Handler) me(w http.ResponseWriter, r *http.Request) {
	user := "anonymous"
	if c, err := r.Cookie("session"); err == nil {
		user = "user-" + c.Value
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "private, no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"user": user})
}

func (h *Handler) echo(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	_ = json.NewEncoder(w).Encode(map[string]any{
		"method": r.Method, "uri": r.RequestURI, "proto": r.Proto, "host": r.Host,
		"headers": r.Header, "body": string(body),
	})
}

// download streams n bytes (default 1 MiB) at up to rate bytes/s, for
// transfers that must survive a reload.
func (h *Handler) download(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n, err := strconv.Atoi(q.Get("bytes"))
	if err != nil || n < 0 || n > maxDownload {
		n = 1 << 20
	}
	rate, _ := strconv.Atoi(q.Get("rate"))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.Header().Set("Cache-Control", "no-store")
	chunk := make([]byte, 16<<10)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	rc := http.NewResponseController(w)
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		if _, err := w.Write(c); err != nil {
			return
		}
		n -= len(c)
		if rate > 0 {
			_ = rc.Flush()
			time.Sleep(time.Duration(len(c)) * time.Second / time.Duration(rate))
		}
	}
}

const webtransportPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lastmile WebTransport echo</title></head>
<body><h1>WebTransport echo</h1><pre id="log"></pre>
<script>
const log = (m) => { document.getElementById('log').textContent += m + '\n'; };
(async () => {
  if (!('WebTransport' in window)) { log('this browser has no WebTransport'); return; }
  const wt = new WebTransport('/wt/echo');
  await wt.ready;
  log('session open');
  const s = await wt.createBidirectionalStream();
  const w = s.writable.getWriter();
  await w.write(new TextEncoder().encode('hello over a stream'));
  await w.close();
  const r = await new Response(s.readable).text();
  log('stream echo: ' + r);
  const dw = wt.datagrams.writable.getWriter();
  const dr = wt.datagrams.readable.getReader();
  await dw.write(new TextEncoder().encode('hello as a datagram'));
  const { value } = await dr.read();
  log('datagram echo: ' + new TextDecoder().decode(value));
  wt.close();
})().catch((e) => log('error: ' + e));
</script></body></html>
`

func (h *Handler) webtransportPage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=60")
	_, _ = io.WriteString(w, webtransportPage)
}
