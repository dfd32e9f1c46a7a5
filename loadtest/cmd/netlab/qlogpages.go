//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/lastmile-edge/lastmile/loadtest/netlab/qlogstat"
)

// qlogPages prints the pages of edge traces (*_server.sqlog) as tables,
// with the controller's state and model at each page's start: run on a
// -qlog directory after a lab run (no root needed).
//
//	netlab qlog-pages <trace.sqlog>...
func qlogPages(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: netlab qlog-pages <trace.sqlog>...")
	}
	for _, name := range args {
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
		if err := qlogstat.WritePages(os.Stdout, pages); err != nil {
			return err
		}
		fmt.Println()
	}
	return nil
}
