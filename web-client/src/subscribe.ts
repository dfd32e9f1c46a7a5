// Live updates from lastmile's `session fanout` (docs/WEBTRANSPORT.md):
// over WebTransport where the browser has it, over Server-Sent Events
// otherwise, resuming after the last event seen when a connection drops.
// A separate entry point from the RUM snippet: only pages with live
// updates load it.
import { backoffDelay, encodeFrame, parseFrame, readLines } from './lines';

export { LineSplitter, backoffDelay, parseFrame, encodeFrame, MAX_LINE } from './lines';

/** One event of a channel, as the origin sent it. */
export interface LiveEvent {
  channel: string;
  /** the SSE id, if the origin set one */
  id?: string;
  /** the SSE event name, if the origin set one */
  event?: string;
  data: string;
}

export type Transport = 'webtransport' | 'sse';

/**
 * connecting: first connection under way; live: subscribed and receiving;
 * reconnecting: the connection (or, origin true, the edge's stream from the
 * origin) dropped and is being re-established; failed: given up (a refused
 * channel, or the origin's stream failed for good); closed: unsubscribed.
 */
export type State = 'connecting' | 'live' | 'reconnecting' | 'failed' | 'closed';

export interface SubscribeOptions {
  /** the fan-out endpoint; default /live on the page's origin */
  url?: string;
  /**
   * 'auto' (default): WebTransport if the browser has it and it connects,
   * else SSE; after a session that never connected, later subscriptions
   * to the url use SSE for 5 minutes
   */
  transport?: 'auto' | Transport;
  /** WebTransport: events as datagrams where they fit (may be lost); default false */
  datagrams?: boolean;
  /** resume after this event id (the first connection; later ones resume by themselves) */
  lastEventId?: string;
  /** SSE: event names to deliver besides unnamed ones (EventSource only reports names it listens for) */
  events?: string[];
  /** WebTransport: certificate hashes, for a server with a short-lived self-signed certificate */
  serverCertificateHashes?: WebTransportHash[];
  /** reconnect backoff in ms, [first, most]; default [500, 30000] */
  backoff?: [number, number];
  onStatus?: (state: State, info: { transport: Transport; origin: boolean }) => void;
  /** the edge dropped this many events because this subscriber fell behind */
  onMissed?: (count: number) => void;
  /** the edge refused the subscription or a frame: code as in the protocol */
  onError?: (code: string, message: string) => void;
}

interface Sub {
  channel: string;
  onEvent: (e: LiveEvent) => void;
  opts: SubscribeOptions;
  /** the last event id delivered: where a new connection resumes */
  lastId?: string;
  status: (state: State, origin?: boolean) => void;
}

// Refusals after which resubscribing cannot help.
const FATAL = ['unknown_channel', 'bad_channel', 'too_many_subscriptions'];

/**
 * subscribe delivers the channel's events to onEvent until the returned
 * function is called. Subscriptions to the same url share one WebTransport
 * session.
 */
export function subscribe(channel: string, onEvent: (e: LiveEvent) => void, opts: SubscribeOptions = {}): () => void {
  const url = new URL(opts.url ?? '/live', location.href).href;
  const mode = opts.transport ?? 'auto';
  let transport: Transport = 'webtransport';
  let active = true;
  const s: Sub = {
    channel, onEvent, opts, lastId: opts.lastEventId,
    status: (st, origin = false) => opts.onStatus?.(st, { transport, origin }),
  };
  let stop: () => void;
  const useSSE = () => {
    transport = 'sse';
    stop = sse(url, s);
  };
  const unreachable = mode === 'auto' && (wtUnreachableUntil.get(url) ?? 0) > Date.now();
  if (mode !== 'sse' && !unreachable && typeof WebTransport === 'function' && url.startsWith('https:')) {
    const hub = hubFor(url, opts, mode === 'auto');
    fallbacks.set(s, () => { if (active) useSSE(); });
    stop = () => hub.remove(s);
    hub.add(s);
  } else {
    useSSE();
  }
  return () => {
    if (!active) return;
    active = false;
    fallbacks.delete(s);
    stop();
    s.status('closed');
  };
}

// How a subscription switches to SSE when its session never connected.
const fallbacks = new Map<Sub, () => void>();
// Endpoints whose WebTransport session never connected, and until when
// later subscriptions go straight to SSE: each attempt costs the
// browser's QUIC handshake timeout (seconds) when UDP is dropped, and the
// page's network may change, so it is tried again after a while.
const wtUnreachableUntil = new Map<string, number>();
const WT_RETRY_AFTER = 5 * 60 * 1000;
const hubs = new Map<string, Hub>();

function hubFor(url: string, opts: SubscribeOptions, mayFallBack: boolean): Hub {
  let h = hubs.get(url);
  if (!h) {
    h = new Hub(url, opts, mayFallBack);
    hubs.set(url, h);
  }
  return h;
}

/** Hub is one WebTransport session to a fan-out endpoint, shared by its subscriptions. */
class Hub {
  private subs = new Map<string, Set<Sub>>();
  private wt: WebTransport | null = null;
  private writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  private everReady = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly backoff: [number, number];

  constructor(private readonly url: string, private readonly opts: SubscribeOptions, private readonly mayFallBack: boolean) {
    this.backoff = opts.backoff ?? [500, 30000];
  }

  add(s: Sub): void {
    let set = this.subs.get(s.channel);
    const first = !set;
    if (!set) this.subs.set(s.channel, (set = new Set()));
    set.add(s);
    // Live only once the edge confirmed the channel on this session.
    s.status(!first && this.writer ? 'live' : 'connecting');
    if (!this.wt && this.timer === undefined) this.connect();
    else if (first && this.writer) this.send(subscribeFrame(s.channel, s.lastId, this.opts.datagrams));
  }

  remove(s: Sub): void {
    const set = this.subs.get(s.channel);
    if (!set || !set.delete(s)) return;
    if (set.size === 0) {
      this.subs.delete(s.channel);
      this.send({ op: 'unsubscribe', channel: s.channel });
    }
    if (this.subs.size === 0) this.close();
  }

  private all(): Sub[] {
    return [...this.subs.values()].flatMap((set) => [...set]);
  }

  private forget(): void {
    if (hubs.get(this.url) === this) hubs.delete(this.url);
  }

  private close(): void {
    this.forget();
    clearTimeout(this.timer);
    const wt = this.wt;
    this.wt = this.writer = null;
    wt?.close({ closeCode: 0, reason: 'unsubscribed' });
  }

  private send(frame: object): void {
    this.writer?.write(encodeFrame(frame)).catch(() => {});
  }

  private async connect(): Promise<void> {
    this.timer = undefined;
    let wt: WebTransport | null = null;
    try {
      const o: WebTransportOptions = {};
      if (this.opts.serverCertificateHashes) o.serverCertificateHashes = this.opts.serverCertificateHashes;
      wt = new WebTransport(this.url, o);
      this.wt = wt;
      await wt.ready;
    } catch {
      if (wt && this.wt !== wt) return; // closed while connecting
      this.wt = null;
      if (!this.everReady && this.mayFallBack) {
        // WebTransport does not get through (UDP blocked, an old proxy):
        // these subscriptions go by SSE from now on, and new ones too
        // for a while.
        wtUnreachableUntil.set(this.url, Date.now() + WT_RETRY_AFTER);
        this.forget();
        const subs = this.all();
        this.subs.clear();
        subs.forEach((s) => fallbacks.get(s)?.());
        return;
      }
      this.retry();
      return;
    }
    if (this.wt !== wt) { wt.close(); return; } // closed while connecting
    this.everReady = true;
    wt.closed.catch(() => {}).then(() => {
      if (this.wt !== wt) return;
      this.wt = this.writer = null;
      this.retry();
    });
    try {
      const control = await wt.createBidirectionalStream();
      this.writer = control.writable.getWriter();
      for (const [channel, set] of this.subs) {
        const last = [...set].find((x) => x.lastId !== undefined)?.lastId;
        this.send(subscribeFrame(channel, last, this.opts.datagrams));
      }
      this.readUni(wt);
      if (this.opts.datagrams) this.readDatagrams(wt);
      await readLines(control.readable, (line) => this.onControl(line));
    } catch {
      // The session's end is handled by wt.closed.
    }
    wt.close();
  }

  private retry(): void {
    if (this.subs.size === 0) return;
    for (const s of this.all()) s.status('reconnecting');
    const [min, max] = this.backoff;
    this.timer = setTimeout(() => this.connect(), backoffDelay(this.attempt++, min, max, Math.random()));
  }

  private onControl(line: string): void {
    const f = parseFrame(line);
    if (!f || typeof f.channel !== 'string') return;
    const set = this.subs.get(f.channel);
    if (!set) return;
    switch (f.op) {
      case 'subscribed':
        this.attempt = 0;
        set.forEach((s) => s.status('live'));
        break;
      case 'status':
        if (f.state === 'live' || f.state === 'reconnecting' || f.state === 'failed') {
          const st = f.state;
          set.forEach((s) => s.status(st, true));
        }
        break;
      case 'missed':
        set.forEach((s) => s.opts.onMissed?.(Number(f.count) || 0));
        break;
      case 'error': {
        const code = String(f.code);
        set.forEach((s) => s.opts.onError?.(code, String(f.message ?? '')));
        if (FATAL.includes(code)) {
          this.subs.delete(f.channel);
          set.forEach((s) => s.status('failed'));
          if (this.subs.size === 0) this.close();
        }
        break;
      }
    }
  }

  private deliver(channel: string, f: Record<string, unknown>): void {
    const set = this.subs.get(channel);
    if (!set || typeof f.data !== 'string') return;
    const e: LiveEvent = { channel, data: f.data };
    if (typeof f.id === 'string') e.id = f.id;
    if (typeof f.event === 'string') e.event = f.event;
    for (const s of set) {
      if (e.id !== undefined) s.lastId = e.id;
      s.onEvent(e);
    }
  }

  // Each subscription's events stream: a header line naming the channel,
  // then one event per line.
  private async readUni(wt: WebTransport): Promise<void> {
    const reader = wt.incomingUnidirectionalStreams.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        let channel: string | null = null;
        readLines(value, (line) => {
          const f = parseFrame(line);
          if (!f) return;
          if (channel === null) channel = typeof f.channel === 'string' ? f.channel : '';
          else this.deliver(channel, f);
        }).catch(() => {});
      }
    } catch {
      // session closed
    }
  }

  private async readDatagrams(wt: WebTransport): Promise<void> {
    const reader = wt.datagrams.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const f = parseFrame(value);
        if (f && typeof f.channel === 'string') this.deliver(f.channel, f);
      }
    } catch {
      // session closed
    }
  }
}

function subscribeFrame(channel: string, lastId: string | undefined, datagrams?: boolean): object {
  const f: Record<string, unknown> = { op: 'subscribe', channel };
  if (lastId !== undefined) f.last_event_id = lastId;
  if (datagrams) f.datagrams = true;
  return f;
}

// One EventSource per subscription (the edge serves one channel per SSE
// request). EventSource reconnects by itself with Last-Event-ID; when it
// gives up (an HTTP error), a new one starts after a backoff.
function sse(url: string, s: Sub): () => void {
  let es: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let stopped = false;
  const [min, max] = s.opts.backoff ?? [500, 30000];
  const open = () => {
    const u = new URL(url);
    u.searchParams.set('channel', s.channel);
    // EventSource cannot set Last-Event-ID on its first request.
    if (s.lastId !== undefined) u.searchParams.set('last_event_id', s.lastId);
    const src = (es = new EventSource(u.href));
    const onEvent = (m: MessageEvent) => {
      const e: LiveEvent = { channel: s.channel, data: String(m.data) };
      if (m.lastEventId) e.id = s.lastId = m.lastEventId;
      if (m.type !== 'message') e.event = m.type;
      s.onEvent(e);
    };
    src.addEventListener('message', onEvent);
    for (const name of s.opts.events ?? []) src.addEventListener(name, onEvent as EventListener);
    src.addEventListener('lastmile-status', ((m: MessageEvent) => {
      const st = parseFrame(String(m.data))?.state;
      if (st === 'live' || st === 'reconnecting' || st === 'failed') s.status(st, true);
    }) as EventListener);
    src.addEventListener('lastmile-missed', ((m: MessageEvent) => {
      s.opts.onMissed?.(Number(parseFrame(String(m.data))?.count) || 0);
    }) as EventListener);
    src.onopen = () => { attempt = 0; s.status('live'); };
    src.onerror = () => {
      if (stopped || src !== es) return;
      s.status('reconnecting');
      if (src.readyState === EventSource.CLOSED) timer = setTimeout(open, backoffDelay(attempt++, min, max, Math.random()));
    };
  };
  s.status('connecting');
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    es?.close();
  };
}
