package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testBeacon is a valid version-1 beacon (what the snippet sends).
const testBeacon = `{"v":1,"u":"/page/:id","nt":"navigate","p":"h3","cr":0,"t":[0,0,12,20,85,30,400,900],"sz":[5000,4000],"wv":[1200,80,0.02,700,90],"e":["hit",0.4,-1]}`

// postBeacon sends body to the collector as the page's own origin does.
func (e *testEdge) postBeacon(t *testing.T, c *http.Client, body string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.URL("/lastmile/rum"), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://localhost:"+e.Port)
	req.Header.Set("Content-Type", "text/plain")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("beacon: %s", resp.Status)
	}
}

// TestRawSinkTakesBothTransports: the rum handler and the rum session
// module write to one file through one writer, a line per accepted beacon
// with its transport.
func TestRawSinkTakesBothTransports(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beacons.jsonl")
	e := startEdgeWith(t, func(s string) string {
		s = strings.Replace(s, "\trum {\n\t\tinject\n", "\trum {\n\t\tinject\n\t\traw_sink "+path+"\n", 1)
		return strings.Replace(s, "\t\tsession rum\n", "\t\tsession rum {\n\t\t\traw_sink "+path+"\n\t\t}\n", 1)
	})
	if !strings.Contains(e.Caddyfile, "session rum {") || strings.Count(e.Caddyfile, "raw_sink") != 2 {
		t.Fatal("the default Caddyfile's rum blocks changed: update this test's edit")
	}
	e.postBeacon(t, e.tcpClient(t, false), testBeacon)
	ctx := t.Context()
	_, sess, err := e.wtDial(t, ctx, "/wt/rum", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.CloseWithError(0, "")
	if err := sess.SendDatagram([]byte(testBeacon)); err != nil {
		t.Fatal(err)
	}
	if err := sess.SendDatagram([]byte(`{"v":1,"t":"not a beacon"}`)); err != nil {
		t.Fatal(err)
	}

	var transports []string
	waitForWithin(t, 5*time.Second, func() bool {
		transports = nil
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var line struct {
				Transport string          `json:"transport"`
				Beacon    json.RawMessage `json:"beacon"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("sink line %q: %v", sc.Text(), err)
			}
			if !strings.Contains(string(line.Beacon), `"u":"/page/:id"`) {
				t.Fatalf("sink line without the beacon: %s", sc.Text())
			}
			transports = append(transports, line.Transport)
		}
		return len(transports) >= 2
	})
	if strings.Join(transports, ",") != "http,webtransport" {
		t.Fatalf("sink transports %v, want one http and one webtransport line (the bad datagram refused)", transports)
	}
}
