// Command gohttp is the peer benchmark's ceiling for a Go edge: Go's
// net/http alone, answering the benchmark's keys (/item, /k/0../k/N-1)
// from a map filled from the origin at start, with the fields lastmile
// sends on a fresh hit (the origin's stored fields, Age, Cache-Status,
// Server-Timing, Server, Via). It does what any Go cache's hit must do at
// least (a lookup, the header map, net/http's parsing and writing), so the
// distance from lastmile to it is what lastmile adds, and from it to nginx
// what net/http costs. HTTP/1.1 on -http, HTTP/1.1 and HTTP/2 over TLS on
// -https; no HTTP/3 (net/http has none). Its servers have the timeouts
// Caddy gives lastmile's by default (idle 5 min, read_header 1 min), which
// an edge needs against clients that hold connections open, and which
// cost net/http a timer each.
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	_ "net/http/pprof" // on -pprof only: the serving handler is its own
	"strconv"
	"sync/atomic"
	"time"
)

func main() {
	httpAddr := flag.String("http", "127.0.0.1:18107", "plain HTTP/1.1 listen address")
	httpsAddr := flag.String("https", "127.0.0.1:18207", "TLS (HTTP/1.1 and HTTP/2) listen address, empty for none")
	cert := flag.String("cert", "", "TLS certificate file")
	key := flag.String("key", "", "TLS key file")
	origin := flag.String("origin", "http://127.0.0.1:19080", "where the stored responses come from")
	keys := flag.Int("keys", 1000, "how many /k/<n> paths to store, beside /item")
	pprofAddr := flag.String("pprof", "", "listen address of /debug/pprof, empty for none")
	flag.Parse()

	s := &store{entries: make(map[string]*entry, *keys+1)}
	paths := []string{"/item"}
	for i := range *keys {
		paths = append(paths, "/k/"+strconv.Itoa(i))
	}
	for _, p := range paths {
		e, err := fetch(*origin + p)
		if err != nil {
			log.Fatal(err)
		}
		s.entries[p] = e
	}
	if *pprofAddr != "" {
		go func() { log.Fatal(http.ListenAndServe(*pprofAddr, nil)) }()
	}
	if *httpsAddr != "" {
		go func() {
			srv := newServer(*httpsAddr, s)
			srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
			log.Fatal(srv.ListenAndServeTLS(*cert, *key))
		}()
	}
	log.Fatal(newServer(*httpAddr, s).ListenAndServe())
}

// newServer is a server with Caddy's default timeouts.
func newServer(addr string, h http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: h, IdleTimeout: 5 * time.Minute, ReadHeaderTimeout: time.Minute}
}

// entry is a stored response.
type entry struct {
	header http.Header // as the origin sent it
	body   []byte
	stored time.Time
	ttl    int64 // seconds of freshness when stored (max-age)
	hit    atomic.Pointer[hitFields]
}

// hitFields are an entry's Age and Cache-Status in one second, made once
// a second as lastmile makes them.
type hitFields struct {
	sec    int64
	age    []string
	status []string
}

func fetch(url string) (*entry, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %v", url, resp.StatusCode, err)
	}
	resp.Header["Via"] = []string{"1.1 Caddy"} // what lastmile's reverse_proxy adds to the stored response
	return &entry{header: resp.Header, body: body, stored: time.Now(), ttl: 86400}, nil
}

func (e *entry) fields(now time.Time) *hitFields {
	sec := now.Unix()
	if hf := e.hit.Load(); hf != nil && hf.sec == sec {
		return hf
	}
	age := int64(now.Sub(e.stored) / time.Second)
	hf := &hitFields{sec: sec, age: []string{strconv.FormatInt(age, 10)},
		status: []string{"lastmile; hit; ttl=" + strconv.FormatInt(e.ttl-age, 10)}}
	e.hit.Store(hf)
	return hf
}

type store struct{ entries map[string]*entry }

var (
	server = []string{"Caddy"}
	// timing holds Server-Timing values of 0.0 to 9.9 ms.
	timing = func() (t [100][]string) {
		for i := range t {
			t[i] = []string{"cache;desc=hit, edge;dur=" + strconv.FormatFloat(float64(i)/10, 'f', 1, 64)}
		}
		return t
	}()
)

func (s *store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	e := s.entries[r.URL.Path]
	if e == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	hf := e.fields(start)
	h["Server"] = server
	h["Age"] = hf.age
	h["Cache-Status"] = hf.status
	h["Server-Timing"] = timing[min(time.Since(start).Microseconds()/100, 99)]
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(e.body)
	}
}
