package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n *atomic.Int64 }

func (w countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}

// A reload while a WebTransport session is open and an HTTP/3 download is
// running breaks neither; requests after the reload, even on the old
// connection, see the new config.
func TestReloadKeepsSessionsAndDownloads(t *testing.T) {
	e := startEdge(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, sess, err := e.wtDial(t, ctx, "/wt/echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.CloseWithError(0, "")
	checkEcho(t, ctx, sess, "before reload")

	c, _ := e.h3Client(t)
	const size = 3 << 20
	// 3 MiB at 1.5 MiB/s: about two seconds, the reload lands in the middle.
	resp, err := c.Get(e.URL("/download?bytes=3145728&rate=1572864"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	var got atomic.Int64
	go func() {
		n, err := io.Copy(countingWriter{&got}, resp.Body)
		done <- result{n, err}
	}()

	// The reload lands once the download is under way.
	waitFor(t, func() bool { return got.Load() >= 256<<10 })
	e.reload(t, strings.Replace(e.Caddyfile, "\talt_svc 24h\n", "\talt_svc 24h\n\theader X-Config-Generation 2\n", 1))

	checkEcho(t, ctx, sess, "after reload")
	select {
	case r := <-done:
		if r.err != nil || r.n != size {
			t.Fatalf("download across reload: %d of %d bytes, %v", r.n, size, r.err)
		}
	case <-ctx.Done():
		t.Fatal("download did not finish")
	}
	// Same client, same (old) connection: the new config answers.
	resp2, _ := get(t, c, e.URL("/"))
	if resp2.Proto != "HTTP/3.0" || resp2.Header.Get("X-Config-Generation") != "2" {
		t.Fatalf("after reload: %s, X-Config-Generation %q", resp2.Proto, resp2.Header.Get("X-Config-Generation"))
	}
	// A new connection too.
	c2, _ := e.h3Client(t)
	resp3, _ := get(t, c2, e.URL("/"))
	if resp3.StatusCode != http.StatusOK || resp3.Header.Get("X-Config-Generation") != "2" {
		t.Fatalf("new connection after reload: %d, X-Config-Generation %q", resp3.StatusCode, resp3.Header.Get("X-Config-Generation"))
	}
}
