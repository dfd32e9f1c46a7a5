// Pure measurement code: turns the browser's timing entries into one
// compact beacon. No globals here, so it is tested under Node.

/** Beacon schema version; the edge's decoder accepts exactly this. */
export const BEACON_VERSION = 1;

/** Per initiator type: [count, transfer bytes, summed duration ms]. */
export type ResourceSummary = Record<string, [number, number, number]>;

/** The beacon, with short keys: it travels on every page view. */
export interface Beacon {
  v: number;
  /** page URL template: path only, ids replaced */
  u: string;
  /** navigation type */
  nt: string;
  /** protocol of the document (nextHopProtocol) */
  p: string;
  /** 1 if the document came over an already open connection */
  cr: number;
  /** navigation phases, ms: redirect, dns, connect, tls, ttfb, response, domInteractive, load */
  t: [number, number, number, number, number, number, number, number];
  /** transfer and encoded body size of the document, bytes */
  sz: [number, number];
  /** web vitals: lcp ms, inp ms, cls, fcp ms, ttfb ms (-1 unknown) */
  wv: [number, number, number, number, number];
  /** resources by initiator type */
  r: ResourceSummary;
  /** resources by protocol, as r */
  rp: ResourceSummary;
  /** slowest resources: [template, ms, initiator] */
  sl: [string, number, string][];
  /** resource count by the edge's cache outcome (their Server-Timing) */
  rc: Record<string, number>;
  /** the edge's view of the document: cache outcome, edge ms, origin ms (-1 unknown) */
  e: [string, number, number];
}

const ms = (v: number | undefined): number => (v === undefined || !isFinite(v) || v < 0 ? -1 : Math.round(v));

/** What templateURL replaces: numbers, UUIDs, long hex or base64-ish tokens. */
const ID_SEGMENT = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|[A-Za-z0-9_-]{24,})$/i;

/**
 * templateURL keeps a URL's shape and drops what identifies a user or an
 * object: query, fragment and id-like path segments (replaced by ":id").
 * Same-origin URLs become paths; others keep their host.
 */
export function templateURL(raw: string, base: string): string {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return '?';
  }
  const path = u.pathname
    .split('/')
    .map((s) => (ID_SEGMENT.test(s) ? ':id' : s.replace(/\d{4,}/g, ':n')))
    .join('/')
    .slice(0, 120);
  const b = new URL(base);
  return u.host === b.host ? path : u.host + path;
}

/** The subset of PerformanceResourceTiming used here. */
export interface ResourceEntry {
  name: string;
  initiatorType: string;
  duration: number;
  transferSize?: number;
  nextHopProtocol?: string;
  serverTiming?: readonly ServerTimingEntry[];
}

/** summarizeResources counts, weighs and times resources, and keeps the slowest. */
export function summarizeResources(entries: ResourceEntry[], base: string, slowest: number): Pick<Beacon, 'r' | 'rp' | 'sl' | 'rc'> {
  const r: ResourceSummary = {};
  const rp: ResourceSummary = {};
  const rc: Record<string, number> = {};
  const add = (m: ResourceSummary, key: string, e: ResourceEntry) => {
    const s = (m[key.slice(0, 16)] ||= [0, 0, 0]);
    s[0]++;
    s[1] += e.transferSize || 0;
    s[2] += Math.round(e.duration);
  };
  for (const e of entries) {
    add(r, e.initiatorType || 'other', e);
    add(rp, e.nextHopProtocol || 'unknown', e);
    const c = edgeTiming(e.serverTiming)[0];
    if (c) rc[c] = (rc[c] || 0) + 1;
  }
  const sl = [...entries]
    .sort((a, b) => b.duration - a.duration)
    .slice(0, slowest)
    .map((e): [string, number, string] => [templateURL(e.name, base), Math.round(e.duration), e.initiatorType]);
  return { r, rp, sl, rc };
}

/** The subset of PerformanceServerTiming used here. */
export interface ServerTimingEntry {
  name: string;
  duration: number;
  description: string;
}

/** edgeTiming reads the edge's Server-Timing entries: cache, edge, origin. */
export function edgeTiming(entries: readonly ServerTimingEntry[] | undefined): [string, number, number] {
  let cache = '', edge = -1, origin = -1;
  for (const e of entries || []) {
    if (e.name === 'cache') cache = (e.description || '').slice(0, 16);
    else if (e.name === 'edge') edge = ms(e.duration);
    else if (e.name === 'origin') origin = ms(e.duration);
  }
  return [cache, edge, origin];
}

/** The subset of PerformanceNavigationTiming used here. */
export interface NavigationEntry extends ResourceEntry {
  type: string;
  redirectStart: number;
  redirectEnd: number;
  domainLookupStart: number;
  domainLookupEnd: number;
  connectStart: number;
  connectEnd: number;
  secureConnectionStart: number;
  requestStart: number;
  responseStart: number;
  responseEnd: number;
  domInteractive: number;
  loadEventEnd: number;
  encodedBodySize?: number;
  serverTiming?: readonly ServerTimingEntry[];
}

/** navigationPart turns the navigation entry into the beacon's document fields. */
export function navigationPart(n: NavigationEntry, base: string): Pick<Beacon, 'u' | 'nt' | 'p' | 'cr' | 't' | 'sz' | 'e'> {
  const tls = n.secureConnectionStart > 0 ? n.connectEnd - n.secureConnectionStart : 0;
  return {
    u: templateURL(n.name, base),
    nt: (n.type || 'navigate').slice(0, 16),
    p: (n.nextHopProtocol || 'unknown').slice(0, 16),
    cr: n.connectEnd - n.connectStart === 0 ? 1 : 0,
    t: [
      ms(n.redirectEnd - n.redirectStart),
      ms(n.domainLookupEnd - n.domainLookupStart),
      ms(n.connectEnd - n.connectStart - tls),
      ms(tls),
      ms(n.responseStart - n.requestStart),
      ms(n.responseEnd - n.responseStart),
      ms(n.domInteractive),
      n.loadEventEnd > 0 ? ms(n.loadEventEnd) : -1,
    ],
    sz: [n.transferSize || 0, n.encodedBodySize || 0],
    e: edgeTiming(n.serverTiming),
  };
}

/** Privacy signals a page may ask the snippet to honour. */
export interface PrivacySignals {
  doNotTrack?: string | null;
  globalPrivacyControl?: boolean;
}

/**
 * shouldCollect decides once per page view: sampled in at sampleRate, and,
 * when the site asks for it, never when Do Not Track or Global Privacy
 * Control is on.
 */
export function shouldCollect(sampleRate: number, respectPrivacy: boolean, signals: PrivacySignals, random: number): boolean {
  if (respectPrivacy && (signals.doNotTrack === '1' || signals.globalPrivacyControl === true)) return false;
  return random < Math.min(1, Math.max(0, sampleRate));
}
