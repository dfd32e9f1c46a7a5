// RUM beacon flood, valid and hostile: valid beacons are taken or rate
// limited, hostile ones refused with a 4xx, never a 5xx; pages stay fast.
//   loadtest/k6/smoke.sh loadtest/k6/scenarios/rum-flood.js
import http from 'k6/http';
import { check } from 'k6';

const BASE = __ENV.BASE || 'https://localhost:8443';
const beacon = JSON.stringify({ v: 1, u: '/page/:id', nt: 'navigate', p: 'h2', cr: 0, t: [0, 0, 10, 20, 80, 30, 400, 900],
  sz: [5000, 4000], wv: [1200, 80, 0.02, 700, 90], r: { img: [8, 40000, 900] }, rp: { h2: [10, 50000, 1200] },
  sl: [['/img/a.jpg', 300, 'img']], rc: { hit: 9 }, e: ['hit', 0.4, -1] });
const hostile = [
  'x'.repeat(20000),
  '{"v":1',
  beacon.replace('"v":1', '"v":7'),
  beacon.replace('"cr":0', `"cr":0,"user":"${'a'.repeat(100)}"`),
];
const ADMIN = __ENV.ADMIN || 'http://127.0.0.1:2019';

export const options = {
  insecureSkipTLSVerify: true,
  scenarios: {
    valid: { executor: 'constant-vus', vus: 5, duration: '10s', exec: 'valid' },
    hostile: { executor: 'constant-vus', vus: 5, duration: '10s', exec: 'bad' },
    labels: { executor: 'constant-vus', vus: 2, duration: '10s', exec: 'labelFlood' },
    pages: { executor: 'constant-vus', vus: 2, duration: '10s', exec: 'page' },
  },
  thresholds: { checks: ['rate==1'], 'http_req_duration{scenario:pages}': ['p(95)<200'] },
};

export function valid() {
  const r = http.post(`${BASE}/lastmile/rum`, beacon, { headers: { 'Content-Type': 'text/plain' } });
  check(r, { 'valid beacon taken or rate limited': (res) => res.status === 204 || res.status === 429 });
}

export function bad() {
  const r = http.post(`${BASE}/lastmile/rum`, hostile[Math.floor(Math.random() * hostile.length)]);
  check(r, { 'hostile beacon refused with a 4xx': (res) => res.status >= 400 && res.status < 500 });
}

export function page() {
  check(http.get(`${BASE}/page/1`), { 'page 200': (res) => res.status === 200 });
}

// Well-formed beacons with random label values and user agents: taken (or
// rate limited), but they cannot add series.
export function labelFlood() {
  const b = beacon.replace('"p":"h2"', `"p":"${Math.random()}"`).replace('"nt":"navigate"', `"nt":"${Math.random()}"`);
  const r = http.post(`${BASE}/lastmile/rum`, b, { headers: { 'User-Agent': `bot-${Math.random()}` } });
  check(r, { 'label flood taken or rate limited': (res) => res.status === 204 || res.status === 429 });
}

export function teardown() {
  const lines = http.get(`${ADMIN}/metrics`).body.split('\n').filter((l) => l.startsWith('lastmile_rum_page_views_total{'));
  // Every label comes from a closed set: a handful of series at most.
  if (lines.length > 20) throw new Error(`${lines.length} page-view series after a label flood`);
}
