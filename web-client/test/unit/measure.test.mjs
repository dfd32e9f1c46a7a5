// Unit tests of the snippet's measurement code (node --test), on the ES
// module build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { templateURL, summarizeResources, edgeTiming, navigationPart, shouldCollect, BEACON_VERSION } from '../../dist/lastmile-rum.mjs';

const base = 'https://shop.example/products/42?ref=mail';

test('URL templates drop queries, fragments and ids', () => {
  assert.equal(templateURL('/products/12345?utm=x#top', base), '/products/:id');
  assert.equal(templateURL('/u/550e8400-e29b-41d4-a716-446655440000/cart', base), '/u/:id/cart');
  assert.equal(templateURL('/img/p1-0.svg', base), '/img/p1-0.svg');
  assert.equal(templateURL('/order-20261122.json', base), '/order-:n.json');
  assert.equal(templateURL('https://cdn.other.example/lib/abcdef0123456789abcd.js', base), 'cdn.other.example/lib/abcdef:nabcd.js'); // fingerprints collapse
  assert.equal(templateURL('/t/eyJhbGciOiJIUzI1NiJ9abcdefgh', base), '/t/:id');
  assert.equal(templateURL('http://[::1', base), '?');
  assert.ok(templateURL('/' + 'a'.repeat(500), base).length <= 120);
});

test('resources are summarised by initiator and protocol, slowest named', () => {
  const entries = [
    { name: '/app.css', initiatorType: 'link', duration: 30.4, transferSize: 1000, nextHopProtocol: 'h3' },
    { name: '/api/items/9?x=1', initiatorType: 'fetch', duration: 250.6, transferSize: 2000, nextHopProtocol: 'h3' },
    { name: '/img/1.jpg', initiatorType: 'img', duration: 120, transferSize: 40000, nextHopProtocol: 'h2' },
    { name: '/img/2.jpg', initiatorType: 'img', duration: 80, transferSize: 40000, nextHopProtocol: 'h2', serverTiming: [{ name: 'cache', duration: 0, description: 'hit' }] },
  ];
  const s = summarizeResources(entries, base, 2);
  assert.deepEqual(s.r.img, [2, 80000, 200]);
  assert.deepEqual(s.rp, { h3: [2, 3000, 281], h2: [2, 80000, 200] });
  assert.deepEqual(s.sl, [['/api/items/:id', 251, 'fetch'], ['/img/1.jpg', 120, 'img']]);
  assert.deepEqual(s.rc, { hit: 1 });
});

test("the edge's Server-Timing is read", () => {
  assert.deepEqual(edgeTiming([
    { name: 'cache', duration: 0, description: 'hit' },
    { name: 'edge', duration: 0.42, description: '' },
    { name: 'db', duration: 7, description: '' },
  ]), ['hit', 0, -1]);
  assert.deepEqual(edgeTiming(undefined), ['', -1, -1]);
});

test('navigation timing becomes the document fields', () => {
  const n = {
    name: base, initiatorType: 'navigation', duration: 900, type: 'reload', nextHopProtocol: 'h3', transferSize: 5000, encodedBodySize: 4000,
    redirectStart: 0, redirectEnd: 0, domainLookupStart: 5, domainLookupEnd: 25, connectStart: 25, connectEnd: 85,
    secureConnectionStart: 40, requestStart: 86, responseStart: 186, responseEnd: 250, domInteractive: 400, loadEventEnd: 900,
    serverTiming: [{ name: 'cache', duration: 0, description: 'miss' }, { name: 'origin', duration: 93.2, description: '' }],
  };
  const p = navigationPart(n, base);
  assert.equal(p.u, '/products/:id');
  assert.equal(p.nt, 'reload');
  assert.equal(p.p, 'h3');
  assert.equal(p.cr, 0);
  assert.deepEqual(p.t, [0, 20, 15, 45, 100, 64, 400, 900]);
  assert.deepEqual(p.sz, [5000, 4000]);
  assert.deepEqual(p.e, ['miss', -1, 93]);
  assert.equal(navigationPart({ ...n, connectStart: 0, connectEnd: 0, secureConnectionStart: 0, loadEventEnd: 0 }, base).cr, 1);
  assert.equal(BEACON_VERSION, 1);
});

test('sampling and privacy signals', () => {
  assert.equal(shouldCollect(1, false, {}, 0.99), true);
  assert.equal(shouldCollect(0.1, false, {}, 0.5), false);
  assert.equal(shouldCollect(0.1, false, {}, 0.05), true);
  assert.equal(shouldCollect(1, true, { doNotTrack: '1' }, 0), false);
  assert.equal(shouldCollect(1, true, { globalPrivacyControl: true }, 0), false);
  assert.equal(shouldCollect(1, false, { doNotTrack: '1' }, 0), true);
  assert.equal(shouldCollect(7, false, {}, 0.999), true);
});

test('init does nothing, and throws nothing, without a page', async () => {
  const { init } = await import('../../dist/lastmile-rum.mjs');
  assert.doesNotThrow(() => init({ sampleRate: 1 }));
});
