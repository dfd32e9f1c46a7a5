//go:build linux

package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/lastmile-edge/lastmile/loadtest/netlab/qlogstat"
)

// qlogPages prints the pages of edge traces (*_server.sqlog) as tables,
// with the controller's state and model at each page's start and what
// each page put on the wire: run on a -qlog directory after a lab run (no
// root needed). With -rate-mbit (the profile's rate_mbit), also the time
// the link's bottleneck needed for each page's packets.
//
//	netlab qlog-pages [-rate-mbit R] <trace.sqlog>...
func qlogPages(args []string) error {
	fs := flag.NewFlagSet("qlog-pages", flag.ExitOnError)
	rateMbit := fs.Float64("rate-mbit", 0, "the link's rate in Mbit/s: adds each page's time at the bottleneck (0: none)")
	_ = fs.Parse(args)
	if fs.NArg() == 0 || *rateMbit < 0 {
		return errors.New("usage: netlab qlog-pages [-rate-mbit R] <trace.sqlog>...")
	}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		pages, err := qlogstat.Read(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Printf("%s\n\n", name)
		if err := qlogstat.WritePages(os.Stdout, pages, *rateMbit*1e6); err != nil {
			return err
		}
		fmt.Println()
	}
	return nil
}
