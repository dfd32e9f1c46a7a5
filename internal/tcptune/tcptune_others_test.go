//go:build !linux

package tcptune

import (
	"errors"
	"strings"
	"testing"
)

// The default keeps the system's congestion control with the reason for
// the caller's warning; a named one is a configuration error; sockets are
// left as they are.
func TestUntunedOutsideLinux(t *testing.T) {
	if cc, err := ChooseCongestion(""); cc != "" || !errors.Is(err, ErrNoBBR) || !strings.Contains(err.Error(), "Linux only") {
		t.Errorf(`ChooseCongestion(""): %q, %v; want "", ErrNoBBR saying why`, cc, err)
	}
	if _, err := ChooseCongestion("cubic"); err == nil {
		t.Error(`ChooseCongestion("cubic"): no error`)
	}
	if err := (Options{Congestion: "cubic", NotsentLowat: 1}).Apply(0); err != nil {
		t.Errorf("Apply: %v", err)
	}
}
