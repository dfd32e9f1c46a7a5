// Purge during load: users keep getting 200s while the products tag is
// purged every two seconds through the authenticated admin API.
//   loadtest/k6/smoke.sh loadtest/k6/scenarios/purge.js
import http from 'k6/http';
import { check, sleep } from 'k6';

const BASE = __ENV.BASE || 'https://localhost:8443';
const ADMIN = __ENV.ADMIN || 'http://127.0.0.1:2019';
const TOKEN = __ENV.PURGE_TOKEN || '';

export const options = {
  insecureSkipTLSVerify: true,
  scenarios: {
    users: { executor: 'constant-vus', vus: 10, duration: '15s', exec: 'user' },
    purger: { executor: 'constant-vus', vus: 1, duration: '15s', exec: 'purger' },
  },
  thresholds: { checks: ['rate==1'], 'http_req_failed{scenario:users}': ['rate==0'] },
};

export function user() {
  const r = http.get(`${BASE}/api/products?page=${1 + Math.floor(Math.random() * 3)}`);
  check(r, { 'user 200': (res) => res.status === 200 });
}

export function purger() {
  const r = http.post(`${ADMIN}/lastmile/cache/purge`, JSON.stringify({ tags: ['products'], soft: Math.random() < 0.5 }), {
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
  });
  check(r, { 'purge accepted': (res) => res.status === 200 && res.json('purged') >= 0 });
  const denied = http.post(`${ADMIN}/lastmile/cache/purge`, '{"all":true}', { headers: { 'Content-Type': 'application/json' } });
  check(denied, { 'purge without token refused': (res) => res.status === 401 });
  sleep(2);
}
