// HTTP/3 requests in a few iterations per VU; TestConnectionLifecycle runs
// it with k6's connection reuse options and counts the edge's handshakes.
import { check } from 'k6';
import lastmile from 'k6/x/lastmile';

const BASE = __ENV.BASE;

export const options = {
  scenarios: { h3: { executor: 'per-vu-iterations', vus: 2, iterations: 4 } },
  thresholds: { checks: ['rate==1'] },
};

export default function () {
  for (const path of ['/page/1', '/static/app.css']) {
    const r = lastmile.http3Get(`${BASE}${path}`, { insecure: true });
    if (!check(r, { '200 over HTTP/3': (res) => res.status === 200 && res.proto === 'HTTP/3.0' })) {
      console.error(`${path}: status ${r.status}, proto ${r.proto}, error ${r.error}`);
    }
  }
}
