package clienttcp

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// The head of a hit answered below net/http is encoded once per stored
// entry (modules/httpcache/fastpath_http1head.go). These tests hold it to
// the options of the config that answers: after a reload that changes
// forward_edge_fields, hit_fields or status_name, the same stored entry's
// next hit is what net/http writes under the new options, never the head
// encoded under the old ones; and two sites sharing a store with other
// options each get their own, under concurrent hits.

// edgeHits are the requests for /edge, a stored response with edge-only,
// stripped, and a nearer cache's Cache-Status and Server-Timing fields,
// that the tests compare with net/http's answers.
var edgeHits = []struct{ name, raw string }{
	{"get", "GET /edge HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"},
	{"head", "HEAD /edge HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"},
	{"not modified", "GET /edge HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \"e1\"\r\n\r\n"},
}

func TestAnsweredHeadFollowsAReload(t *testing.T) {
	var fetches atomic.Int64
	answering, through, reload := hitsEdgeWith(t, "", &fetches)
	testcaddy.Eventually(t, 10*time.Second, "/edge stored", func() bool {
		got, _, _ := exchange(t, answering, edgeHits[0].raw, false)
		return strings.Contains(got, "Cache-Status: origin-cache; fwd=miss\r\nCache-Status: lastmile; hit")
	})
	stored := fetches.Load()
	for _, c := range []struct {
		options      string
		want, reject []string // lines the GET's head has, and has not
	}{
		{"", []string{"Cache-Status: lastmile; hit; ttl=", "Server-Timing: db;dur=3\r\nServer-Timing: cache;desc=hit"},
			[]string{"Surrogate-Key", "Cdn-Cache-Control", "X-Secret:"}},
		{"forward_edge_fields\n\t\thit_fields compact", []string{"Cdn-Cache-Control: max-age=900, no-cache=\"X-Secret\"\r\n",
			"Surrogate-Key: shop item-1\r\n", "Cache-Status: lastmile; hit\r\n", "Server-Timing: db;dur=3\r\n"},
			[]string{"X-Secret:", "desc=hit", "ttl="}},
		{"forward_edge_fields\n\t\tstatus_name \"edge two\"", []string{"Surrogate-Key: shop item-1\r\n",
			"Cache-Status: \"edge two\"; hit; ttl=", "Server-Timing: cache;desc=hit"}, []string{"X-Secret:", "lastmile"}},
		{"hit_fields compact", []string{"Cache-Status: lastmile; hit\r\n"},
			[]string{"Surrogate-Key", "Cdn-Cache-Control", "X-Secret:", "desc=hit"}},
	} {
		reload("5m", c.options)
		for _, hit := range edgeHits {
			got, _, answered := exchange(t, answering, hit.raw, true)
			if answered != 1 {
				t.Fatalf("options %q, %s: %v answered below net/http, want 1", c.options, hit.name, answered)
			}
			want, _, _ := exchange(t, through, hit.raw, false)
			if normalize(got) != normalize(want) {
				t.Fatalf("options %q, %s: answered:\n%s\nnet/http:\n%s", c.options, hit.name, got, want)
			}
			if hit.name != "get" {
				continue
			}
			head, _, _ := strings.Cut(got, "\r\n\r\n")
			for _, w := range c.want {
				if !strings.Contains(head+"\r\n", w) {
					t.Errorf("options %q: the hit's head has no %q:\n%s", c.options, w, head)
				}
			}
			for _, r := range c.reject {
				if strings.Contains(head, r) {
					t.Errorf("options %q: the hit's head has %q:\n%s", c.options, r, head)
				}
			}
		}
	}
	if n := fetches.Load(); n != stored {
		t.Fatalf("the origin was asked %d times after /edge was stored: the hits were not of one entry", n-stored)
	}
}

// Two sites on one store whose edge_cache options differ answer the same
// stored entry's hits at once, each with its own head: the one that
// forwards edge-only fields with them and Server-Timing, the other
// without (go test -race: the entry's encoding is shared).
func TestAnsweredHeadsOfSitesSharingAStore(t *testing.T) {
	origin := hitsOrigin(t, nil)
	a, b := testcaddy.FreePort(t), testcaddy.FreePort(t)
	site := func(port, options string) string {
		return `http://127.0.0.1:` + port + ` {
	edge_cache {
		` + options + `
	}
	reverse_proxy ` + origin + `
}
`
	}
	testcaddy.Run(t, `{
	admin off
	servers {
		protocols h1
		listener_wrappers {
			client_tcp
		}
	}
}
`+site(a, "forward_edge_fields")+site(b, "hit_fields compact"))
	forwarding, compact := "127.0.0.1:"+a, "127.0.0.1:"+b
	testcaddy.Eventually(t, 10*time.Second, "/edge stored", func() bool {
		got, _, _ := exchange(t, forwarding, edgeHits[0].raw, false)
		return strings.Contains(got, "Cache-Status: lastmile; hit")
	})

	const conns, hits = 4, 200
	type client struct {
		c        io.Writer
		br       *bufio.Reader
		forwards bool
	}
	var clients []client
	for i := range conns {
		addr := forwarding
		if i%2 == 1 {
			addr = compact
		}
		c, br := dialAnswered(t, addr, true)
		clients = append(clients, client{c, br, addr == forwarding})
	}
	answered := countedSince(t, answeredHits)
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Go(func() {
			for range hits {
				if _, err := io.WriteString(cl.c, edgeHits[0].raw); err != nil {
					t.Error(err)
					return
				}
				resp, err := http.ReadResponse(cl.br, nil)
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(body) != "<p>edge</p>" {
					t.Errorf("body %q, %v", body, err)
					return
				}
				h := resp.Header
				timings := len(h.Values("Server-Timing"))
				switch {
				case h.Get("X-Secret") != "":
					t.Errorf("a stripped field served: %v", h)
				case cl.forwards && (h.Get("Surrogate-Key") != "shop item-1" || timings != 2):
					t.Errorf("forwarding site: %v", h)
				case !cl.forwards && (h.Get("Surrogate-Key") != "" || h.Get("Cdn-Cache-Control") != "" || timings != 1):
					t.Errorf("compact site: %v", h)
				}
				if t.Failed() {
					return
				}
			}
		})
	}
	wg.Wait()
	if n := answered(); n != conns*hits {
		t.Fatalf("%v of %d hits answered below net/http", n, conns*hits)
	}
}
