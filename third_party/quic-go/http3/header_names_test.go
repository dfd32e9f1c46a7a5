package http3

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLowerHeaderName(t *testing.T) {
	for canonical, lower := range lowerResponseHeaderNames {
		require.Equal(t, http.CanonicalHeaderKey(canonical), canonical, "the table's keys are canonical")
		require.Equal(t, strings.ToLower(canonical), lower)
	}
	require.Equal(t, "cache-status", lowerHeaderName("Cache-Status"))
	require.Equal(t, "x-unlisted-field", lowerHeaderName("X-Unlisted-Field"))
	require.Equal(t, "x-unlisted-field", lowerHeaderName("x-Unlisted-FIELD"))
	require.Zero(t, testing.AllocsPerRun(10, func() { lowerHeaderName("Content-Type") }))
}

func TestCanonicalHeaderName(t *testing.T) {
	for lower, canonical := range canonicalHeaderNames {
		require.Equal(t, http.CanonicalHeaderKey(lower), canonical)
	}
	require.Equal(t, "User-Agent", canonicalHeaderName("user-agent"))
	require.Equal(t, "X-Unlisted-Field", canonicalHeaderName("x-unlisted-field"))
	require.Zero(t, testing.AllocsPerRun(10, func() { canonicalHeaderName("accept-encoding") }))
}
