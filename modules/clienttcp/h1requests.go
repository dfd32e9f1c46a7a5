package clienttcp

import (
	"bytes"
	"strconv"
)

// requestScanner finds the requests in what an HTTP/1.1 client sends, in
// the order the server reads it: a head (request line, header fields, an
// empty line) and its body, of Content-Length bytes or chunked (RFC 9112
// sections 2 to 7). It counts the heads that end, as the server then has
// a request to serve. It keeps at most maxKeptLine bytes of any line and
// skips bodies without looking at them: its cost does not grow with what
// a client sends.
//
// The scan stops at input the server refuses (a bad length or transfer
// coding: it answers 400 or 501 and closes), after a request the server
// closes after (Connection: close, HTTP/1.0 without keep-alive: what a
// client pipelines behind it is never served), and at a switch of
// protocols (a 101 response to Upgrade, a 2xx to CONNECT: what follows is
// no longer HTTP/1.1). A request is counted when the server reads it, so
// one pipelined behind others counts even if the client resets the
// connection before it is answered.
type requestScanner struct {
	state   scanState
	line    []byte // the current line's first bytes
	remain  int64  // body or chunk bytes still to come
	length  int64  // the head's Content-Length, -1 if none
	chunked bool
	upgrade bool   // the head asks to switch protocols (Upgrade)
	connect bool   // the head asks for a tunnel (CONNECT)
	last    bool   // the connection closes after this request
	held    []byte // what came while a switch was undecided
	// blank: empty lines came where a request line was awaited (which
	// net/http does not skip).
	blank bool
}

type scanState uint8

const (
	scanRequestLine scanState = iota
	scanHeader
	scanBody
	scanChunkSize
	scanChunkData
	scanChunkEnd // the CRLF after a chunk's data
	scanTrailer
	// scanSwitching: the head asked to switch protocols; the server's
	// response (see responded) says whether it did.
	scanSwitching
	scanStopped
)

const (
	// maxKeptLine is what a line may need to be understood: a method, a
	// Content-Length, a chunk size.
	maxKeptLine = 256
	// maxHeld bounds what a client sends before the server has answered
	// its Upgrade: a client that asks to switch waits for the answer.
	maxHeld = 4 << 10
)

// feed scans p, the next bytes the server read, and returns how many
// request heads ended in it.
func (s *requestScanner) feed(p []byte) (heads int) {
	for len(p) > 0 {
		switch s.state {
		case scanStopped:
			return heads
		case scanSwitching:
			if len(s.held)+len(p) > maxHeld {
				s.stop()
				return heads
			}
			s.held = append(s.held, p...)
			return heads
		case scanBody, scanChunkData:
			k := min(int64(len(p)), s.remain)
			s.remain -= k
			p = p[k:]
			if s.remain == 0 {
				if s.state == scanBody {
					s.state = scanRequestLine
				} else {
					s.state = scanChunkEnd
				}
			}
			continue
		}
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if room := maxKeptLine - len(s.line); room > 0 {
			s.line = append(s.line, part[:min(room, len(part))]...)
		}
		if i < 0 {
			return heads
		}
		p = p[i+1:]
		if s.endLine(bytes.TrimSuffix(s.line, []byte("\r"))) {
			heads++
		}
		s.line = s.line[:0]
	}
	return heads
}

// endLine takes the line that just ended, and reports whether it ended a
// request head.
func (s *requestScanner) endLine(line []byte) bool {
	switch s.state {
	case scanRequestLine:
		if len(line) == 0 {
			// Empty lines before a request line are tolerated.
			s.blank = true
			return false
		}
		method, _, _ := bytes.Cut(line, []byte(" "))
		*s = requestScanner{state: scanHeader, line: s.line, length: -1, connect: string(method) == "CONNECT",
			last: bytes.HasSuffix(line, []byte(" HTTP/1.0"))}
	case scanHeader:
		if len(line) == 0 {
			s.endHead()
			return true
		}
		s.header(line)
	case scanChunkSize:
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		switch {
		case err != nil || n < 0:
			s.stop()
		case n == 0:
			s.state = scanTrailer
		default:
			s.state, s.remain = scanChunkData, n
		}
	case scanChunkEnd:
		if len(line) != 0 {
			s.stop()
			return false
		}
		s.state = scanChunkSize
	case scanTrailer:
		if len(line) == 0 {
			s.state = scanRequestLine
		}
	}
	return false
}

// header takes one header field line of a head.
func (s *requestScanner) header(line []byte) {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return
	}
	// The four names that matter are of four lengths: one comparison a
	// field, on every request's every field.
	var known string
	switch len(name) {
	case len("Content-Length"):
		known = "Content-Length"
	case len("Transfer-Encoding"):
		known = "Transfer-Encoding"
	case len("Upgrade"):
		known = "Upgrade"
	case len("Connection"):
		known = "Connection"
	}
	if known == "" || !bytes.EqualFold(name, []byte(known)) {
		return
	}
	value = bytes.Trim(value, " \t")
	switch known {
	case "Content-Length":
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 || (s.length >= 0 && n != s.length) {
			s.stop()
			return
		}
		s.length = n
	case "Transfer-Encoding":
		if !bytes.EqualFold(value, []byte("chunked")) {
			s.stop()
			return
		}
		s.chunked = true
	case "Upgrade":
		s.upgrade = true
	case "Connection":
		for opt := range bytes.SplitSeq(value, []byte(",")) {
			switch opt = bytes.TrimSpace(opt); {
			case bytes.EqualFold(opt, []byte("close")):
				s.last = true
			case bytes.EqualFold(opt, []byte("keep-alive")):
				s.last = false
			}
		}
	}
}

// endHead moves past the head that just ended: to the server's answer
// if it asked to switch protocols, else to its body.
func (s *requestScanner) endHead() {
	if s.last {
		s.stop()
		return
	}
	if s.upgrade || s.connect {
		s.state = scanSwitching
		return
	}
	s.toBody()
}

// toBody moves to the body of the head that ended last.
func (s *requestScanner) toBody() {
	switch {
	case s.chunked:
		s.state = scanChunkSize
	case s.length > 0:
		s.state, s.remain = scanBody, s.length
	default:
		s.state = scanRequestLine
	}
}

// responded takes the first bytes of a write of the server's, and
// returns how many request heads ended in what a switch that did not
// happen had held back.
func (s *requestScanner) responded(p []byte) (heads int) {
	if s.state != scanSwitching {
		return 0
	}
	status, ok := statusCode(p)
	switch {
	case !ok:
		return 0 // the end of an earlier response
	case status == 101 || (s.connect && status/100 == 2):
		s.stop()
		return 0
	case status < 200:
		return 0 // 100 Continue, 103 Early Hints: the answer is to come
	}
	held := s.held
	s.held = nil
	s.toBody()
	return s.feed(held)
}

// statusCode reads the status code of a response's status line at the
// start of p.
func statusCode(p []byte) (int, bool) {
	const prefix = len("HTTP/1.1 ")
	if len(p) < prefix+3 || !bytes.HasPrefix(p, []byte("HTTP/1.")) || p[prefix-1] != ' ' {
		return 0, false
	}
	n, err := strconv.Atoi(string(p[prefix : prefix+3]))
	return n, err == nil
}

// atRest reports whether what was scanned ends with a request: no part
// of another is held.
func (s *requestScanner) atRest() bool {
	return s.state == scanRequestLine && len(s.line) == 0 && !s.blank
}

func (s *requestScanner) stop() {
	*s = requestScanner{state: scanStopped}
}
