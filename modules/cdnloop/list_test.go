package cdnloop

import (
	"strings"
	"testing"
)

func TestListsNode(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  bool
	}{
		{nil, false},
		{[]string{"lastmile; node=edge-1"}, true},
		{[]string{"LastMile ; NODE = edge-1"}, true},                             // OWS, case-insensitive id and name
		{[]string{`foo.example, lastmile; a=b; node="edge-1"`}, true},            // second member, quoted value
		{[]string{"other", "lastmile;node=edge-1"}, true},                        // second line
		{[]string{"lastmile; node=edge-2"}, false},                               // another node
		{[]string{"lastmile; node=Edge-1"}, false},                               // node names are exact
		{[]string{"cdn.example; node=edge-1"}, false},                            // another CDN's node of that name
		{[]string{"lastmile"}, false},                                            // the fleet, not this node
		{[]string{`x; p="a, lastmile; node=edge-1"`}, false},                     // inside a quoted string
		{[]string{`x; p="a\", lastmile; node=edge-1"`}, false},                   // escaped quote stays inside
		{[]string{`x; p="unterminated, lastmile; node=edge-1`}, false},           // runs to the end of its line
		{[]string{`x; p="unterminated`, "lastmile; node=edge-1"}, true},          // but not into the next line
		{[]string{"lastmile; node=edge-1x"}, false},                              // prefix is not equality
		{[]string{"lastmile; mynode=edge-1"}, false},                             // parameter name exact
		{[]string{strings.Repeat("a, ", 10000) + "lastmile; node=edge-1"}, true}, // long lists, linear
	} {
		if got := listsNode(tc.lines, "lastmile", "edge-1"); got != tc.want {
			t.Errorf("%.80q: got %v, want %v", tc.lines, got, tc.want)
		}
	}
}

func TestValidCDNID(t *testing.T) {
	for s, want := range map[string]bool{
		"lastmile": true, "cdn.example.net": true, "cdn.example.net:8443": true,
		"": false, "a b": false, "x:": false, "x:99999a": false, ":80": false, "a,b": false, "a;b": false,
	} {
		if got := validCDNID(s); got != want {
			t.Errorf("validCDNID(%q) = %v, want %v", s, got, want)
		}
	}
}

// Whatever other members a request carries, the line this node adds is
// found, and parsing costs no panic.
func FuzzListsNode(f *testing.F) {
	for _, s := range []string{"", "lastmile; node=edge-1", `a; b="c\"`, `"`, `\`, ";;,,=", "lastmile; node=\"e\\\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_ = listsNode([]string{line}, "lastmile", "edge-1")
		if !listsNode([]string{line, "lastmile; node=edge-1"}, "lastmile", "edge-1") {
			t.Fatalf("own line not found after %q", line)
		}
	})
}
