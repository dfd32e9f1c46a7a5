// Unit tests of subscribe()'s framing and backoff (node --test), on the ES
// module build; the transports themselves run in Chromium against the real
// edge (edge/fanout_browser_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineSplitter, parseFrame, encodeFrame, backoffDelay, MAX_LINE } from '../../dist/lastmile-subscribe.mjs';

const bytes = (s) => new TextEncoder().encode(s);

test('lines split across chunks and multi-byte characters come out whole', () => {
  const split = new LineSplitter();
  const all = bytes('{"a":"é"}\n\n{"b":');
  assert.deepEqual(split.push(all.subarray(0, 8)), []); // cuts the é in half
  assert.deepEqual(split.push(all.subarray(8)), ['{"a":"é"}']);
  assert.deepEqual(split.push(bytes('2}\n')), ['{"b":2}']);
});

test('a line over the limit breaks the stream, with or without its newline', () => {
  assert.throws(() => new LineSplitter().push(bytes('x'.repeat(MAX_LINE + 1) + '\n')), /too long/);
  assert.throws(() => new LineSplitter().push(bytes('x'.repeat(MAX_LINE + 1))), /too long/);
  assert.deepEqual(new LineSplitter().push(bytes('x'.repeat(MAX_LINE) + '\n')).length, 1);
});

test('frames are JSON objects, anything else is null', () => {
  assert.deepEqual(parseFrame('{"op":"subscribed","channel":"news"}'), { op: 'subscribed', channel: 'news' });
  assert.deepEqual(parseFrame(bytes('{"channel":"n","data":"x"}')), { channel: 'n', data: 'x' });
  for (const bad of ['[1]', 'null', '"s"', '{', '']) assert.equal(parseFrame(bad), null, bad);
  assert.equal(new TextDecoder().decode(encodeFrame({ op: 'unsubscribe', channel: 'a' })), '{"op":"unsubscribe","channel":"a"}\n');
});

test('backoff doubles from its first delay, is capped, and jitters down to half', () => {
  assert.equal(backoffDelay(0, 500, 30000, 1), 500);
  assert.equal(backoffDelay(3, 500, 30000, 1), 4000);
  assert.equal(backoffDelay(3, 500, 30000, 0), 2000);
  assert.equal(backoffDelay(100, 500, 30000, 1), 30000);
});
