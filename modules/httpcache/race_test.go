//go:build race

package httpcache

// raceEnabled: the race detector's shadow memory makes RSS no measure of
// the edge's.
const raceEnabled = true
