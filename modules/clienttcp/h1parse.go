package clienttcp

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
)

// A request client_tcp answers itself (h1hits.go) is one whose meaning is
// plain: every reader, net/http included, parses it the same way, so
// answering it here or there cannot differ. parseSimple accepts only
//
//	GET|HEAD SP origin-form SP HTTP/1.1 CRLF
//	*( token ":" OWS value OWS CRLF )
//	CRLF
//
// complete in the bytes at hand, of printable ASCII (and HTAB in values),
// every line ended by CRLF, with exactly one Host of host-name characters,
// each field name once, and none of the fields that give a request a body,
// a framing, an upgrade, an end of the connection or a rewrite in net/http
// (Content-Length, Transfer-Encoding, Expect, Upgrade, Trailer, Pragma,
// Connection other than keep-alive). Anything else, and any doubt, is
// net/http's (FuzzParseSimple compares the two).

// simpleRequest is a parsed request, reused from request to request.
type simpleRequest struct {
	req  *http.Request
	url  url.URL
	hdr  http.Header
	vals []string // backing of hdr's values, one per field
}

// parseSimple parses the simple request at the start of p into q and
// returns its length, or 0 if p does not start with a complete simple
// request.
func (q *simpleRequest) parseSimple(p []byte) int {
	end := bytes.Index(p, []byte("\r\n\r\n"))
	if end < 0 {
		return 0
	}
	n := end + 4
	if !plainHead(p[:n]) {
		return 0
	}
	head := string(p[:end+2]) // the lines, each with its CRLF; one allocation
	line, rest, _ := strings.Cut(head, "\r\n")
	var method string
	switch {
	case strings.HasPrefix(line, "GET "):
		method, line = http.MethodGet, line[len("GET "):]
	case strings.HasPrefix(line, "HEAD "):
		method, line = http.MethodHead, line[len("HEAD "):]
	default:
		return 0
	}
	target, proto, ok := strings.Cut(line, " ")
	if !ok || proto != "HTTP/1.1" || !q.parseTarget(target) {
		return 0
	}
	clear(q.hdr)
	q.vals = q.vals[:0]
	host, hosts := "", 0
	for rest != "" {
		line, rest, _ = strings.Cut(rest, "\r\n")
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) {
			return 0 // also a line that starts with SP or HTAB: obs-fold
		}
		value = strings.Trim(value, " \t")
		key := name
		if !canonical(name) {
			key = http.CanonicalHeaderKey(name)
		}
		switch key {
		case "Host":
			host, hosts = value, hosts+1
			continue
		case "Content-Length", "Transfer-Encoding", "Expect", "Upgrade", "Trailer", "Pragma":
			return 0
		case "Connection":
			if !strings.EqualFold(value, "keep-alive") {
				return 0
			}
		}
		if _, dup := q.hdr[key]; dup {
			return 0
		}
		q.vals = append(q.vals, value)
		q.hdr[key] = q.vals[len(q.vals)-1 : len(q.vals) : len(q.vals)]
	}
	if hosts != 1 || !plainHost(host) {
		return 0
	}
	r := q.req
	r.Method, r.URL, r.Host, r.RequestURI = method, &q.url, host, target
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	r.Header, r.Body, r.ContentLength, r.Close = q.hdr, http.NoBody, 0, false
	return n
}

// plainHead reports whether head is printable ASCII with HTAB, its CRs and
// LFs only in CRLF pairs.
func plainHead(head []byte) bool {
	for i, b := range head {
		switch {
		case b >= 0x20 && b < 0x7f, b == '\t':
		case b == '\r':
			if i+1 >= len(head) || head[i+1] != '\n' {
				return false
			}
		case b == '\n':
			if i == 0 || head[i-1] != '\r' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// parseTarget sets q.url from an origin-form target as url.ParseRequestURI
// does; targets whose path it would rewrite or unescape take
// ParseRequestURI itself.
func (q *simpleRequest) parseTarget(target string) bool {
	if target == "" || target[0] != '/' || strings.ContainsAny(target, "#") {
		return false
	}
	path, query, hasQuery := strings.Cut(target, "?")
	if !(hasQuery && query == "") && pathAsIs(path) {
		q.url = url.URL{Path: path, RawQuery: query}
		return true
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return false
	}
	q.url = *u
	return true
}

// pathAsIs reports whether url.URL keeps path as it is: no escapes, and
// no byte it would escape (so RawPath stays empty).
func pathAsIs(path string) bool { return allIn(path, &pathByte) }

func isToken(s string) bool { return s != "" && allIn(s, &tokenByte) }

func plainHost(s string) bool { return s != "" && allIn(s, &hostByte) }

// allIn reports whether every byte of s is in set.
func allIn(s string, set *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		if !set[s[i]] {
			return false
		}
	}
	return true
}

var pathByte = byteSet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~$&+,/:;=@")

// tokenByte: RFC 9110's tchar, the bytes of a field name.
var tokenByte = byteSet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")

// hostByte: a host name, IPv4 or bracketed IPv6 address, and port.
var hostByte = byteSet("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.:[]")

func byteSet(s string) (set [256]bool) {
	for i := 0; i < len(s); i++ {
		set[s[i]] = true
	}
	return set
}

// canonical reports whether the token name is in net/http's canonical
// form: upper case first and after each hyphen, lower case elsewhere.
func canonical(name string) bool {
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case upper && 'a' <= c && c <= 'z', !upper && 'A' <= c && c <= 'Z':
			return false
		}
		upper = c == '-'
	}
	return true
}
