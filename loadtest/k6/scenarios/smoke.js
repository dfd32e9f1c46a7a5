// CI smoke: seconds, a handful of VUs, HTTP/2 (k6's own client), HTTP/1.1,
// HTTP/3 and WebTransport (k6/x/lastmile) against the demo edge; any
// threshold breach fails the run.
//   loadtest/k6/smoke.sh
import http from 'k6/http';
import { check } from 'k6';
import lastmile from 'k6/x/lastmile';

const BASE = __ENV.BASE || 'https://localhost:8443';

export const options = {
  insecureSkipTLSVerify: true, // the demo's local CA
  scenarios: {
    h1: { executor: 'constant-vus', vus: 1, duration: '5s', exec: 'h1' },
    h2: { executor: 'constant-vus', vus: 2, duration: '5s', exec: 'h2' },
    h3: { executor: 'constant-vus', vus: 2, duration: '5s', exec: 'h3' },
    webtransport: { executor: 'per-vu-iterations', vus: 2, iterations: 5, exec: 'wt', maxDuration: '20s' },
    h3cold: { executor: 'per-vu-iterations', vus: 2, iterations: 5, exec: 'h3cold', maxDuration: '20s' },
  },
  thresholds: {
    http_req_failed: ['rate==0'],
    'http_reqs{proto:HTTP/1.1}': ['count>0'],
    checks: ['rate==1'],
    lastmile_h3_req_failed: ['rate==0'],
    lastmile_h3_req_duration: ['p(95)<500'],
    lastmile_wt_failed: ['rate==0'],
    lastmile_wt_sessions: ['count>=10'],
    'lastmile_h3_req_connecting{scenario:h3cold}': ['max>0'],
  },
};

export function h1() {
  const r = lastmile.http1Get(`${BASE}/page/1`, { insecure: true });
  check(r, { 'h1: 200 over HTTP/1.1': (res) => res.status === 200 && res.proto === 'HTTP/1.1' });
}

export function h2() {
  const r = http.get(`${BASE}/page/1`);
  check(r, { 'h2: 200 over HTTP/2': (res) => res.status === 200 && res.proto === 'HTTP/2.0' });
}

export function h3() {
  const r = lastmile.http3Get(`${BASE}/page/1`, { insecure: true });
  check(r, { 'h3: 200 over HTTP/3': (res) => res.status === 200 && res.proto === 'HTTP/3.0' });
}

// A WebTransport session driven stream by stream: a bidirectional echo,
// then datagrams until one comes back (they may be lost).
export function wt() {
  const s = lastmile.webtransport(`${BASE}/wt/echo`, { insecure: true, timeout: '2s' });
  if (!check(s, { 'webtransport: session open': (x) => x.ok })) return;
  const str = s.openStream();
  str.write('k6 stream');
  str.close();
  check(str.readAll(), { 'webtransport: stream echoed': (v) => v === 'k6 stream' });
  let back = null;
  for (let k = 0; k < 10 && back === null; k++) {
    s.sendDatagram(`k6 datagram ${k}`);
    back = s.receiveDatagram();
  }
  check(back, { 'webtransport: datagram echoed': (v) => v !== null && v.startsWith('k6 datagram') });
  s.close();
}

// A cold page load: a new connection (connecting time > 0), then the
// page's subresources in one parallel batch on it.
export function h3cold() {
  const page = lastmile.http3Get(`${BASE}/page/2`, { insecure: true, fresh: true });
  check(page, { 'h3 cold: page over a new connection': (res) => res.status === 200 && res.timings.connecting > 0 });
  const subs = lastmile.http3Batch([`${BASE}/static/app.css`, `${BASE}/static/app.js`, `${BASE}/api/products?page=2`], { insecure: true });
  check(subs, { 'h3 batch: all 200': (rs) => rs.length === 3 && rs.every((r) => r.status === 200) });
  // Resumed with the ticket of the connection above: the GET goes in 0-RTT.
  const early = lastmile.http3Get(`${BASE}/page/2`, { insecure: true, fresh: true, zeroRTT: true });
  check(early, { 'h3 0-RTT GET: 200, sent in 0-RTT': (res) => res.status === 200 && res.zero_rtt === true });
  lastmile.close();
}
