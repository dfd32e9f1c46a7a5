// The WebTransport session API against the demo edge's echo: streams
// both ways, reads in chunks and to the end, datagrams, a refused session
// and its errors; then the one-call echo. Run by TestSessionAPI.
import { check } from 'k6';
import lastmile from 'k6/x/lastmile';
const BASE = __ENV.BASE;
export const options = { scenarios: { a: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } } };
export default function () {
  const s = lastmile.webtransport(`${BASE}/wt/echo`, { insecure: true, timeout: '3s' });
  check(s, { open: (x) => x.ok && x.status === 200 });
  const st = s.openStream();
  st.write('hello ');
  st.write('world');
  st.close();
  check(st.readAll(), { 'bidi echo': (v) => v === 'hello world' });
  const u = s.openUniStream(); u.write('uni'); u.close();
  const back = s.acceptUniStream();
  check(back.read(), { 'uni read': (v) => v === 'uni' });
  check(back.read(), { 'uni eof': (v) => v === null });
  s.sendDatagram('dg');
  check(s.receiveDatagram(), { dg: (v) => v === 'dg' });
  const bad = lastmile.webtransport(`${BASE}/wt/echo`, { insecure: true, headers: { Origin: 'https://evil.example' } });
  check(bad, { refused: (x) => !x.ok && x.status === 403 && x.error !== '' });
  let threw = false; try { bad.openStream(); } catch (e) { threw = String(e).includes('not open'); }
  check(threw, { 'throws on refused': (v) => v });
  let bad_param = false; try { lastmile.webtransport(`${BASE}/wt/echo`, { closeAt: 'never' }); } catch (e) { bad_param = String(e).includes('closeAt'); }
  check(bad_param, { 'bad closeAt refused': (v) => v });
  check(s.connecting, { 'connecting time measured': (v) => v > 0 });
  s.close();
  const echo = lastmile.webtransportEcho(`${BASE}/wt/echo`, { insecure: true });
  check(echo, { 'echo helper': (r) => r.ok && r.status === 200 && r.datagram_rtt > 0 });
}
