package cdnloop

import (
	"strings"

	"golang.org/x/net/http/httpguts"
)

// listsNode reports whether the CDN-Loop field lines hold a member with
// cdn-id cdnID (case-insensitive, as host names and our pseudonym are)
// and a node parameter equal to node (RFC 8586 section 2:
// cdn-info = cdn-id *( OWS ";" OWS parameter )). The scan is linear in
// the field's size and never fails: what does not parse matches nothing.
func listsNode(lines []string, cdnID, node string) bool {
	for _, line := range lines {
		for _, member := range splitQuoted(line, ',') {
			params := splitQuoted(member, ';')
			if !strings.EqualFold(strings.TrimSpace(params[0]), cdnID) {
				continue
			}
			for _, p := range params[1:] {
				name, value, ok := strings.Cut(p, "=")
				if ok && strings.EqualFold(strings.TrimSpace(name), "node") && unquote(strings.TrimSpace(value)) == node {
					return true
				}
			}
		}
	}
	return false
}

// splitQuoted splits s at sep outside quoted strings (whose backslash
// escapes it honours); an unterminated quote runs to the end.
func splitQuoted(s string, sep byte) []string {
	var parts []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// unquote returns a parameter value: a token as it is, a quoted string
// without its quotes and escapes.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		if v[i] == '\\' && i+1 < len(v)-1 {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// isToken reports whether s is an RFC 9110 token (a field name is one).
func isToken(s string) bool { return httpguts.ValidHeaderFieldName(s) }

// validCDNID reports whether s is a pseudonym (a token) or host[:port],
// with the port's digits.
func validCDNID(s string) bool {
	host, port, hasPort := strings.Cut(s, ":")
	if !hasPort {
		return isToken(s)
	}
	if port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return false
	}
	return isToken(host)
}
