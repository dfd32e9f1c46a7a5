package wtfanout

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/webtransport-go"

	"github.com/lastmile-edge/lastmile/internal/testcaddy"
)

// Each kind of bad control frame gets its error code and the session
// goes on.
func TestBadControlFrames(t *testing.T) {
	_, site, ctx := fixture(t, "")
	c := dialFanout(t, ctx, site)
	for _, tc := range []struct{ frame, code string }{
		{`not json`, codeBadFrame},
		{`{"op":"subscribe","channel":"a b"}`, codeBadChannel},
		{`{"op":"subscribe","channel":""}`, codeBadChannel},
		{`{"op":"subscribe","channel":"` + strings.Repeat("x", 129) + `"}`, codeBadChannel},
		{`{"op":"publish","channel":"news"}`, codeUnknownOp},
		{`{"op":"subscribe","channel":"missing-channel"}`, ""},
	} {
		c.send(tc.frame)
		r := c.reply()
		if tc.code == "" { // the origin's 404 comes after "subscribed"
			if r.Op != "subscribed" {
				t.Fatalf("%s: got %+v", tc.frame, r)
			}
			r = c.reply()
			tc.code = codeUnknownChannel
			// The subscription's stream, which the edge resets.
			if _, err := c.s.AcceptUniStream(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if r.Op != "error" || r.Code != tc.code {
			t.Fatalf("%s: got %+v, want error %s", tc.frame, r, tc.code)
		}
	}
	// The origin's 404 is remembered: no second request.
	c.send(`{"op":"subscribe","channel":"missing-channel"}`)
	if r := c.reply(); r.Op != "error" || r.Code != codeUnknownChannel {
		t.Fatalf("second subscribe to an unknown channel: %+v", r)
	}
	c.subscribe(ctx, "still-works", "")
}

// A frame over 4096 bytes closes the session with 0x1f01.
func TestOversizedFrameClosesSession(t *testing.T) {
	_, site, ctx := fixture(t, "")
	c := dialFanout(t, ctx, site)
	c.send(`{"op":"subscribe","channel":"` + strings.Repeat("x", 5000) + `"}`)
	select {
	case <-c.s.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("session not closed")
	}
	var se *webtransport.SessionError
	if _, err := c.s.AcceptStream(context.Background()); !errors.As(err, &se) || se.ErrorCode != closeFrameTooLarge {
		t.Fatalf("session ended with %v, want code 0x1f01", err)
	}
}

// Subscription floods stop at the session's and the client address's
// limits, and control frame floods at the rate limit.
func TestSubscriptionLimits(t *testing.T) {
	o, site, ctx := fixture(t, "max_subscriptions 3\n\t\t\tmax_subscriptions_per_client 5")
	a := dialFanout(t, ctx, site)
	for _, ch := range []string{"a1", "a2", "a3"} {
		a.subscribe(ctx, ch, "")
	}
	a.send(`{"op":"subscribe","channel":"a4"}`)
	if r := a.reply(); r.Code != codeTooMany || !strings.Contains(r.Message, "session") {
		t.Fatalf("4th subscription in a session: %+v", r)
	}
	b := dialFanout(t, ctx, site)
	b.subscribe(ctx, "b1", "")
	b.subscribe(ctx, "b2", "")
	b.send(`{"op":"subscribe","channel":"b3"}`)
	if r := b.reply(); r.Code != codeTooMany || !strings.Contains(r.Message, "client address") {
		t.Fatalf("6th subscription of a client: %+v", r)
	}
	testcaddy.Eventually(t, 5*time.Second, "the origin serving the 5 channels", func() bool {
		return o.open("a1")+o.open("a2")+o.open("a3")+o.open("b1")+o.open("b2") == 5
	})
	if o.requestCount("a4")+o.requestCount("b3") != 0 {
		t.Fatal("a refused subscription reached the origin")
	}

	// A flood of frames: past the burst, rate_limited.
	var flood strings.Builder
	for range 2 * controlBurst {
		flood.WriteString(`{"op":"unsubscribe","channel":"zz"}` + "\n")
	}
	a.send(strings.TrimSuffix(flood.String(), "\n"))
	if r := a.reply(); r.Code != codeRateLimited {
		t.Fatalf("frame flood: %+v, want rate_limited", r)
	}
}
