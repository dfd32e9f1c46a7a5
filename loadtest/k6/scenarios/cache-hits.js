// Cache-hit mix: dynamic API responses and photos over HTTP/1.1
// (k6/x/lastmile, into k6's http_req_* metrics), HTTP/2 (k6's client) and
// HTTP/3 (k6/x/lastmile), after a warm-up; almost all must be hits, fast.   loadtest/k6/smoke.sh loadtest/k6/scenarios/cache-hits.js
import http from 'k6/http';
import { check } from 'k6';
import { Rate } from 'k6/metrics';
import lastmile from 'k6/x/lastmile';

const BASE = __ENV.BASE || 'https://localhost:8443';
const hit = new Rate('edge_cache_hit');
const paths = ['/api/products?page=1', '/api/products?page=2', '/photo/a.jpg', '/photo/b.jpg', '/img/p1-0.svg'];

export const options = {
  insecureSkipTLSVerify: true,
  scenarios: {
    h1: { executor: 'constant-vus', vus: 8, duration: __ENV.DURATION || '20s', exec: 'h1', startTime: '2s' },
    h2: { executor: 'constant-vus', vus: 8, duration: __ENV.DURATION || '20s', exec: 'h2', startTime: '2s' },
    h3: { executor: 'constant-vus', vus: 8, duration: __ENV.DURATION || '20s', exec: 'h3', startTime: '2s' },
  },
  thresholds: {
    checks: ['rate==1'],
    edge_cache_hit: ['rate>0.95'],
    'http_req_duration{scenario:h1}': ['p(95)<100'],
    'http_req_duration{scenario:h2}': ['p(95)<100'],
    lastmile_h3_req_duration: ['p(95)<100'],
  },
};

export function setup() {
  for (const p of paths) http.get(BASE + p); // warm the cache
}

const pick = () => paths[Math.floor(Math.random() * paths.length)];

export function h1() {
  const r = lastmile.http1Get(BASE + pick(), { insecure: true });
  check(r, { 'h1 200': (res) => res.status === 200 && res.proto === 'HTTP/1.1' });
  hit.add((r.headers['Cache-Status'] || '').includes('; hit'));
}

export function h2() {
  const r = http.get(BASE + pick());
  check(r, { 'h2 200': (res) => res.status === 200 && res.proto === 'HTTP/2.0' });
  hit.add((r.headers['Cache-Status'] || '').includes('; hit'));
}

export function h3() {
  const r = lastmile.http3Get(BASE + pick(), { insecure: true });
  check(r, { 'h3 200': (res) => res.status === 200 && res.proto === 'HTTP/3.0' });
  hit.add((r.headers['Cache-Status'] || '').includes('; hit'));
}
