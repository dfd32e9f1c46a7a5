package httpcache

import "strings"

// surrogateToken names this cache to origins in Surrogate-Capability, and
// in Surrogate-Control directives targeted at it (W3C Edge Architecture
// Specification 1.0): "max-age=60;lastmile" is for this edge, a directive
// targeted at another surrogate is not.
const surrogateToken = "lastmile"

// surrogateCapability is the Surrogate-Capability this cache sends the
// origin: the base capability only (no ESI).
const surrogateCapability = surrogateToken + `="Surrogate/1.0"`

// parseSurrogateControl parses Surrogate-Control, keeping the directives
// for every surrogate and those targeted at this one; ok is false when none
// is for this cache, which then follows Cache-Control.
func parseSurrogateControl(lines []string) (d directives, ok bool) {
	var mine []string
	for _, line := range lines {
		for len(line) > 0 {
			var item string
			item, line = nextListItem(line)
			if directive, target, ok := cutTarget(item); ok {
				if !strings.EqualFold(strings.TrimSpace(target), surrogateToken) {
					continue
				}
				item = directive
			}
			mine = append(mine, item)
		}
	}
	return parseCacheControl([]string{strings.Join(mine, ",")}), len(mine) > 0
}

// cutTarget splits "directive;target" at a semicolon outside quotes.
func cutTarget(item string) (directive, target string, ok bool) {
	inQuote := false
	for i := 0; i < len(item); i++ {
		switch item[i] {
		case '"':
			inQuote = !inQuote
		case ';':
			if !inQuote {
				return item[:i], item[i+1:], true
			}
		}
	}
	return item, "", false
}
