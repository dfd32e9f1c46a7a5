package bbr

import "testing"

func TestBwFilterKeepsTwoCycles(t *testing.T) {
	var f bwFilter
	f.update(100)
	f.advance()
	f.update(50)
	if got := f.best(); got != 100 {
		t.Errorf("best %v, want the previous cycle's 100", got)
	}
	f.advance()
	if got := f.best(); got != 50 {
		t.Errorf("best %v two cycles on, want 50", got)
	}
	f.advance() // a cycle without samples keeps the estimate
	if got := f.best(); got != 50 {
		t.Errorf("best %v after an empty cycle, want 50", got)
	}
}

func TestMaxFilterWindow(t *testing.T) {
	var f maxFilter
	f.reset(0, 0)
	for round, v := range []int64{5, 9, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2} {
		got := f.update(v, uint64(round), 10)
		want := int64(9)
		if round > 11 { // 9 was seen in round 1
			want = 3
		}
		if round < 1 {
			want = 5
		}
		if got != want {
			t.Errorf("round %d: max %d, want %d", round, got, want)
		}
	}
}
