//go:build !(go1.27 && !http2legacy)

package http2

// For server_worker_test.go.

const HandlerWorkerIdleTime = handlerWorkerIdleTime

// TestIdleWorkers asks the serve goroutine how many workers are idle.
func (sc *serverConn) TestIdleWorkers() int {
	ch := make(chan int, 1)
	sc.serveMsgCh <- func(int) { ch <- len(sc.idleWorkers) }
	return <-ch
}
