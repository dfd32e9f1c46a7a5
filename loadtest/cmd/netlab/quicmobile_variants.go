//go:build linux

package main

import (
	"fmt"
	"slices"
	"strings"
)

// quicMobileVariant is one of quic-mobile's variants: a protocol, the
// edge's QUIC controller (HTTP/3 only) and a connection mode.
type quicMobileVariant struct {
	proto, quicCC, mode string
}

// flagName is the variant's name in -variants: h2-kept, h3-bbr-kept, ...
func (v quicMobileVariant) flagName() string {
	if v.proto == "h2" {
		return v.proto + "-" + v.mode
	}
	return v.proto + "-" + v.quicCC + "-" + v.mode
}

// quicMobileVariants lists every variant in the order quic-mobile runs
// them: per controller (one edge each), cold then kept, HTTP/2 then
// HTTP/3. HTTP/2 does not use the QUIC controller: it is measured once,
// on the first controller's edge.
func quicMobileVariants() []quicMobileVariant {
	var vs []quicMobileVariant
	for _, quicCC := range quicControllers {
		for _, mode := range []string{"cold", "kept"} {
			if quicCC == quicControllers[0] {
				vs = append(vs, quicMobileVariant{proto: "h2", quicCC: quicCC, mode: mode})
			}
			vs = append(vs, quicMobileVariant{proto: "h3", quicCC: quicCC, mode: mode})
		}
	}
	return vs
}

// parseQuicMobileVariants reads -variants: comma-separated flag names;
// empty selects all. An unknown name is an error that lists the known ones.
// A kept HTTP/3 variant run without its cold one starts from no path
// memory: in a full run the cold connections leave the edge's Careful
// Resume state for the kept one (docs/results/quic-mobile.md), so compare
// runs with the same selection.
func parseQuicMobileVariants(s string) ([]quicMobileVariant, error) {
	all := quicMobileVariants()
	if s == "" {
		return all, nil
	}
	names := flagNames(all)
	want := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("-variants: unknown variant %q (known: %s)", n, strings.Join(names, ","))
		}
		want[n] = true
	}
	var vs []quicMobileVariant
	for _, v := range all {
		if want[v.flagName()] {
			vs = append(vs, v)
		}
	}
	return vs, nil
}

// usesController reports whether any of vs runs on quicCC's edge.
func usesController(vs []quicMobileVariant, quicCC string) bool {
	return slices.ContainsFunc(vs, func(v quicMobileVariant) bool { return v.quicCC == quicCC })
}

// flagNames are vs's names in -variants.
func flagNames(vs []quicMobileVariant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.flagName()
	}
	return out
}
