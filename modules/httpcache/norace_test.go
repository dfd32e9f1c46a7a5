//go:build !race

package httpcache

const raceEnabled = false
