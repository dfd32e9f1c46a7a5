// Live updates through the edge's `session fanout`: each VU opens
// WebTransport sessions subscribed to one channel of
// loadtest/cmd/liveorigin (whose events carry their emit time in ns), reads
// EVENTS events on each and records the delay from emit to receipt. Needs
// the edge of loadtest/live.Caddyfile; TestFanoutScenario runs it for
// seconds. For 10,000 sessions use loadtest/cmd/fanoutbench: that many
// k6 VUs do not fit beside the edge on 2 cores.
//   k6 run -e BASE=https://localhost:<port> -e VUS=100 -e EVENTS=10 scenarios/fanout.js
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import lastmile from 'k6/x/lastmile';

const BASE = __ENV.BASE || 'https://localhost:8443';
const VUS = Number(__ENV.VUS || 100);
const EVENTS = Number(__ENV.EVENTS || 10);
const CHANNEL = __ENV.CHANNEL || 'news';

const delay = new Trend('fanout_delivery_delay', true);

export const options = {
  scenarios: { fanout: { executor: 'per-vu-iterations', vus: VUS, iterations: 1, maxDuration: '2m' } },
  thresholds: { checks: ['rate==1'], lastmile_wt_failed: ['rate==0'], fanout_delivery_delay: ['p(99)<250'] },
};

// lines reads whole lines from a stream, across reads.
function lineReader(stream) {
  let buf = '';
  return () => {
    while (!buf.includes('\n')) {
      const chunk = stream.read();
      if (chunk === null) return null;
      buf += chunk;
    }
    const i = buf.indexOf('\n');
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    return line;
  };
}

export default function () {
  const s = lastmile.webtransport(`${BASE}/live`, { insecure: true, timeout: '10s' });
  if (!check(s, { 'session open': (x) => x.ok })) return;
  const ctrl = s.openStream();
  ctrl.write(JSON.stringify({ op: 'subscribe', channel: CHANNEL }) + '\n');
  check(JSON.parse(lineReader(ctrl)()), { subscribed: (f) => f.op === 'subscribed' && f.channel === CHANNEL });
  const next = lineReader(s.acceptUniStream());
  check(JSON.parse(next()), { 'stream names the channel': (f) => f.channel === CHANNEL });
  // The replay first (old emit times), then live events: only live ones
  // are timed, from the first whose delay is under a second.
  let live = 0;
  let last = 0;
  let ordered = true;
  for (let i = 0; i < 100 && live < EVENTS; i++) {
    const line = next();
    if (line === null) break;
    const e = JSON.parse(line);
    const id = Number(e.id);
    if (id <= last) ordered = false;
    last = id;
    const ms = Date.now() - Number(e.data) / 1e6;
    if (live > 0 || ms < 1000) {
      delay.add(ms);
      live++;
    }
  }
  check(live, { 'live events received': (n) => n === EVENTS });
  check(ordered, { 'events in order, no duplicates': (v) => v });
  s.close();
}
