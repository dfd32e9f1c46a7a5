package rum

import (
	"errors"
	"net/http"
)

// client labels a beacon besides its own fields: the browser, device and
// region of the request that carried it (the POST, or the CONNECT of the
// WebTransport session), each from a closed set.
type client struct {
	browser, device, region string
}

// clientOf labels r's client; regionHeader names the header a geo lookup
// in front of the edge sets, and regions the values kept as labels.
func clientOf(r *http.Request, regionHeader string, regions []string) client {
	ua := r.Header.Get("User-Agent")
	c := client{browser: browserLabel(ua), device: deviceLabel(ua, r.Header.Get("Sec-Ch-Ua-Mobile"))}
	var region string
	if regionHeader != "" {
		region = r.Header.Get(regionHeader)
	}
	c.region = regionLabel(region, regions)
	return c
}

// take is what both transports do with a beacon: decode it strictly, then
// count it, observe it and write it to the raw sink (if any). It returns
// the reason a beacon was refused, or "" if it was taken; the caller
// counts refusals, with its own.
func take(data []byte, transport string, c client, sk *sink) (refused string) {
	b, err := decodeBeacon(data)
	if err != nil {
		var de *decodeError
		if !errors.As(err, &de) {
			return "malformed"
		}
		return de.Reason
	}
	metrics.beacons.WithLabelValues(transport).Inc()
	observe(b, c)
	if sk != nil {
		sk.write(data, c, transport)
	}
	return ""
}
