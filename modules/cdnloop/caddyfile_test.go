package cdnloop

import (
	"testing"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/lastmile-edge/lastmile/modules/httpcache"

	"github.com/lastmile-edge/lastmile/internal/adapttest"
)

func TestCaddyfileAdapt(t *testing.T) { adapttest.Run(t, "testdata") }
