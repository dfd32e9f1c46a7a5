// Drives Debian's Chromium through the edge over HTTP/3 to a site's own
// applications: a WebTransport echo behind `session proxy` (streams both
// kinds, datagrams), and live events from `session fanout` by subscribe(),
// over WebTransport and, in a page without WebTransport, over SSE. Prints
// what the pages saw as JSON; edge/live_browser_test.go starts the edge and
// the origins and judges the result. Inputs (environment):
//   EDGE_PORT, EDGE_SPKI, CHROMIUM   as h3-webtransport.mjs
//   RELAY_PATH    the proxied echo session's path (skipped if unset)
//   FANOUT_PATH   the fan-out endpoint (skipped if unset), CHANNEL its channel
//   EVENTS        how many events each subscription waits for
//   UDP_BLOCKED_ORIGIN  an origin that serves the edge over TCP only, its
//                 UDP port swallowing every packet: a page there that has
//                 WebTransport subscribes (FANOUT_PATH) and must get its
//                 events over SSE
//   TIMEOUT_MS    how long each subscription may take (default 15000)
import { readFileSync } from 'node:fs';
import { launch } from './chromium.mjs';

const port = process.env.EDGE_PORT;
const edge = `https://localhost:${port}`;

// Runs in the page: one proxied session, echoing a large bidirectional
// stream, a unidirectional stream (back on one the origin opens) and a
// datagram, then closing with a code.
async function relayEcho(url) {
  const out = {};
  try {
    const wt = new WebTransport(url);
    await wt.ready;
    const big = 'relay '.repeat(40000); // 240 KB: many relay buffers
    const s = await wt.createBidirectionalStream();
    const w = s.writable.getWriter();
    const echoed = new Response(s.readable).text(); // read while writing: flow control
    await w.write(new TextEncoder().encode(big));
    await w.close();
    out.streamOK = (await echoed) === big;
    const u = await wt.createUnidirectionalStream();
    const uw = u.getWriter();
    await uw.write(new TextEncoder().encode('uni from chromium'));
    await uw.close();
    const { value } = await wt.incomingUnidirectionalStreams.getReader().read();
    out.uni = await new Response(value).text();
    const dw = wt.datagrams.writable.getWriter();
    const dr = wt.datagrams.readable.getReader();
    for (let i = 0; i < 20 && !out.datagram; i++) {
      await dw.write(new TextEncoder().encode('datagram from chromium'));
      const got = await Promise.race([dr.read(), new Promise((r) => setTimeout(() => r(null), 250))]);
      if (got && got.value) out.datagram = new TextDecoder().decode(got.value);
    }
    wt.close({ closeCode: 7, reason: 'page done' });
  } catch (e) {
    out.error = String(e);
  }
  return out;
}

// Runs in the page: subscribe() to the channel until `want` events came,
// unsubscribe, then subscribe again from the fifth-last event's id (one the
// edge still keeps): the resumed run must start right after it.
async function subscribeTwice({ src, url, channel, want, datagrams, timeoutMs }) {
  const { subscribe } = await import(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  const run = (lastEventId) => new Promise((resolve) => {
    const got = { events: [], statuses: [], started: Date.now() };
    const timer = setTimeout(() => { stop(); got.error = 'timeout'; resolve(got); }, timeoutMs);
    const stop = subscribe(channel, (e) => {
      got.events.push({ id: e.id, data: e.data, at: Date.now() });
      if (got.events.length === want) { clearTimeout(timer); stop(); resolve(got); }
    }, {
      url, lastEventId, datagrams,
      onStatus: (state, info) => got.statuses.push(`${info.transport}:${state}${info.origin ? ':origin' : ''}`),
      onError: (code, message) => { got.error = `${code}: ${message}`; },
    });
  });
  const first = await run(undefined);
  const resumed = first.events.length > 5 ? await run(first.events[first.events.length - 5].id) : null;
  return { first, resumed };
}

const result = {};
const browser = await launch([
  `--ignore-certificate-errors-spki-list=${process.env.EDGE_SPKI}`,
  `--origin-to-force-quic-on=localhost:${port}`,
]);
try {
  const page = await browser.newPage();
  await page.goto(edge + '/', { waitUntil: 'load' });
  result.protocol = await page.evaluate(() => performance.getEntriesByType('navigation')[0].nextHopProtocol);
  if (process.env.RELAY_PATH) result.relay = await page.evaluate(relayEcho, edge + process.env.RELAY_PATH);
  if (process.env.FANOUT_PATH) {
    const args = {
      src: readFileSync(new URL('../../dist/lastmile-subscribe.mjs', import.meta.url), 'utf8'),
      url: edge + process.env.FANOUT_PATH, channel: process.env.CHANNEL, want: Number(process.env.EVENTS || 5),
      timeoutMs: Number(process.env.TIMEOUT_MS || 15000),
    };
    const blocked = process.env.UDP_BLOCKED_ORIGIN;
    if (blocked) {
      // The same call in a page that has WebTransport but cannot reach
      // the edge over UDP.
      const cut = await browser.newPage();
      await cut.goto(blocked + '/', { waitUntil: 'load' });
      result.udpBlocked = {
        protocol: await cut.evaluate(() => performance.getEntriesByType('navigation')[0].nextHopProtocol),
        hasWebTransport: await cut.evaluate(() => typeof WebTransport === 'function'),
        runs: await cut.evaluate(subscribeTwice, { ...args, url: blocked + process.env.FANOUT_PATH, datagrams: false }),
      };
    } else {
      result.webTransport = await page.evaluate(subscribeTwice, { ...args, datagrams: false });
      result.datagrams = await page.evaluate(subscribeTwice, { ...args, datagrams: true });
      // A browser without WebTransport: the same page, the same call.
      const plain = await browser.newPage();
      await plain.addInitScript(() => { delete window.WebTransport; });
      await plain.goto(edge + '/', { waitUntil: 'load' });
      result.sse = await plain.evaluate(subscribeTwice, { ...args, datagrams: false });
    }
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
