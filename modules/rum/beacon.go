// Package rum is the edge side of lastmile's real-user timing: it serves
// the web-client snippet, injects it into HTML, collects its beacons over
// HTTP and WebTransport datagrams, and turns them into Prometheus metrics
// with bounded label sets.
package rum

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// beaconVersion is the schema web-client/src/measure.ts sends.
const beaconVersion = 1

// maxBeaconBytes bounds a beacon: a real one is well under 2 KB.
const maxBeaconBytes = 8 << 10

// beacon is what the snippet sends, field for field (see measure.ts).
type beacon struct {
	V  int                   `json:"v"`
	U  string                `json:"u"`
	NT string                `json:"nt"`
	P  string                `json:"p"`
	CR int                   `json:"cr"`
	T  [8]float64            `json:"t"`
	SZ [2]float64            `json:"sz"`
	WV [5]float64            `json:"wv"`
	R  map[string][3]float64 `json:"r"`
	RP map[string][3]float64 `json:"rp"`
	SL [][3]any              `json:"sl"`
	RC map[string]float64    `json:"rc"`
	E  [3]any                `json:"e"`
}

// Timing indexes into beacon.T.
const (
	tRedirect = iota
	tDNS
	tConnect
	tTLS
	tTTFB
	tResponse
	tDOMInteractive
	tLoad
)

// Web vital indexes into beacon.WV.
const (
	wvLCP = iota
	wvINP
	wvCLS
	wvFCP
	wvTTFB
)

// decodeError says why a beacon was refused; Reason labels the counter.
type decodeError struct {
	Reason string
	Err    error
}

func (e *decodeError) Error() string { return "rum: " + e.Reason + ": " + e.Err.Error() }
func (e *decodeError) Unwrap() error { return e.Err }

func reject(reason, format string, args ...any) error {
	return &decodeError{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// Bounds on what a real page view can report.
const (
	maxMs        = 10 * 60 * 1000 // ten minutes
	maxBytes     = 1 << 40
	maxMapKeys   = 32
	maxSlowest   = 20
	maxStringLen = 256
)

// decodeBeacon parses and checks one beacon strictly: size, schema (no
// unknown fields, no trailing data), version and value ranges.
func decodeBeacon(data []byte) (*beacon, error) {
	if len(data) > maxBeaconBytes {
		return nil, reject("too_large", "%d bytes, limit %d", len(data), maxBeaconBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b beacon
	if err := dec.Decode(&b); err != nil {
		return nil, reject("malformed", "%v", err)
	}
	if dec.More() {
		return nil, reject("malformed", "data after the beacon")
	}
	if err := b.validate(); err != nil {
		return nil, err
	}
	return &b, nil
}

func (b *beacon) validate() error {
	if b.V != beaconVersion {
		return reject("version", "version %d, want %d", b.V, beaconVersion)
	}
	for _, s := range []string{b.U, b.NT, b.P} {
		if len(s) > maxStringLen {
			return reject("range", "string of %d bytes", len(s))
		}
	}
	if b.CR != 0 && b.CR != 1 {
		return reject("range", "cr %d", b.CR)
	}
	for i, v := range b.T {
		if !inRange(v, -1, maxMs) {
			return reject("range", "timing %d = %v", i, v)
		}
	}
	if b.T[tTTFB] < 0 {
		return reject("range", "no time to first byte")
	}
	for _, v := range b.SZ {
		if !inRange(v, 0, maxBytes) {
			return reject("range", "size %v", v)
		}
	}
	for i, v := range b.WV {
		limit := float64(maxMs)
		if i == wvCLS {
			limit = 100
		}
		if !inRange(v, -1, limit) {
			return reject("range", "web vital %d = %v", i, v)
		}
	}
	if len(b.R) > maxMapKeys || len(b.RP) > maxMapKeys || len(b.RC) > maxMapKeys || len(b.SL) > maxSlowest {
		return reject("range", "too many entries")
	}
	for _, m := range []map[string][3]float64{b.R, b.RP} {
		for k, s := range m {
			if len(k) > maxStringLen || !inRange(s[0], 0, 1e5) || !inRange(s[1], 0, maxBytes) || !inRange(s[2], 0, 1e9) {
				return reject("range", "resource summary %q", k)
			}
		}
	}
	for k, n := range b.RC {
		if len(k) > maxStringLen || !inRange(n, 0, 1e5) {
			return reject("range", "cache count %q", k)
		}
	}
	for _, sl := range b.SL {
		name, ok1 := sl[0].(string)
		d, ok2 := sl[1].(float64)
		kind, ok3 := sl[2].(string)
		if !ok1 || !ok2 || !ok3 || len(name) > maxStringLen || len(kind) > maxStringLen || !inRange(d, 0, maxMs) {
			return reject("schema", "slowest entry %v", sl)
		}
	}
	cache, ok1 := b.E[0].(string)
	edge, ok2 := b.E[1].(float64)
	origin, ok3 := b.E[2].(float64)
	if !ok1 || !ok2 || !ok3 || len(cache) > 32 || !inRange(edge, -1, maxMs) || !inRange(origin, -1, maxMs) {
		return reject("schema", "edge timing %v", b.E)
	}
	return nil
}

func inRange(v, lo, hi float64) bool {
	return !math.IsNaN(v) && v >= lo && v <= hi
}

// edge returns the beacon's edge view: cache outcome, edge ms, origin ms.
func (b *beacon) edge() (string, float64, float64) {
	c, _ := b.E[0].(string)
	e, _ := b.E[1].(float64)
	o, _ := b.E[2].(float64)
	return c, e, o
}
