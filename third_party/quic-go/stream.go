package quic

import (
	"context"
	"net"
	"os"
	"sync"
	"time"

	"github.com/quic-go/quic-go/internal/ackhandler"
	"github.com/quic-go/quic-go/internal/monotime"
	"github.com/quic-go/quic-go/internal/protocol"
	"github.com/quic-go/quic-go/internal/wire"
)

type deadlineError struct{}

func (deadlineError) Error() string   { return "deadline exceeded" }
func (deadlineError) Temporary() bool { return true }
func (deadlineError) Timeout() bool   { return true }
func (deadlineError) Unwrap() error   { return os.ErrDeadlineExceeded }

var errDeadline net.Error = &deadlineError{}

// The streamSender is notified by the stream about various events.
type streamSender interface {
	onHasConnectionData()
	onHasStreamData(protocol.StreamID, *SendStream)
	onHasStreamRetransmission(protocol.StreamID, *SendStream)
	onHasStreamControlFrame(protocol.StreamID, streamControlFrameGetter)
	updateStreamPriority(protocol.StreamID)
	recordStreamPriorityUpdated(protocol.StreamID, int8, bool)
	// must be called without holding the mutex that is acquired by closeForShutdown
	onStreamCompleted(protocol.StreamID)
}

type Stream struct {
	receiveStr *ReceiveStream
	sendStr    *SendStream

	completedMutex         sync.Mutex
	sender                 streamSender
	receiveStreamCompleted bool
	sendStreamCompleted    bool
}

var (
	_ outgoingStream            = &Stream{}
	_ sendStreamFrameHandler    = &Stream{}
	_ receiveStreamFrameHandler = &Stream{}
)

// newStream creates a new Stream
func newStream(
	ctx context.Context,
	streamID protocol.StreamID,
	sender streamSender,
	flowController *streamFlowController,
	supportsResetStreamAt bool,
) *Stream {
	// lastmile patch: the stream, its two halves and their senders are one
	// allocation, and the senders are methods, not closures (upstream: five
	// objects and four closures per stream, a fifth of an HTTP/3 cache hit's
	// allocations, on the server and on the client).
	a := &streamAllocation{}
	s := &a.stream
	s.sender = sender
	a.sendSender = streamHalfSender{streamSender: sender, stream: s, send: true}
	a.receiveSender = streamHalfSender{streamSender: sender, stream: s}
	initSendStream(&a.send, ctx, streamID, &a.sendSender, flowController, supportsResetStreamAt)
	s.sendStr = &a.send
	initReceiveStream(&a.receive, streamID, &a.receiveSender, flowController)
	s.receiveStr = &a.receive
	return s
}

// streamAllocation is what newStream allocates (lastmile patch).
type streamAllocation struct {
	stream                    Stream
	send                      SendStream
	receive                   ReceiveStream
	sendSender, receiveSender streamHalfSender
}

// streamHalfSender is the streamSender of one half of a bidirectional
// stream (lastmile patch; upstream's uniStreamSender with closures): it
// tells the stream when its half completes, so that the stream is
// completed once both are.
type streamHalfSender struct {
	streamSender
	stream *Stream
	send   bool // the send half, else the receive half
}

func (h *streamHalfSender) onStreamCompleted(protocol.StreamID) {
	s := h.stream
	s.completedMutex.Lock()
	if h.send {
		s.sendStreamCompleted = true
	} else {
		s.receiveStreamCompleted = true
	}
	s.checkIfCompleted()
	s.completedMutex.Unlock()
}

func (h *streamHalfSender) onHasStreamControlFrame(id protocol.StreamID, _ streamControlFrameGetter) {
	h.streamSender.onHasStreamControlFrame(id, h.stream)
}

var _ streamSender = &streamHalfSender{}

// StreamID returns the stream ID.
func (s *Stream) StreamID() StreamID {
	// the result is same for receiveStream and sendStream
	return s.sendStr.StreamID()
}

// SetPriority sets the scheduling priority for data sent on the stream.
// See [SendStream.SetPriority] for details.
func (s *Stream) SetPriority(urgency int8, incremental bool) {
	s.sendStr.SetPriority(urgency, incremental)
}

// Read reads data from the stream.
// Read can be made to time out using [Stream.SetReadDeadline] and [Stream.SetDeadline].
// If the stream was canceled, the error is a [StreamError].
func (s *Stream) Read(p []byte) (int, error) {
	return s.receiveStr.Read(p)
}

// Peek fills b with stream data, without consuming the stream data.
// It blocks until len(b) bytes are available, or an error occurs.
// It respects the stream deadline set by [Stream.SetReadDeadline].
// If the stream ends before len(b) bytes are available,
// it returns the number of bytes peeked along with [io.EOF].
func (s *Stream) Peek(b []byte) (int, error) {
	return s.receiveStr.Peek(b)
}

// Write writes data to the stream.
// Write can be made to time out using [Stream.SetWriteDeadline] or [Stream.SetDeadline].
// If the stream was canceled, the error is a [StreamError].
func (s *Stream) Write(p []byte) (int, error) {
	return s.sendStr.Write(p)
}

// WriteWithLimit writes data to the stream, subject to an additional send limit.
// See [SendStream.WriteWithLimit] for more details.
func (s *Stream) WriteWithLimit(p []byte, limiter func(maxBytes int) int) (int, error) {
	return s.sendStr.WriteWithLimit(p, limiter)
}

// TryWriteAll writes data to the stream if it can be queued immediately.
// See [SendStream.TryWriteAll] for more details.
func (s *Stream) TryWriteAll(p []byte) error {
	return s.sendStr.TryWriteAll(p)
}

// TryWriteAllOwned is [SendStream.TryWriteAllOwned] (lastmile patch).
func (s *Stream) TryWriteAllOwned(p []byte) error {
	return s.sendStr.TryWriteAllOwned(p)
}

// SetReliableBoundary marks the data written to this stream so far as reliable.
// It is valid to call this function multiple times, thereby increasing the reliable size.
// It only has an effect if the peer enabled support for the RESET_STREAM_AT extension,
// otherwise, it is a no-op.
func (s *Stream) SetReliableBoundary() {
	s.sendStr.SetReliableBoundary()
}

// CancelWrite aborts sending on this stream.
// See [SendStream.CancelWrite] for more details.
func (s *Stream) CancelWrite(errorCode StreamErrorCode) {
	s.sendStr.CancelWrite(errorCode)
}

// CancelRead aborts receiving on this stream.
// See [ReceiveStream.CancelRead] for more details.
func (s *Stream) CancelRead(errorCode StreamErrorCode) {
	s.receiveStr.CancelRead(errorCode)
}

// SetReceiveFinalSizeCallback sets a callback that is called when the receive side's final size is known.
// See [ReceiveStream.SetReceiveFinalSizeCallback] for more details.
// Most applications don't need this. It is mainly useful for protocol layers
// that need exact stream final sizes, such as WebTransport flow control accounting.
func (s *Stream) SetReceiveFinalSizeCallback(callback func(int64)) {
	s.receiveStr.SetReceiveFinalSizeCallback(callback)
}

// The Context is canceled as soon as the write-side of the stream is closed.
// See [SendStream.Context] for more details.
func (s *Stream) Context() context.Context {
	return s.sendStr.Context()
}

// Close closes the send-direction of the stream.
// It does not close the receive-direction of the stream.
func (s *Stream) Close() error {
	return s.sendStr.Close()
}

func (s *Stream) handleResetStreamFrame(frame *wire.ResetStreamFrame, rcvTime monotime.Time) error {
	return s.receiveStr.handleResetStreamFrame(frame, rcvTime)
}

func (s *Stream) handleStreamFrame(frame *wire.StreamFrame, rcvTime monotime.Time) error {
	return s.receiveStr.handleStreamFrame(frame, rcvTime)
}

func (s *Stream) resetOrClosed() bool { return s.sendStr.resetOrClosed() }

func (s *Stream) handleStopSendingFrame(frame *wire.StopSendingFrame) {
	s.sendStr.handleStopSendingFrame(frame)
}

func (s *Stream) updateSendWindow(limit protocol.ByteCount) {
	s.sendStr.updateSendWindow(limit)
}

func (s *Stream) enableResetStreamAt() {
	s.sendStr.enableResetStreamAt()
}

func (s *Stream) popStreamFrame(maxBytes protocol.ByteCount, v protocol.Version) (_ ackhandler.StreamFrame, _ *wire.StreamDataBlockedFrame, hasMore bool) {
	return s.sendStr.popStreamFrame(maxBytes, v)
}

func (s *Stream) getControlFrame(now monotime.Time) (_ ackhandler.Frame, ok, hasMore bool) {
	f, ok, _ := s.sendStr.getControlFrame(now)
	if ok {
		return f, true, true
	}
	return s.receiveStr.getControlFrame(now)
}

// SetReadDeadline sets the deadline for future [Stream.Read] calls.
// See [ReceiveStream.SetReadDeadline] for more details.
func (s *Stream) SetReadDeadline(t time.Time) error {
	return s.receiveStr.SetReadDeadline(t)
}

// SetWriteDeadline sets the deadline for future [Stream.Write] calls.
// See [SendStream.SetWriteDeadline] for more details.
func (s *Stream) SetWriteDeadline(t time.Time) error {
	return s.sendStr.SetWriteDeadline(t)
}

// SetDeadline sets the read and write deadlines associated with the stream.
// It is equivalent to calling both [Stream.SetReadDeadline] and [Stream.SetWriteDeadline].
func (s *Stream) SetDeadline(t time.Time) error {
	_ = s.receiveStr.SetReadDeadline(t) // SetReadDeadline never errors
	_ = s.sendStr.SetWriteDeadline(t)   // SetWriteDeadline never errors
	return nil
}

// CloseForShutdown closes a stream abruptly.
// It makes Read and Write unblock (and return the error) immediately.
// The peer will NOT be informed about this: the stream is closed without sending a FIN or RST.
func (s *Stream) closeForShutdown(err error) {
	s.sendStr.closeForShutdown(err)
	s.receiveStr.closeForShutdown(err)
}

// checkIfCompleted is called from the uniStreamSender, when one of the stream halves is completed.
// It makes sure that the onStreamCompleted callback is only called if both receive and send side have completed.
func (s *Stream) checkIfCompleted() {
	if s.sendStreamCompleted && s.receiveStreamCompleted {
		s.sender.onStreamCompleted(s.StreamID())
	}
}
