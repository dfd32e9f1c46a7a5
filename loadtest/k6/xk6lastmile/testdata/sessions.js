// Sessions the script never closes. Each iteration opens one and reads
// the edge's open-session gauge: with closeAt "iteration" the previous
// iteration's session is gone; with closeAt "vu" they add up until the
// test ends. Run by TestSessionLifecycle.
import http from 'k6/http';
import { check, sleep } from 'k6';
import lastmile from 'k6/x/lastmile';

const BASE = __ENV.BASE;
const CLOSE_AT = __ENV.CLOSE_AT;

export const options = {
  scenarios: { wt: { executor: 'per-vu-iterations', vus: 1, iterations: 3 } },
  thresholds: { checks: ['rate==1'] },
};

// openSessions polls the gauge until it shows want (the edge learns of a
// close one round trip later), for up to a second.
function openSessions(want) {
  let got = -1;
  for (let k = 0; k < 20 && got !== want; k++) {
    const m = http.get(`${__ENV.ADMIN}/metrics`).body.match(/^lastmile_webtransport_sessions_open (\d+)/m);
    got = m ? Number(m[1]) : -1;
    if (got !== want) sleep(0.05);
  }
  return got;
}

export default function () {
  const before = __ITER; // sessions this VU opened in earlier iterations
  const want = CLOSE_AT === 'vu' ? before : 0;
  check(openSessions(want), { 'earlier sessions as configured': (n) => n === want });
  const s = lastmile.webtransport(`${BASE}/wt/echo`, { insecure: true, closeAt: CLOSE_AT });
  check(s, { 'session open': (x) => x.ok });
  check(openSessions(want + 1), { 'this session open': (n) => n === want + 1 });
}
