package bbr

// bwFilter is BBR.max_bw_filter (§5.5.3-§5.5.6): the highest delivery
// rate of the current ProbeBW cycle and of the previous one. Its time is
// BBR.cycle_count, so the draft's window of 2 needs just two slots.
type bwFilter struct {
	previous, current float64 // bytes per second
}

// update records a delivery rate sample of the current cycle.
func (f *bwFilter) update(sample float64) {
	f.current = max(f.current, sample)
}

// advance starts a new cycle (AdvanceMaxBwFilter), forgetting the oldest
// one; a cycle with no sample leaves the filter as it is, so the estimate
// survives cycles in which nothing was measured.
func (f *bwFilter) advance() {
	if f.current == 0 {
		return
	}
	f.previous, f.current = f.current, 0
}

// best is BBR.max_bw.
func (f *bwFilter) best() float64 {
	return max(f.previous, f.current)
}

// maxFilter tracks the maximum of a series over a window of rounds with
// Kathleen Nichols' algorithm (§5.5.5 cites it as KN_FILTER): the best,
// second-best and third-best samples of successive sub-windows, so it
// needs constant space and never rescans. BBR uses it for
// BBR.extra_acked_filter (§5.5.9).
type maxFilter struct {
	s [3]filterSample
}

type filterSample struct {
	value int64
	round uint64
}

func (f *maxFilter) reset(value int64, round uint64) {
	f.s[0] = filterSample{value, round}
	f.s[1], f.s[2] = f.s[0], f.s[0]
}

// update adds a sample taken in round and returns the maximum over the
// last window rounds.
func (f *maxFilter) update(value int64, round, window uint64) int64 {
	sample := filterSample{value, round}
	if value >= f.s[0].value || round-f.s[2].round > window {
		f.reset(value, round)
		return value
	}
	switch {
	case value >= f.s[1].value:
		f.s[1], f.s[2] = sample, sample
	case value >= f.s[2].value:
		f.s[2] = sample
	}
	// Expire the best sample when it leaves the window; keep a sample of
	// each later quarter and half of the window so a successor exists.
	age := round - f.s[0].round
	switch {
	case age > window:
		f.s[0], f.s[1], f.s[2] = f.s[1], f.s[2], sample
		if round-f.s[0].round > window {
			f.s[0], f.s[1], f.s[2] = f.s[1], f.s[2], sample
		}
	case f.s[1].round == f.s[0].round && age > window/4:
		f.s[1], f.s[2] = sample, sample
	case f.s[2].round == f.s[1].round && age > window/2:
		f.s[2] = sample
	}
	return f.s[0].value
}
