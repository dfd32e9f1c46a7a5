// Drives Debian's Chromium through the demo edge so the injected snippet
// sends real beacons: over HTTP/3 and over HTTP/2 by sendBeacon (on a
// real navigation away), and as a WebTransport datagram. Prints what the
// pages saw as JSON; edge/rum_browser_test.go judges the edge's metrics.
// Inputs as h3-webtransport.mjs: EDGE_PORT, EDGE_SPKI, CHROMIUM.
import { launch as launchChromium } from './chromium.mjs';

const port = process.env.EDGE_PORT;
const edge = `https://localhost:${port}`;
const launch = (args) => launchChromium([`--ignore-certificate-errors-spki-list=${process.env.EDGE_SPKI}`, ...args]);

async function loadAndLeave(browser, from, to) {
  const page = await browser.newPage();
  await page.goto(edge + from, { waitUntil: 'load' });
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 10000 });
  const seen = await page.evaluate(() => ({
    protocol: performance.getEntriesByType('navigation')[0].nextHopProtocol,
    snippet: !!window.lastmileRUM,
  }));
  // Leaving the page hides it: the snippet's beacon goes by sendBeacon.
  await page.goto(edge + to, { waitUntil: 'load' });
  await page.waitForTimeout(300);
  return { page, seen };
}

const result = {};
const h3 = await launch([`--origin-to-force-quic-on=localhost:${port}`]);
try {
  const { page, seen } = await loadAndLeave(h3, '/page/3', '/page/4');
  result.h3 = seen;
  // On the page now open: a WebTransport session to the edge, attached to
  // the snippet; hiding the page sends the beacon as a datagram.
  result.webTransport = await page.evaluate(async (url) => {
    try {
      await new Promise((r) => (document.readyState === 'complete' ? r() : addEventListener('load', r)));
      const wt = new WebTransport(url);
      await wt.ready;
      window.lastmileRUM.attachWebTransport(wt);
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 500));
      wt.close();
      return { ok: true };
    } catch (e) {
      return { ok: false, error: String(e) };
    }
  }, `${edge}/wt/rum`);
} finally {
  await h3.close();
}
const h2 = await launch(['--disable-quic']);
try {
  const { seen } = await loadAndLeave(h2, '/page/5', '/page/6');
  result.h2 = seen;
} finally {
  await h2.close();
}
console.log(JSON.stringify(result));
