// Miss storm: 200 VUs ask at once for one key the cache has never seen;
// coalescing must send one request to the origin.
//   loadtest/k6/smoke.sh loadtest/k6/scenarios/miss-storm.js
import http from 'k6/http';
import { check } from 'k6';

const BASE = __ENV.BASE || 'https://localhost:8443';
const ADMIN = __ENV.ADMIN || 'http://127.0.0.1:2019';

export const options = {
  insecureSkipTLSVerify: true,
  scenarios: { storm: { executor: 'per-vu-iterations', vus: 200, iterations: 1, maxDuration: '30s' } },
  thresholds: { checks: ['rate==1'], http_req_failed: ['rate==0'] },
};

function originFetches() {
  const m = http.get(`${ADMIN}/metrics`).body.match(/^lastmile_cache_origin_fetches_total\{status="2xx"\} (\S+)$/m);
  return m ? Number(m[1]) : 0;
}

// The key is chosen once, in setup: module code runs once per VU.
export function setup() {
  return { before: originFetches(), key: `/api/products?page=7&storm=${Date.now()}` };
}

export default function (data) {
  const r = http.get(BASE + data.key);
  check(r, { '200 with the products': (res) => res.status === 200 && res.body.includes('"products"') });
}

export function teardown(data) {
  const fetched = originFetches() - data.before;
  // One for the storm's key (the page's preload warming may add none:
  // this is an API response).
  if (fetched !== 1) throw new Error(`the origin served ${fetched} fetches for one key, want 1`);
}
