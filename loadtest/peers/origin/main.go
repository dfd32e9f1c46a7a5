// Command origin is the peer benchmark's origin: one cacheable 2 KB JSON
// body, and a count of the requests that reached it at /count.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:19080", "listen address")
	flag.Parse()
	body := []byte(`{"items":"` + strings.Repeat("x", 2048-12) + `"}`)
	var n atomic.Int64
	http.HandleFunc("/count", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, n.Load()) })
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = w.Write(body)
	})
	if err := http.ListenAndServe(*addr, nil); err != nil {
		panic(err)
	}
}
