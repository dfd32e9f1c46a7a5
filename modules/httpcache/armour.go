package httpcache

import (
	"mime"
	"path"
	"slices"
	"strings"
)

// The deception armour: a response the edge would store on a guess
// (heuristic freshness, micro-caching) is not stored when the URL's path
// names a static type and the response is of another type. A page at
// /account/x.css is a page a framework served for a path it ignored the
// end of, not a style sheet, whoever asked for it.

// staticTypes are the media types each static extension may be served as.
// Fonts are often served as application/octet-stream.
var staticTypes = map[string][]string{
	".css":   {"text/css"},
	".js":    jsTypes,
	".mjs":   jsTypes,
	".map":   {"application/json", "application/octet-stream"},
	".png":   {"image/png"},
	".apng":  {"image/apng", "image/png"},
	".jpg":   {"image/jpeg"},
	".jpeg":  {"image/jpeg"},
	".gif":   {"image/gif"},
	".svg":   {"image/svg+xml"},
	".webp":  {"image/webp"},
	".avif":  {"image/avif"},
	".ico":   {"image/x-icon", "image/vnd.microsoft.icon"},
	".woff":  {"font/woff", "application/font-woff", "application/octet-stream"},
	".woff2": {"font/woff2", "application/font-woff2", "application/octet-stream"},
	".ttf":   {"font/ttf", "font/sfnt", "application/x-font-ttf", "application/octet-stream"},
	".otf":   {"font/otf", "font/sfnt", "application/x-font-opentype", "application/octet-stream"},
	".eot":   {"application/vnd.ms-fontobject"},
	".wasm":  {"application/wasm"},
	".mp4":   {"video/mp4"},
	".webm":  {"video/webm", "audio/webm"},
	".mp3":   {"audio/mpeg"},
	".pdf":   {"application/pdf"},
}

var jsTypes = []string{"text/javascript", "application/javascript", "application/x-javascript", "application/ecmascript", "text/ecmascript"}

// staticExtension is the lower-cased extension of the decoded path's last
// segment if it names a static type, else "". The decoded path is the one
// that matters: /account%2Fx.css ends in x.css for a framework that
// decodes it.
func staticExtension(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if _, ok := staticTypes[ext]; ok {
		return ext
	}
	return ""
}

// armourAllows reports whether a response with this Content-Type may be
// stored for a path with the static extension ext ("" allows anything).
func armourAllows(ext, contentType string) bool {
	if ext == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && slices.Contains(staticTypes[ext], mt)
}

func (h *Handler) armourOn() bool { return h.DeceptionArmour == nil || *h.DeceptionArmour }
