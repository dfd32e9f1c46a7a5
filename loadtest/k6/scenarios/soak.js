// Soak: a realistic page-load mix (the HTML, then its CSS, JS, images,
// photos and API call) over HTTP/2 for a while; latency and errors must
// hold.   DURATION=10m loadtest/k6/smoke.sh loadtest/k6/scenarios/soak.js
import http from 'k6/http';
import { check, sleep } from 'k6';

const BASE = __ENV.BASE || 'https://localhost:8443';

export const options = {
  insecureSkipTLSVerify: true,
  scenarios: { browse: { executor: 'constant-vus', vus: 20, duration: __ENV.DURATION || '2m' } },
  thresholds: { checks: ['rate==1'], http_req_failed: ['rate==0'], http_req_duration: ['p(95)<300'] },
};

export default function () {
  const n = 1 + Math.floor(Math.random() * 20);
  const page = http.get(`${BASE}/page/${n}`);
  check(page, { 'page 200': (r) => r.status === 200 });
  const subs = ['/static/app.css', '/static/app.js', `/api/products?page=${n}`];
  for (let i = 0; i < 8; i++) subs.push(`/img/p${n}-${i}.svg`);
  for (let i = 0; i < 4; i++) subs.push(`/photo/p${n}-${i}.jpg`);
  const res = http.batch(subs.map((p) => ['GET', BASE + p]));
  check(res, { 'subresources 200': (rs) => rs.every((r) => r.status === 200) });
  sleep(Math.random() * 2); // reading the page
}
