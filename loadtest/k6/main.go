// Command k6 is k6 with lastmile's extension compiled in (HTTP/3 and
// WebTransport, which k6 itself does not speak). Build: make k6.
package main

import (
	k6cmd "go.k6.io/k6/v2/cmd"

	_ "github.com/lastmile-edge/lastmile/loadtest/k6/xk6lastmile"
)

func main() {
	k6cmd.Execute()
}
