// Drives Debian's Chromium against a running lastmile edge and prints what
// the browser saw as one JSON object; edge/browser_test.go starts the edge
// and judges the result. Inputs (environment):
//   EDGE_PORT    TCP/UDP port of the edge (site "localhost")
//   EDGE_SPKI    base64 SHA-256 of the edge certificate's public key
//   CERT_HASH    hex SHA-256 of the edge certificate (serverCertificateHashes)
//   PLAIN_URL    a plain-http loopback page (the demo origin)
//   CHROMIUM     browser binary (default /usr/bin/chromium)
import { launch } from './chromium.mjs';

const port = process.env.EDGE_PORT;
const edge = `https://localhost:${port}`;

// Runs in the page: one WebTransport session echoing a stream and a datagram.
async function webTransportEcho({ url, certHash }) {
  const opts = {};
  if (certHash) {
    const bytes = new Uint8Array(certHash.match(/../g).map((h) => parseInt(h, 16)));
    opts.serverCertificateHashes = [{ algorithm: 'sha-256', value: bytes }];
  }
  const out = {};
  try {
    const wt = new WebTransport(url, opts);
    await wt.ready;
    const s = await wt.createBidirectionalStream();
    const w = s.writable.getWriter();
    await w.write(new TextEncoder().encode('stream from chromium'));
    await w.close();
    out.stream = await new Response(s.readable).text();
    const dw = wt.datagrams.writable.getWriter();
    const dr = wt.datagrams.readable.getReader();
    for (let i = 0; i < 20 && !out.datagram; i++) {
      await dw.write(new TextEncoder().encode('datagram from chromium'));
      const got = await Promise.race([dr.read(), new Promise((r) => setTimeout(() => r(null), 250))]);
      if (got && got.value) out.datagram = new TextDecoder().decode(got.value);
    }
    wt.close();
  } catch (e) {
    out.error = String(e);
  }
  return out;
}

const result = { statuses: [] };
const browser = await launch([
  `--ignore-certificate-errors-spki-list=${process.env.EDGE_SPKI}`,
  `--origin-to-force-quic-on=localhost:${port}`,
]);
try {
  const page = await browser.newPage();
  page.on('response', (r) => result.statuses.push({ url: r.url(), status: r.status() }));
  // Two navigations: the second may resume the connection in 0-RTT, where
  // a browser must never see 425 for a GET.
  for (const path of ['/', '/page/2']) {
    await page.goto(edge + path, { waitUntil: 'load' });
    await page.waitForSelector('body[data-loaded="true"]', { timeout: 10000 });
  }
  result.navigation = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return { nextHopProtocol: nav.nextHopProtocol, status: nav.responseStatus };
  });
  result.resourceProtocols = await page.evaluate(() =>
    [...new Set(performance.getEntriesByType('resource').map((r) => r.nextHopProtocol))]);
  result.echo = await page.evaluate(async () => (await fetch('/echo')).json());
  result.webTransport = await page.evaluate(webTransportEcho, { url: `${edge}/wt/echo` });
} finally {
  await browser.close();
}

// serverCertificateHashes: from a plain-http loopback page, with no
// certificate allowance at all.
const plain = await launch([]);
try {
  const page = await plain.newPage();
  await page.goto(process.env.PLAIN_URL);
  result.certHashWebTransport = await page.evaluate(webTransportEcho, { url: `${edge}/wt/echo`, certHash: process.env.CERT_HASH });
} finally {
  await plain.close();
}
console.log(JSON.stringify(result));
