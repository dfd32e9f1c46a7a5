// lastmile's real-user timing: one beacon per page view, sent when the
// page is hidden, to the edge that served it. No cookies, no identifiers.
import { onCLS, onFCP, onINP, onLCP, onTTFB } from 'web-vitals';
import { BEACON_VERSION, Beacon, NavigationEntry, ResourceEntry, navigationPart, shouldCollect, summarizeResources } from './measure';

export { templateURL, summarizeResources, edgeTiming, navigationPart, shouldCollect, BEACON_VERSION } from './measure';
export type { Beacon } from './measure';

export interface Options {
  /** collector URL; default /lastmile/rum on the page's origin */
  endpoint?: string;
  /** fraction of page views measured, 0..1; default 1 */
  sampleRate?: number;
  /** honour Do Not Track and Global Privacy Control; default false */
  respectPrivacySignals?: boolean;
  /** how many slowest resources to name; default 5 */
  slowest?: number;
}

// The largest datagram that fits a QUIC packet on any path (1200-byte
// minimum MTU less headers); larger beacons go by sendBeacon.
const MAX_DATAGRAM = 1100;

let session: WebTransport | null = null;

/** attachWebTransport lets beacons go as datagrams on a session the page already has open to the edge. */
export function attachWebTransport(wt: WebTransport): void {
  session = wt;
  wt.closed.then(() => { if (session === wt) session = null; }, () => { if (session === wt) session = null; });
}

/** init starts measuring this page view; it does nothing where the APIs are missing. */
export function init(opts: Options = {}): void {
  try {
    const nav = performance.getEntriesByType('navigation')[0] as unknown as NavigationEntry | undefined;
    const n = navigator as Navigator & { globalPrivacyControl?: boolean };
    if (!nav || !shouldCollect(opts.sampleRate ?? 1, !!opts.respectPrivacySignals, { doNotTrack: n.doNotTrack, globalPrivacyControl: n.globalPrivacyControl }, Math.random())) return;
    const wv: Beacon['wv'] = [-1, -1, -1, -1, -1];
    const set = (i: number) => (m: { value: number }) => { wv[i] = i === 2 ? Math.round(m.value * 1000) / 1000 : Math.round(m.value); };
    onLCP(set(0));
    onINP(set(1));
    onCLS(set(2));
    onFCP(set(3));
    onTTFB(set(4));
    let sent = false;
    const send = (force: boolean) => {
      if (sent || (!force && document.visibilityState !== 'hidden')) return;
      sent = true;
      const base = location.href;
      const beacon: Beacon = {
        v: BEACON_VERSION,
        ...navigationPart(nav, base),
        wv,
        ...summarizeResources(performance.getEntriesByType('resource') as unknown as ResourceEntry[], base, opts.slowest ?? 5),
      };
      deliver(JSON.stringify(beacon), opts.endpoint || '/lastmile/rum');
    };
    // Registered after web-vitals' own listeners, so their final values
    // are in before the beacon leaves.
    addEventListener('visibilitychange', () => send(false), true);
    addEventListener('pagehide', () => send(true), true);
  } catch {
    // Measuring must never break the page.
  }
}

function deliver(body: string, endpoint: string): void {
  if (session && body.length <= MAX_DATAGRAM) {
    try {
      const w = session.datagrams.writable.getWriter();
      w.write(new TextEncoder().encode(body)).catch(() => {});
      w.releaseLock();
      return;
    } catch {
      // fall through to HTTP
    }
  }
  try {
    if (navigator.sendBeacon && navigator.sendBeacon(endpoint, new Blob([body], { type: 'text/plain' }))) return;
  } catch {
    // fall through
  }
  try {
    fetch(endpoint, { method: 'POST', body, keepalive: true, credentials: 'omit', headers: { 'Content-Type': 'text/plain' } }).catch(() => {});
  } catch {
    // nothing left to try
  }
}
