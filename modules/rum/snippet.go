package rum

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
)

// snippet is web-client's minified <script> build, which web-client's
// build writes here (go:embed cannot reach outside the package);
// make web-test rebuilds it and fails if the committed file differs from
// the source.
//
//go:embed lastmile-rum.min.js
var snippet []byte

// snippetVersion names the snippet by its content, so its URL can be
// cached forever.
var snippetVersion = func() string {
	sum := sha256.Sum256(snippet)
	return hex.EncodeToString(sum[:6])
}()
