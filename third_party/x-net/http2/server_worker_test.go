// Tests of lastmile's patch (third_party/x-net.patch): a connection's
// handlers run on reused worker goroutines, which end once idle; a
// finished response leaves as HEADERS and DATA in one hand-off.

//go:build !(go1.27 && !http2legacy)

package http2_test

import (
	"bytes"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"

	. "golang.org/x/net/http2"
)

// goroutineID is the running goroutine's number, from its stack header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	return string(buf[:bytes.IndexByte(buf, ' ')])
}

func TestServerHandlerWorkersReusedThenSwept(t *testing.T) {
	synctestTest(t, testServerHandlerWorkersReusedThenSwept)
}

func testServerHandlerWorkersReusedThenSwept(t testing.TB) {
	const body = "hit"
	var mu sync.Mutex
	ran := map[uint32]string{} // stream ID: goroutine that ran its handler
	st := newServerTester(t, func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseUint(r.Header.Get("Stream"), 10, 32)
		mu.Lock()
		ran[uint32(id)] = goroutineID()
		mu.Unlock()
		w.Header().Set("Cache-Status", "lastmile; hit")
		w.Write([]byte(body))
	})
	defer st.Close()
	st.greet()

	request := func(id uint32) string {
		t.Helper()
		st.writeHeaders(HeadersFrameParam{
			StreamID:      id,
			BlockFragment: st.encodeHeader("stream", strconv.Itoa(int(id))),
			EndStream:     true,
			EndHeaders:    true,
		})
		st.wantHeaders(wantHeader{
			streamID:  id,
			endStream: false,
			header: http.Header{
				":status":        {"200"},
				"cache-status":   {"lastmile; hit"},
				"content-length": {strconv.Itoa(len(body))},
			},
		})
		st.wantData(wantData{streamID: id, endStream: true, data: []byte(body)})
		st.sync()
		mu.Lock()
		defer mu.Unlock()
		return ran[id]
	}

	first := request(1)
	if n := st.sc.TestIdleWorkers(); n != 1 {
		t.Fatalf("after one handler: %d idle workers, want 1", n)
	}
	if again := request(3); again != first {
		t.Errorf("second handler ran on goroutine %s, want the idle worker %s", again, first)
	}

	// A worker idle through one whole sweep period ends at the next sweep.
	st.advance(HandlerWorkerIdleTime)
	if n := st.sc.TestIdleWorkers(); n != 1 {
		t.Fatalf("after one sweep: %d idle workers, want 1 (idle for less than a period)", n)
	}
	st.advance(HandlerWorkerIdleTime)
	if n := st.sc.TestIdleWorkers(); n != 0 {
		t.Fatalf("after two sweeps: %d idle workers, want 0", n)
	}
	if later := request(5); later == first {
		t.Errorf("handler after the sweep ran on the swept worker %s", first)
	}
}

// TestServerWorkersEndWithConn checks that workers idle when the
// connection ends exit with it: synctest fails a test whose goroutines
// are still blocked when it returns.
func TestServerWorkersEndWithConn(t *testing.T) {
	synctestTest(t, func(t testing.TB) {
		st := newServerTester(t, func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("x"))
		})
		st.greet()
		st.bodylessReq1()
		st.wantHeaders(wantHeader{streamID: 1, endStream: false})
		st.wantData(wantData{streamID: 1, endStream: true, data: []byte("x")})
		st.sync()
		if n := st.sc.TestIdleWorkers(); n != 1 {
			t.Fatalf("%d idle workers, want 1", n)
		}
		st.Close()
		st.sync()
	})
}

// A handler that ends its goroutine (runtime.Goexit) ends its worker, and
// its stream's slot is freed: with one stream allowed, the next one runs.
func TestServerWorkerGoexitFreesItsSlot(t *testing.T) {
	synctestTest(t, func(t testing.TB) {
		st := newServerTester(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/exit" {
				runtime.Goexit()
			}
			w.Write([]byte("ok"))
		}, func(s *Server) { s.MaxConcurrentStreams = 1 })
		defer st.Close()
		st.greet()
		st.writeHeaders(HeadersFrameParam{StreamID: 1, BlockFragment: st.encodeHeader(":path", "/exit"), EndStream: true, EndHeaders: true})
		st.wantRSTStream(1, ErrCodeInternal)
		st.sync()
		st.writeHeaders(HeadersFrameParam{StreamID: 3, BlockFragment: st.encodeHeader(), EndStream: true, EndHeaders: true})
		st.wantHeaders(wantHeader{streamID: 3, endStream: false})
		st.wantData(wantData{streamID: 3, endStream: true, data: []byte("ok")})
	})
}

// A finished response whose DATA the peer's flow control holds back after
// its HEADERS: the handler waits for the DATA, a reset of the stream frees
// it (and its worker), and the connection ending with DATA still held
// leaves nothing running.
func TestServerFinishedResponseResetBetweenHeadersAndData(t *testing.T) {
	synctestTest(t, func(t testing.TB) {
		st := newServerTester(t, func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("body of " + r.URL.Path))
		})
		defer st.Close()
		st.greet()
		st.writeSettings(Setting{SettingInitialWindowSize, 0})
		st.sync()
		readFrame[*SettingsFrame](t, st) // its ACK

		st.writeHeaders(HeadersFrameParam{StreamID: 1, BlockFragment: st.encodeHeader(":path", "/a"), EndStream: true, EndHeaders: true})
		st.wantHeaders(wantHeader{streamID: 1, endStream: false})
		st.sync()
		st.wantIdle()
		if n := st.sc.TestIdleWorkers(); n != 0 {
			t.Fatalf("%d idle workers while the DATA waits, want 0: the handler waits for it", n)
		}
		st.writeRSTStream(1, ErrCodeCancel)
		st.sync()
		if n := st.sc.TestIdleWorkers(); n != 1 {
			t.Fatalf("%d idle workers after the reset, want 1", n)
		}

		st.writeHeaders(HeadersFrameParam{StreamID: 3, BlockFragment: st.encodeHeader(":path", "/b"), EndStream: true, EndHeaders: true})
		st.wantHeaders(wantHeader{streamID: 3, endStream: false})
		st.writeWindowUpdate(3, 100)
		st.wantData(wantData{streamID: 3, endStream: true, data: []byte("body of /b")})

		st.writeHeaders(HeadersFrameParam{StreamID: 5, BlockFragment: st.encodeHeader(":path", "/c"), EndStream: true, EndHeaders: true})
		st.wantHeaders(wantHeader{streamID: 5, endStream: false})
		st.Close()
		st.sync()
	})
}
