// WebTransport sessions relayed by the edge's `session proxy` to a site's
// own webtransport-go server (loadtest/cmd/liveorigin's echo): each VU opens
// a session, echoes streams (timed), a unidirectional stream and a
// datagram, closes it, again and again. Needs the edge of
// loadtest/live.Caddyfile; TestRelayScenario runs it for seconds:
//   k6 run -e BASE=https://localhost:<port> -e VUS=50 -e DURATION=30s scenarios/webtransport-relay.js
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import lastmile from 'k6/x/lastmile';

const BASE = __ENV.BASE || 'https://localhost:8443';
const VUS = Number(__ENV.VUS || 50);
const DURATION = __ENV.DURATION || '30s';
const MSG = 'relayed '.repeat(512); // 4 KB

// Open stream to echo back through edge and origin: the relay's round trip.
const streamRTT = new Trend('relay_stream_rtt', true);

export const options = {
  scenarios: { relay: { executor: 'constant-vus', vus: VUS, duration: DURATION, gracefulStop: '5s' } },
  thresholds: {
    checks: ['rate>0.99'],
    lastmile_wt_failed: ['rate<0.01'],
    relay_stream_rtt: ['p(95)<250'],
  },
};

export default function () {
  const s = lastmile.webtransport(`${BASE}/app/echo`, { insecure: true, timeout: '5s' });
  if (!check(s, { 'session relayed': (x) => x.ok })) return;
  for (let i = 0; i < 5; i++) {
    const start = Date.now();
    const st = s.openStream();
    st.write(MSG);
    st.close();
    const back = st.readAll();
    streamRTT.add(Date.now() - start);
    check(back, { 'stream echoed': (v) => v === MSG });
  }
  const u = s.openUniStream();
  u.write('uni');
  u.close();
  check(s.acceptUniStream().readAll(), { 'uni stream echoed': (v) => v === 'uni' });
  let back = null;
  for (let k = 0; k < 10 && back === null; k++) {
    s.sendDatagram(`datagram ${k}`);
    back = s.receiveDatagram();
  }
  check(back, { 'datagram echoed': (v) => v !== null && v.startsWith('datagram ') });
  s.close();
}
