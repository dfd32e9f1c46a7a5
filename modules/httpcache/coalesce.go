package httpcache

import (
	"errors"
	"net/http"
	"sync"
)

// flights are the origin fetches in progress, by cache key: concurrent
// misses for one key make one origin request.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

func newFlights() *flights { return &flights{m: make(map[string]*flight)} }

// join returns the flight for key and whether the caller leads it (and
// must run it and call finish).
func (f *flights) join(key string) (fl *flight, leader bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl, ok := f.m[key]; ok {
		return fl, false
	}
	fl = newFlight(key)
	f.m[key] = fl
	return fl, true
}

// tryLead starts a flight for key only if none runs: background refreshes
// run once per key.
func (f *flights) tryLead(key string) (*flight, bool) {
	fl, leader := f.join(key)
	if !leader {
		return nil, false
	}
	return fl, true
}

func (f *flights) remove(fl *flight) {
	f.mu.Lock()
	if f.m[fl.key] == fl {
		delete(f.m, fl.key)
	}
	f.mu.Unlock()
}

// flightOutcome is what waiters do once the response headers are known.
type flightOutcome int

const (
	// outcomeShare: waiters stream the leader's response.
	outcomeShare flightOutcome = iota
	// outcomeRelease: the response is not shareable; waiters go to the
	// origin themselves.
	outcomeRelease
	// outcomeFail: the fetch failed before a response; waiters fail with
	// the same error.
	outcomeFail
)

// flight is one origin fetch and what its waiters need.
type flight struct {
	key         string
	headerReady chan struct{} // closed once outcome (and status, header) are set
	done        chan struct{} // closed once the fetch ended and entry is set
	outcome     flightOutcome
	status      int         // of the response served (the stored one after a 304)
	fwdStatus   int         // what the origin answered
	header      http.Header // as fetched, edge-only fields included; never modified after headerReady
	err         error
	body        *streamBuf
	entry       *entry // the stored result, if any; read only after done
	storable    bool   // the response is being stored; set before headerReady
	varyNames   []string
	variant     string // the fetching request's values of varyNames (setVariant)
}

func newFlight(key string) *flight {
	return &flight{key: key, headerReady: make(chan struct{}), done: make(chan struct{}), body: newStreamBuf()}
}

// setVariant records what the shared response varies on and the fetching
// request's values of those fields, before the header is ready.
func (fl *flight) setVariant(header http.Header, req *http.Request) {
	fl.varyNames, _ = parseVary(header)
	fl.variant = variantKey("", fl.varyNames, req)
}

// sharedWith reports whether the shared response may answer r: a waiter
// whose values of the response's Vary fields differ (another Cookie, say)
// is not the client it was made for (RFC 9111 section 4.1).
func (fl *flight) sharedWith(r *http.Request) bool {
	return len(fl.varyNames) == 0 || variantKey("", fl.varyNames, r) == fl.variant
}

// shareEntry gives the flight's waiters e, whole: a revalidated entry, or
// one another fetch stored. The caller closes done.
func (fl *flight) shareEntry(e *entry, req *http.Request) {
	fl.setVariant(e.header, req)
	fl.entry = e
	fl.ready(outcomeShare, e.status, e.header, nil)
	fl.body.write(e.body)
	fl.body.finish(nil)
}

func (fl *flight) ready(outcome flightOutcome, status int, header http.Header, err error) {
	fl.outcome, fl.status, fl.header, fl.err = outcome, status, header, err
	close(fl.headerReady)
}

// streamBuf is a response body written once and read, as it grows, by any
// number of waiters. Slices handed out are never written again.
type streamBuf struct {
	mu   sync.Mutex
	cond *sync.Cond
	data []byte
	done bool
	err  error
}

func newStreamBuf() *streamBuf {
	b := &streamBuf{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *streamBuf) grow(n int) {
	b.mu.Lock()
	if cap(b.data) == 0 {
		b.data = make([]byte, 0, n)
	}
	b.mu.Unlock()
}

func (b *streamBuf) write(p []byte) {
	b.mu.Lock()
	b.data = append(b.data, p...)
	b.mu.Unlock()
	b.cond.Broadcast()
}

// finish ends the body; the first end stands (a fetch that panics after
// its body finished does not turn it into a failure).
func (b *streamBuf) finish(err error) {
	b.mu.Lock()
	if !b.done {
		b.done, b.err = true, err
	}
	b.mu.Unlock()
	b.cond.Broadcast()
}

// bytes returns the whole body once finished without error.
func (b *streamBuf) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data
}

func (b *streamBuf) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.data)
}

// next blocks until there are bytes past off or the body ended; it
// returns the new bytes, and the body's error once it ended.
func (b *streamBuf) next(off int) (chunk []byte, done bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.data) <= off && !b.done {
		b.cond.Wait()
	}
	return b.data[off:len(b.data):len(b.data)], b.done && len(b.data) == off, b.err
}

// errBodyTooLarge ends a shared body that outgrew max_object_bytes while
// being buffered for waiters.
var errBodyTooLarge = errors.New("edge_cache: shared response outgrew max_object_bytes")

// streamTo copies the body to w as it arrives. If the fetch breaks off,
// the connection is aborted so the client cannot take a truncated body for
// a whole one.
func (b *streamBuf) streamTo(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	off := 0
	for {
		chunk, done, err := b.next(off)
		if len(chunk) > 0 {
			if _, werr := w.Write(chunk); werr != nil {
				return
			}
			_ = rc.Flush()
			off += len(chunk)
			continue
		}
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		if done {
			return
		}
	}
}
