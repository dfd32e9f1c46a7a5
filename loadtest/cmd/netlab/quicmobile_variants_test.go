//go:build linux

package main

import (
	"slices"
	"strings"
	"testing"
)

// -variants selects variants by name, in quic-mobile's own order whatever
// the order given; empty is all six.
func TestQuicMobileVariantsSelected(t *testing.T) {
	all, err := parseQuicMobileVariants("")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"h2-cold", "h3-bbr-cold", "h2-kept", "h3-bbr-kept", "h3-reno-cold", "h3-reno-kept"}
	if got := flagNames(all); !slices.Equal(got, want) {
		t.Fatalf("all variants: got %v, want %v", got, want)
	}
	vs, err := parseQuicMobileVariants("h3-bbr-kept, h2-kept")
	if err != nil {
		t.Fatal(err)
	}
	if got := flagNames(vs); !slices.Equal(got, []string{"h2-kept", "h3-bbr-kept"}) {
		t.Fatalf("got %v", got)
	}
	if usesController(vs, "reno") || !usesController(vs, "bbr") {
		t.Fatal("only the bbr edge is needed for h2-kept and h3-bbr-kept")
	}
}

// An unknown name is refused with the names that exist.
func TestQuicMobileVariantsUnknownRefused(t *testing.T) {
	for _, s := range []string{"h3-kept", "h2-bbr-kept", ",", "h2-kept,"} {
		_, err := parseQuicMobileVariants(s)
		if err == nil || !strings.Contains(err.Error(), "h3-reno-cold") {
			t.Errorf("%q: got %v, want an error listing the known variants", s, err)
		}
	}
}
