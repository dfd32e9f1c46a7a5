package clienttcp

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lastmile-edge/lastmile/internal/tcptune"
	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

func sockopts(t *testing.T, c *net.TCPConn) (cc string, lowat int) {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ccErr, lowatErr error
	if err := rc.Control(func(fd uintptr) {
		cc, ccErr = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		lowat, lowatErr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT)
	}); err != nil {
		t.Fatal(err)
	}
	if ccErr != nil || lowatErr != nil {
		t.Fatal(ccErr, lowatErr)
	}
	return strings.TrimRight(cc, "\x00"), lowat
}

func TestAcceptedConnectionsAreTuned(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lw        ListenerWrapper
		cc        string
		lowat     int
		lowatKept bool // the kernel's default, whatever it is
	}{
		{"defaults", ListenerWrapper{}, "bbr", 16 << 10, false},
		{"cubic, 32 KiB", ListenerWrapper{CongestionControl: "cubic", NotsentLowat: 32 << 10}, "cubic", 32 << 10, false},
		{"notsent_lowat off", ListenerWrapper{CongestionControl: "reno", NotsentLowat: -1}, "reno", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have, _ := tcptune.Available(); !slices.Contains(have, tc.cc) {
				t.Skipf("this kernel has no %s", tc.cc)
			}
			cc, lowat := sockopts(t, accepted(t, &tc.lw, bare).(*conn).NetConn().(*net.TCPConn))
			if cc != tc.cc {
				t.Errorf("congestion control %q, want %q", cc, tc.cc)
			}
			if !tc.lowatKept && lowat != tc.lowat {
				t.Errorf("TCP_NOTSENT_LOWAT %d, want %d", lowat, tc.lowat)
			}
			if tc.lowatKept && lowat == 16<<10 {
				t.Errorf("TCP_NOTSENT_LOWAT %d, want the kernel's default", lowat)
			}
		})
	}
}

// The tls wrapper listed first hands over *tls.Conn: the socket under it
// is tuned, and Caddy reads the TLS state through the wrapper.
func TestTunedUnderTLSWrapper(t *testing.T) {
	c := accepted(t, &ListenerWrapper{CongestionControl: "cubic"}, func(ln net.Listener) net.Listener {
		return tls.NewListener(ln, &tls.Config{})
	})
	if _, ok := c.(interface{ ConnectionState() tls.ConnectionState }); !ok {
		t.Fatalf("accepted %T, which does not give the TLS state", c)
	}
	tc, ok := c.(tlsConn).NetConn().(*tls.Conn)
	if !ok {
		t.Fatalf("accepted %T over %T, want *tls.Conn under it", c, c.(tlsConn).NetConn())
	}
	if cc, _ := sockopts(t, tc.NetConn().(*net.TCPConn)); cc != "cubic" {
		t.Fatalf("congestion control %q under tls, want cubic", cc)
	}
}

// TestCaddyServesThroughTheWrapper loads the wrapper the way a Caddyfile
// does and reads the server side's congestion control with ss.
func TestCaddyServesThroughTheWrapper(t *testing.T) {
	port := testcaddy.FreePort(t)
	testcaddy.Run(t, `{
	admin off
	servers {
		listener_wrappers {
			client_tcp {
				congestion_control cubic
			}
		}
	}
}
http://127.0.0.1:`+port+` {
	respond "tuned"
}
`)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://127.0.0.1:" + port + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "tuned" {
		t.Fatalf("body %q", body)
	}
	// The kept connection's server side: local port = the server's.
	out, err := exec.Command("ss", "-tinH", "state", "established", "( sport = :"+port+" )").CombinedOutput()
	if err != nil {
		t.Fatalf("ss: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cubic") {
		t.Fatalf("server side of the connection is not on cubic:\n%s", out)
	}
}
