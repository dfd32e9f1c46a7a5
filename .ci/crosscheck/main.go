// Command crosscheck type-checks Go modules, with their tests and every
// package they import, for the systems Caddy builds on that CI does not
// run: the errors `GOOS=x go build` and gopls would show there. It reads
// and type-checks source only (golang.org/x/tools/go/packages), about 15 s
// a system, where a cross build compiles all of Caddy again per system
// (3.7 min for darwin on two cores).
//
//	cd .ci/crosscheck && go run . [-goos darwin,freebsd,windows] MODULE_DIR...
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	goos := flag.String("goos", "darwin,freebsd,windows", "systems to check, comma-separated")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: crosscheck [-goos list] MODULE_DIR...")
		os.Exit(2)
	}
	failed := false
	for _, system := range strings.Split(*goos, ",") {
		for _, dir := range flag.Args() {
			n, err := check(system, dir)
			if err != nil {
				fmt.Fprintf(os.Stderr, "crosscheck %s %s: %v\n", system, dir, err)
				failed = true
				continue
			}
			fmt.Printf("crosscheck: %s: %s: %d packages type-check\n", system, dir, n)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// check loads every package of the module in dir, tests included, as
// GOOS=system with cgo off (cross builds have no C toolchain), and prints
// each error.
func check(system, dir string) (int, error) {
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax,
		Dir:   dir,
		Env:   append(os.Environ(), "GOOS="+system, "CGO_ENABLED=0"),
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return 0, err
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		return 0, fmt.Errorf("%d errors", n)
	}
	return len(pkgs), nil
}
