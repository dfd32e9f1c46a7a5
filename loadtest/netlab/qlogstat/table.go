package qlogstat

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// WritePages writes one trace's pages as a Markdown table: per page its
// duration, its window and the controller's model at its start, its
// losses and probe timeouts, the time it spent in each controller state,
// and what it put on the wire; with a link rate (bits per second; 0: none)
// also the time a bottleneck of that rate needs for the page's packets and
// how long of it the bottleneck stood idle (Page.LinkTime). Volumes are in
// KB, rates in Mbit/s.
func WritePages(w io.Writer, pages []Page, rateBitsPerSec float64) error {
	if _, err := fmt.Fprintln(w, "| page | ms | cwnd KB | state at start | max_bw | bw_shortterm | min_rtt ms | inflight_hi KB | inflight_lo KB | lost | PTOs | ms per state | packets | wire KB | sent again KB | link ms / idle ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"); err != nil {
		return err
	}
	for _, p := range pages {
		m := p.ModelAtStart
		lost := 0
		for _, n := range p.Lost {
			lost += n
		}
		link := "-"
		if rateBitsPerSec > 0 {
			busy, idle := p.LinkTime(rateBitsPerSec)
			link = fmt.Sprintf("%.0f / %.0f", ms(busy), ms(idle))
		}
		if _, err := fmt.Fprintf(w, "| %d | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %d | %d | %s | %d | %.1f | %.1f | %s |\n",
			p.Index, ms(p.Duration), kb(p.CwndAtStart), m.State, mbits(m.MaxBw), mbits(m.BwShortterm), rtt(m.MinRTT),
			kbOrUnset(m.InflightHi), kbOrUnset(m.InflightLo), lost, p.PTOs, stateTimes(p.StateTime),
			p.Packets, kb(p.WireBytes), kb(p.SentAgainBytes), link); err != nil {
			return err
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func kb(v int64) float64 { return float64(v) / 1000 }

func kbOrUnset(v int64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", kb(v))
}

func mbits(bytesPerSecond int64) string {
	if bytesPerSecond == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(bytesPerSecond)*8/1e6)
}

func rtt(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", ms(d))
}

// stateTimes lists the states by name with their milliseconds.
func stateTimes(st map[string]time.Duration) string {
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(st)) {
		parts = append(parts, fmt.Sprintf("%s %.0f", s, ms(st[s])))
	}
	return strings.Join(parts, ", ")
}
