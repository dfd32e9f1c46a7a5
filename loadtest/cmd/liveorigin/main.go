// Command liveorigin is a site's live backend for the load tools: a
// WebTransport echo (for the edge's `session proxy`) and channels of
// Server-Sent Events (for `session fanout`), each event's data the time it
// was emitted. It writes its certificate into -dir and prints where it
// listens as one JSON line, then serves until killed.
//
//	liveorigin -dir /tmp/live -channels news,sport -every 1s
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/sseorigin"
	"github.com/lastmile-edge/lastmile/internal/testcert"
	"github.com/lastmile-edge/lastmile/internal/wtorigin"
)

// ready is the line printed once both listeners are up.
type ready struct {
	WebTransport string `json:"webtransport"` // host:port (UDP), echo on /app/echo
	SSE          string `json:"sse"`          // host:port (TCP), /events/{channel}
	CA           string `json:"ca"`           // the certificate file to trust for WebTransport
}

func main() {
	dir := flag.String("dir", "", "directory for cert.pem and key.pem (required)")
	wtAddr := flag.String("wt", "127.0.0.1:0", "WebTransport (UDP) address")
	sseAddr := flag.String("sse", "127.0.0.1:0", "SSE (TCP) address")
	channels := flag.String("channels", "news", "comma-separated channels to emit on")
	every := flag.Duration("every", time.Second, "time between events on each channel")
	flag.Parse()
	if *dir == "" {
		log.Fatal("liveorigin: -dir is required")
	}
	cert, err := testcert.WriteDir(*dir)
	if err != nil {
		log.Fatal(err)
	}
	wt, err := wtorigin.Listen(*wtAddr, cert.KeyPair, nil)
	if err != nil {
		log.Fatal(err)
	}
	wt.HandleSessions("/app/echo", func(s *webtransport.Session, _ *http.Request) { wtorigin.Echo(s) })
	wt.Serve()

	events := sseorigin.New()
	ln, err := net.Listen("tcp", *sseAddr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { log.Fatal(http.Serve(ln, events)) }()
	if err := json.NewEncoder(os.Stdout).Encode(ready{WebTransport: wt.Addr, SSE: ln.Addr().String(), CA: cert.CertFile}); err != nil {
		log.Fatal(err)
	}
	names := strings.Split(*channels, ",")
	for range time.Tick(*every) {
		now := strconv.FormatInt(time.Now().UnixNano(), 10)
		for _, name := range names {
			events.Publish(name, "", now)
		}
	}
}
