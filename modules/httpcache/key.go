package httpcache

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// KeyConfig says what, besides method, scheme, host, path and query,
// tells cached responses apart.
type KeyConfig struct {
	// IgnoreQuery lists query parameters left out of the key (tracking
	// parameters such as utm_source).
	IgnoreQuery []string `json:"ignore_query,omitempty"`
	// SortQuery orders query parameters, so ?a=1&b=2 and ?b=2&a=1 share.
	SortQuery bool `json:"sort_query,omitempty"`
	// Headers adds request header values to the key.
	Headers []string `json:"headers,omitempty"`
	// Cookies adds request cookie values to the key.
	Cookies []string `json:"cookies,omitempty"`
}

// keyBuilder writes key parts length-prefixed, so no part can run into the
// next: the key is never ambiguous, and never truncated.
type keyBuilder struct{ strings.Builder }

func (b *keyBuilder) part(s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

// primaryKey is method + scheme + host + path + query (+ configured parts).
// HEAD shares GET's key, so a stored GET answers it.
func (k *KeyConfig) primaryKey(r *http.Request) string {
	var b keyBuilder
	b.Grow(64 + len(r.Host) + len(r.URL.RawPath) + len(r.URL.Path) + len(r.URL.RawQuery))
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	b.part(method)
	if r.TLS != nil {
		b.part("https")
	} else {
		b.part("http")
	}
	b.part(strings.ToLower(r.Host))
	b.part(r.URL.EscapedPath())
	b.part(k.query(r.URL.RawQuery))
	for _, h := range k.Headers {
		b.part(strings.Join(r.Header.Values(h), ","))
	}
	for _, name := range k.Cookies {
		v := ""
		if c, err := r.Cookie(name); err == nil {
			v = c.Value
		}
		b.part(v)
	}
	return b.String()
}

func (k *KeyConfig) query(raw string) string {
	if raw == "" || (len(k.IgnoreQuery) == 0 && !k.SortQuery) {
		return raw
	}
	parts := strings.Split(raw, "&")
	kept := parts[:0]
	for _, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil && slices.Contains(k.IgnoreQuery, n) {
			continue
		}
		kept = append(kept, p)
	}
	if k.SortQuery {
		slices.Sort(kept)
	}
	return strings.Join(kept, "&")
}

// variantKey appends the request's normalised values of the fields a
// response varies on (RFC 9111 section 4.1).
func variantKey(primary string, names []string, r *http.Request) string {
	if len(names) == 0 {
		return primary
	}
	var b keyBuilder
	b.WriteString(primary)
	b.WriteString("|v")
	for _, n := range names {
		b.part(n)
		b.part(normalizeField(n, r.Header.Values(n)))
	}
	return b.String()
}

// normalizeField folds the whitespace and list formatting that do not
// change a field's meaning; Accept-Encoding is also lower-cased and
// sorted, since its order carries no preference, and Accept-Language
// lower-cased (language tags are case-insensitive, RFC 5646 section
// 2.1.1) but not sorted: its order may rank languages of equal qvalue
// (RFC 9110 section 12.5.4).
func normalizeField(name string, lines []string) string {
	var items []string
	for _, line := range lines {
		for _, item := range strings.Split(line, ",") {
			item = strings.Join(strings.Fields(item), " ")
			item = strings.ReplaceAll(item, " ;", ";")
			item = strings.ReplaceAll(item, "; ", ";")
			if item != "" {
				items = append(items, item)
			}
		}
	}
	if name == "accept-encoding" || name == "accept-language" {
		for i := range items {
			items[i] = strings.ToLower(items[i])
		}
	}
	if name == "accept-encoding" {
		slices.Sort(items)
	}
	return strings.Join(items, ",")
}
