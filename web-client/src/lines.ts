// NDJSON framing of the fan-out protocol (docs/WEBTRANSPORT.md): one JSON
// object per "\n"-terminated line, at most MAX_LINE bytes.

/** The protocol's longest line (edge to browser as browser to edge). */
export const MAX_LINE = 4096;

/**
 * LineSplitter turns chunks of a byte stream into complete lines. A line
 * longer than max throws: the edge never sends one, so the stream is broken.
 */
export class LineSplitter {
  private buf = '';
  private readonly dec = new TextDecoder();
  constructor(private readonly max = MAX_LINE) {}

  push(chunk: Uint8Array): string[] {
    this.buf += this.dec.decode(chunk, { stream: true });
    const parts = this.buf.split('\n');
    this.buf = parts.pop() as string;
    // Lengths in UTF-16 units bound bytes from below: a line that passes
    // here may still be up to 3x longer in bytes, which only costs memory
    // the edge's own limit already bounds.
    if (this.buf.length > this.max || parts.some((l) => l.length > this.max)) throw new Error('line too long');
    return parts.filter((l) => l !== '');
  }
}

/** readLines calls onLine for each line of a readable byte stream until it ends. */
export async function readLines(readable: ReadableStream<Uint8Array>, onLine: (line: string) => void, max = MAX_LINE): Promise<void> {
  const reader = readable.getReader();
  const split = new LineSplitter(max);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const line of split.push(value)) onLine(line);
    }
  } finally {
    reader.releaseLock();
  }
}

/** parseFrame parses one line as a JSON object, or returns null. */
export function parseFrame(line: string | Uint8Array): Record<string, unknown> | null {
  try {
    const v = JSON.parse(typeof line === 'string' ? line : new TextDecoder().decode(line));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** encodeFrame is one protocol line: the object as JSON and "\n". */
export function encodeFrame(frame: object): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(frame) + '\n');
}

/** backoffDelay is the wait before reconnect attempt n (0-based): doubling from min, capped at max, with jitter in [0.5, 1). */
export function backoffDelay(n: number, min: number, max: number, rand: number): number {
  return Math.min(max, min * 2 ** Math.min(n, 30)) * (0.5 + rand / 2);
}
