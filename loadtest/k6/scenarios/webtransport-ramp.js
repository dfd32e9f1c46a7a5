// WebTransport sessions ramping to 2000 VUs, each opening a session,
// echoing streams and a datagram, closing it, again and again.
//   loadtest/k6/smoke.sh loadtest/k6/scenarios/webtransport-ramp.js
//   (WT_VUS=500 for fewer: on a 2-core machine that also runs the edge,
//   k6's 2000 VUs take the CPU and the datagram RTT threshold fails;
//   smoke.sh lifts the per-client session limit, since every VU comes
//   from one address)
import { check } from 'k6';
import lastmile from 'k6/x/lastmile';

const BASE = __ENV.BASE || 'https://localhost:8443';
const TARGET = Number(__ENV.WT_VUS || 2000);

export const options = {
  scenarios: {
    ramp: {
      executor: 'ramping-vus', startVUs: 10, gracefulRampDown: '5s',
      stages: [{ duration: '15s', target: TARGET }, { duration: '10s', target: TARGET }, { duration: '5s', target: 0 }],
    },
  },
  thresholds: { checks: ['rate>0.99'], lastmile_wt_failed: ['rate<0.01'], lastmile_wt_datagram_rtt: ['p(95)<500'] },
};

export default function () {
  const r = lastmile.webtransportEcho(`${BASE}/wt/echo`, { insecure: true });
  check(r, { 'session echoed': (res) => res.ok });
}
