// Package adapttest runs golden Caddyfile adaptation tests: each
// testdata/*.caddyfiletest file holds a Caddyfile, a line of ten dashes,
// and the JSON it must adapt to (Caddy's own test format). `go test
// -update` rewrites the expected JSON.
package adapttest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile" // the caddyfile adapter
)

var update = flag.Bool("update", false, "rewrite the expected JSON of golden adapt tests")

const separator = "----------"

// Run checks every *.caddyfiletest file in dir.
func Run(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.caddyfiletest"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in %s (%v)", dir, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, expected, found := strings.Cut(string(data), "\n"+separator+"\n")
			if !found {
				t.Fatalf("%s: no %s line", file, separator)
			}
			got, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(input+"\n"), map[string]any{"filename": "Caddyfile"})
			if err != nil {
				t.Fatalf("adapting: %v", err)
			}
			if len(warnings) > 0 {
				t.Errorf("warnings: %v", warnings)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, got, "", "\t"); err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(file, []byte(input+"\n"+separator+"\n"+pretty.String()+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if strings.TrimSpace(pretty.String()) != strings.TrimSpace(expected) {
				t.Errorf("adapted JSON differs from %s (go test -update rewrites it):\n%s", file, pretty.String())
			}
		})
	}
}

// Error adapts input and returns the adaptation error, failing t if there
// is none.
func Error(t *testing.T, input string) error {
	t.Helper()
	_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(input), map[string]any{"filename": "Caddyfile"})
	if err == nil {
		t.Fatalf("adapting succeeded, want an error:\n%s", input)
	}
	return err
}
