package clienttcp

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"time"
)

// Deadlines. net/http sets an HTTP/1.1 connection's read deadline six
// times a request (the idle timeout before the next one, the header
// timeout, none for the body, none for its background read, a time long
// ago to end that read, none after it) and its write deadline once, each
// a call into the runtime's poller that adds, moves or deletes a timer:
// 4% of the edge's CPU on a cache hit. Only a Read or Write that waits
// needs one. So the owner's read deadline is kept here and given to the
// socket when a Read starts, or at once while a Read is under way (which
// it may be set to end); a Read on plain TCP that starts past its deadline
// fails as the socket would fail it, without asking the socket (net/http's
// background read, ended before it ran on a busy core); and a deadline the
// socket already has is not set again. A cache hit then moves one timer,
// the idle timeout's, and makes no error value.

// errReadTimeout is what a Read past its deadline returns on plain TCP:
// what net's Read returns then (a timeout net.Error wrapping
// os.ErrDeadlineExceeded), made once.
var errReadTimeout error = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}

func (c *conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.detached {
		return nil // a detached handle's deadlines are not the new owner's business
	}
	return errors.Join(c.setReadLocked(t), c.setWriteLocked(t))
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.detached {
		return nil
	}
	return c.setReadLocked(t)
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.detached {
		return nil
	}
	return c.setWriteLocked(t)
}

// setReadLocked takes the owner's read deadline: to the socket when the
// next Read starts, or now if a Read is under way or the connection's
// reads do not start through startReadLocked (HTTP/2's, whose frame reader
// and deadlines run on different goroutines, and opaque TLS records'). c.mu
// is held.
func (c *conn) setReadLocked(t time.Time) error {
	c.readDeadline = t
	if !c.reading && (c.proto == protoUnknown || c.proto == protoHTTP1) {
		return nil
	}
	return c.applyReadLocked()
}

// startReadLocked readies the socket for a Read of the owner's: the read
// deadline it set, or on plain TCP the timeout a Read past it meets. c.mu
// is held.
func (c *conn) startReadLocked() error {
	if !c.readDeadline.IsZero() && !c.readDeadline.After(time.Now()) {
		if _, isTLS := c.Conn.(*tls.Conn); !isTLS {
			// crypto/tls would still return what it decrypted earlier.
			return errReadTimeout
		}
	}
	return c.applyReadLocked()
}

// applyReadLocked gives the socket the owner's read deadline unless it has
// it. c.mu is held.
func (c *conn) applyReadLocked() error {
	if c.socketRead.Equal(c.readDeadline) {
		return nil
	}
	if err := c.Conn.SetReadDeadline(c.readDeadline); err != nil {
		return err
	}
	c.socketRead = c.readDeadline
	return nil
}

// setWriteLocked gives the socket a write deadline unless it has it: a
// Write may be under way, whose owner set it to end it. c.mu is held.
func (c *conn) setWriteLocked(t time.Time) error {
	if c.socketWrite.Equal(t) {
		return nil
	}
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	c.socketWrite = t
	return nil
}
