package rum

import (
	"slices"
	"strings"
)

// Every label value comes from a closed set, so hostile beacons cannot
// grow the series count: anything unknown is "other".

func protocolLabel(p string) string {
	switch p {
	case "h3", "h3-29":
		return "h3"
	case "h2":
		return "h2"
	case "http/1.1", "http/1.0":
		return "h1"
	}
	return "other"
}

func cacheLabel(c string) string {
	switch c {
	case "hit", "stale", "revalidated", "miss", "bypass":
		return c
	case "":
		return "none"
	}
	return "other"
}

func navLabel(nt string) string {
	switch nt {
	case "navigate", "reload", "back_forward", "prerender":
		return nt
	}
	return "other"
}

func connLabel(reused int) string {
	if reused == 1 {
		return "reused"
	}
	return "new"
}

// browserLabel is the browser family from a User-Agent. Hand-written
// because five families need a few substring checks, where a UA parsing
// library would bring a regex database to the request path.
func browserLabel(ua string) string {
	switch {
	case strings.Contains(ua, "Edg/"):
		return "edge"
	case strings.Contains(ua, "Firefox/"):
		return "firefox"
	case strings.Contains(ua, "Chrome/") || strings.Contains(ua, "Chromium/") || strings.Contains(ua, "CriOS/"):
		return "chrome"
	case strings.Contains(ua, "Safari/"):
		return "safari"
	}
	return "other"
}

// deviceLabel prefers the Sec-CH-UA-Mobile client hint, then the UA.
func deviceLabel(ua, chMobile string) string {
	switch {
	case strings.Contains(ua, "iPad") || (strings.Contains(ua, "Android") && !strings.Contains(ua, "Mobile")):
		return "tablet"
	case chMobile == "?1" || strings.Contains(ua, "Mobile") || strings.Contains(ua, "iPhone"):
		return "mobile"
	}
	return "desktop"
}

// regionLabel keeps configured regions; others are "other", absent "unknown".
func regionLabel(v string, allowed []string) string {
	switch {
	case v == "":
		return "unknown"
	case slices.Contains(allowed, v):
		return v
	}
	return "other"
}
