package testcaddy

import (
	"testing"
	"time"
)

// Eventually polls cond until it holds, failing t with what after within:
// for state that a server reaches in the background, such as a session's
// end or a freed limit.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
