// stale-while-revalidate under load: pages fresh for 1 s, stale for 10 s.
// Users must never wait for the origin, and the origin must see about one
// refresh per second, not one per request.
//   loadtest/k6/smoke.sh loadtest/k6/scenarios/swr.js
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';

const BASE = __ENV.BASE || 'https://localhost:8443';
const ADMIN = __ENV.ADMIN || 'http://127.0.0.1:2019';
const stale = new Counter('served_stale');

export const options = {
  insecureSkipTLSVerify: true,
  scenarios: { load: { executor: 'constant-vus', vus: 10, duration: '15s' } },
  // served_stale is informational: the demo's refresh_ahead refreshes this
  // popular page before it goes stale, so it may stay at 0.
  thresholds: { checks: ['rate==1'], http_req_duration: ['p(99)<100'] },
};

function originFetches() {
  const m = http.get(`${ADMIN}/metrics`).body.match(/^lastmile_cache_origin_fetches_total\{status="2xx"\} (\S+)$/m);
  return m ? Number(m[1]) : 0;
}

export function setup() {
  http.get(`${BASE}/page/9`);
  return { before: originFetches(), start: Date.now() };
}

export default function () {
  const r = http.get(`${BASE}/page/9`);
  check(r, { '200': (res) => res.status === 200 });
  if ((r.headers['Cache-Status'] || '').includes('stale-while-revalidate')) stale.add(1);
}

export function teardown(data) {
  const secs = (Date.now() - data.start) / 1000;
  const fetched = originFetches() - data.before;
  // One refresh per second of load, give or take; never per request.
  if (fetched > secs * 2 + 5) throw new Error(`${fetched} origin fetches in ${secs.toFixed(0)} s`);
}
