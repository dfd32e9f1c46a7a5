package wtfanout

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/sseorigin"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
	"github.com/lastmile-edge/lastmile/internal/wtclient"
	_ "github.com/lastmile-edge/lastmile/modules/quicedge"
	_ "github.com/lastmile-edge/lastmile/modules/wtsession"
)

// origin is a site's SSE server, as the tests' origin: /events/<channel>
// streams the channel's events, resuming after Last-Event-ID; channels
// named missing* are 404.
type origin struct {
	srv *httptest.Server

	mu       sync.Mutex
	log      map[string][]string // each channel's events' data; an event's id is its index+1
	conns    map[string][]*originConn
	requests map[string]int
	lastIDs  []string // Last-Event-ID of each request
	// ignoreLastEventID replays every event on reconnect, as a careless
	// origin would.
	ignoreLastEventID bool
}

type originConn struct {
	out  chan []byte
	drop chan struct{}
}

func startOrigin(t testing.TB) *origin {
	t.Helper()
	o := &origin{log: map[string][]string{}, conns: map[string][]*originConn{}, requests: map[string]int{}}
	o.srv = httptest.NewServer(o)
	t.Cleanup(o.srv.Close)
	return o
}

func (o *origin) template() string { return o.srv.URL + "/events/{channel}" }

func (o *origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/events/")
	if strings.HasPrefix(name, "missing") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	c := &originConn{out: make(chan []byte, 4096), drop: make(chan struct{})}
	o.mu.Lock()
	o.requests[name]++
	o.lastIDs = append(o.lastIDs, r.Header.Get("Last-Event-ID"))
	after, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
	if o.ignoreLastEventID {
		after = 0
	}
	var backlog []byte
	for i := after; i < len(o.log[name]); i++ {
		backlog = append(backlog, sseText(i+1, o.log[name][i])...)
	}
	o.conns[name] = append(o.conns[name], c)
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		o.conns[name] = slices.DeleteFunc(o.conns[name], func(x *originConn) bool { return x == c })
		o.mu.Unlock()
	}()
	w.WriteHeader(http.StatusOK)
	w.Write(append([]byte(":hello\n\n"), backlog...))
	w.(http.Flusher).Flush()
	for {
		select {
		case b := <-c.out:
			w.Write(b)
			w.(http.Flusher).Flush()
		case <-c.drop:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func sseText(id int, data string) []byte {
	return sseorigin.Format(sseorigin.Event{ID: strconv.Itoa(id), Name: "update", Data: data})
}

// emit appends an event to the channel and sends it to its connections;
// it returns the event's id.
func (o *origin) emit(channel, data string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log[channel] = append(o.log[channel], data)
	id := len(o.log[channel])
	for _, c := range o.conns[channel] {
		c.out <- sseText(id, data)
	}
	return strconv.Itoa(id)
}

// open is how many event streams of channel the origin serves now.
func (o *origin) open(channel string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.conns[channel])
}

func (o *origin) requestCount(channel string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.requests[channel]
}

// dropAll ends the channel's streams, as an origin restart would.
func (o *origin) dropAll(channel string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.conns[channel] {
		close(c.drop)
	}
	o.conns[channel] = nil
}

// startEdge runs lastmile with `session fanout <origin template>
// {<options>}` on /live.
func startEdge(t testing.TB, o *origin, options string) *testcaddy.Site {
	t.Helper()
	site := testcaddy.NewSite(t)
	testcaddy.Run(t, edgeConfig(site, o.template(), options, "not fan-out"))
	return site
}

// edgeConfig is startEdge's Caddyfile, fanning out upstream (a URL
// template); other paths answer 404 with body.
func edgeConfig(site *testcaddy.Site, upstream, options, body string) string {
	return siteConfig(site, fmt.Sprintf(`
	webtransport /live {
		max_sessions_per_client 1000
		session fanout %s {
			%s
		}
	}
	respond %q 404`, upstream, options, body))
}

// siteConfig is a Caddyfile serving routes on the site, with HTTP/3
// and WebTransport by the quic app.
func siteConfig(site *testcaddy.Site, routes string) string {
	return fmt.Sprintf(`{
	admin %s
	persist_config off
	auto_https disable_redirects
	servers {
		protocols h1 h2
	}
	quic
}
localhost:%s {
	tls %s %s%s
}
`, site.Admin, site.Port, site.CertFile, site.KeyFile, routes)
}

// fanClient is a browser's fan-out session.
type fanClient struct {
	t    testing.TB
	tr   *webtransport.Transport
	s    *webtransport.Session
	ctrl *webtransport.Stream
	r    *bufio.Reader
}

func dialFanout(t testing.TB, ctx context.Context, site *testcaddy.Site) *fanClient {
	t.Helper()
	return dialFanoutWindow(t, ctx, site, "/live", 0)
}

// dialFanoutWindow dials with stream receive windows of window bytes (0:
// quic-go's defaults, which grow to 6 MiB), so a client that does not read
// stops the edge's writes soon.
func dialFanoutWindow(t testing.TB, ctx context.Context, site *testcaddy.Site, path string, window uint64) *fanClient {
	t.Helper()
	qconf := &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true}
	if window > 0 {
		qconf.InitialStreamReceiveWindow, qconf.MaxStreamReceiveWindow = window, window
	}
	d := &webtransport.Transport{
		TLSClientConfig: site.TLSConfig(),
		QUICConfig:      qconf,
		DialAddr: func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			return quic.DialAddrEarly(ctx, site.Addr(), tlsCfg, cfg)
		},
	}
	t.Cleanup(func() { d.Close() })
	_, s, err := d.Dial(ctx, site.URL(path), nil)
	c := openFanClient(t, ctx, s, err)
	c.tr = d
	return c
}

// connectFanout opens a QUIC connection that carries several fan-out
// sessions (see dialFanoutOn), with stream receive windows of window
// bytes as in dialFanoutWindow.
func connectFanout(t testing.TB, ctx context.Context, site *testcaddy.Site, window uint64) *webtransport.ClientConn {
	t.Helper()
	qconf := &quic.Config{}
	if window > 0 {
		qconf.InitialStreamReceiveWindow, qconf.MaxStreamReceiveWindow = window, window
	}
	client, conn, err := wtclient.Connect(ctx, site.Addr(), site.TLSConfig(), qconf)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { conn.CloseWithError(0, "") })
	return client
}

// dialFanoutOn opens a fan-out session on client's connection.
func dialFanoutOn(t testing.TB, ctx context.Context, site *testcaddy.Site, client *webtransport.ClientConn) *fanClient {
	t.Helper()
	_, s, err := client.Dial(ctx, site.URL("/live"), nil)
	return openFanClient(t, ctx, s, err)
}

// openFanClient opens the control stream of a session dialed with err.
func openFanClient(t testing.TB, ctx context.Context, s *webtransport.Session, err error) *fanClient {
	t.Helper()
	if err != nil {
		t.Fatalf("dialing the fan-out path: %v", err)
	}
	t.Cleanup(func() { s.CloseWithError(0, "") })
	ctrl, err := s.OpenStreamSync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &fanClient{t: t, s: s, ctrl: ctrl, r: bufio.NewReader(ctrl)}
}

// close ends the session and the client's QUIC connection, as a browser
// tab that goes away.
func (c *fanClient) close() {
	c.s.CloseWithError(0, "")
	c.tr.Close()
}

func (c *fanClient) send(frame string) {
	c.t.Helper()
	if _, err := c.ctrl.Write([]byte(frame + "\n")); err != nil {
		c.t.Fatalf("writing %s: %v", frame, err)
	}
}

// reply reads the next control frame.
func (c *fanClient) reply() reply {
	c.t.Helper()
	c.ctrl.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("reading the control stream: %v", err)
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		c.t.Fatalf("control frame %q: %v", line, err)
	}
	return r
}

// subscribe subscribes and returns the subscription's event stream,
// checked to name the channel.
func (c *fanClient) subscribe(ctx context.Context, channel, lastID string) *eventStream {
	c.t.Helper()
	frame, _ := json.Marshal(controlFrame{Op: "subscribe", Channel: channel, LastEventID: lastID})
	c.send(string(frame))
	if r := c.reply(); r.Op != "subscribed" || r.Channel != channel {
		c.t.Fatalf("subscribing to %s: got %+v", channel, r)
	}
	uni, err := c.s.AcceptUniStream(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	es := &eventStream{t: c.t, str: uni, r: bufio.NewReader(uni)}
	var head struct{ Channel string }
	if line := es.line(); json.Unmarshal(line, &head) != nil || head.Channel != channel {
		c.t.Fatalf("subscription stream starts with %q, want the channel %s", line, channel)
	}
	return es
}

// eventStream is a subscription's unidirectional stream.
type eventStream struct {
	t   testing.TB
	str *webtransport.ReceiveStream
	r   *bufio.Reader
}

func (es *eventStream) line() []byte {
	es.t.Helper()
	es.str.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := es.r.ReadBytes('\n')
	if err != nil {
		es.t.Fatalf("reading events: %v", err)
	}
	return line
}

func (es *eventStream) next() wireEvent {
	es.t.Helper()
	var ev wireEvent
	if line := es.line(); json.Unmarshal(line, &ev) != nil {
		es.t.Fatalf("event line %q is not JSON", line)
	}
	return ev
}

// expect reads events and checks their ids and data.
func (es *eventStream) expect(ids ...string) {
	es.t.Helper()
	for _, id := range ids {
		if ev := es.next(); ev.ID != id || ev.Data != "event "+id || ev.Event != "update" {
			es.t.Fatalf("got event %+v, want id %s", ev, id)
		}
	}
}

// emitN emits n events on channel whose data is "event <id>".
func (o *origin) emitN(channel string, n int) {
	for range n {
		o.mu.Lock()
		id := len(o.log[channel]) + 1
		o.mu.Unlock()
		o.emit(channel, "event "+strconv.Itoa(id))
	}
}

func fixture(t *testing.T, options string) (*origin, *testcaddy.Site, context.Context) {
	t.Helper()
	o := startOrigin(t)
	site := startEdge(t, o, options)
	return o, site, fixtureContext(t)
}

// fixtureContext bounds a test's dials and accepts.
func fixtureContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
