package httpcache

import "testing"

// Accept-Language is keyed case-insensitively (language tags are, RFC
// 5646 section 2.1.1) but in order: an origin may rank languages of equal
// quality by it (RFC 9110 section 12.5.4).
func TestVaryAcceptLanguageCase(t *testing.T) {
	o := newOrigin(t)
	o.respond("/l", 200, "Cache-Control", "max-age=60", "Vary", "Accept-Language")
	e := startCache(t, o, "")
	e.get(t, "/l", "Accept-Language", "en, de")
	wantHit(t, e.get(t, "/l", "Accept-Language", "eN, De"))
	wantMiss(t, e.get(t, "/l", "Accept-Language", "de, en"))
}
