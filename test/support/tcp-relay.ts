/**
 * A TCP relay in front of the test host's sshd that a fault test steers: it can trickle what
 * clients send, hold it, and cut every connection, so a write or a wait is interrupted at a point
 * the test observed on the host rather than at a moment guessed with a timer.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface Relay {
  readonly port: number;
  /** Forwards at most `bytes` of what each client sends per tick (50 ms); Infinity forwards all at once. */
  trickle(bytes: number): void;
  /** Forwards nothing more from clients until `trickle` is called again. */
  hold(): void;
  /** Destroys every connection, as a pulled cable or a crashed sshd does. */
  cut(): void;
  /** Resolves once no client is connected: a client that died took its link, and the bytes held for it, along. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const TICK_MS = 50;
/** Past this much queued, the client is paused (its own buffers then fill, as on a slow link). */
const HIGH_WATER = 256 * 1024;

/** One client and its upstream: what the client sent and the relay has not forwarded yet. */
class Pair {
  private readonly queue: Buffer[] = [];
  private queued = 0;

  constructor(
    readonly client: Socket,
    readonly upstream: Socket,
  ) {}

  push(chunk: Buffer): void {
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued > HIGH_WATER) this.client.pause();
  }

  /** Forwards up to `budget` bytes of the queue, in order. */
  pump(budget: number): void {
    while (budget > 0 && this.queue.length > 0) {
      const head = this.queue[0] as Buffer;
      const part = head.subarray(0, budget);
      this.upstream.write(part);
      budget -= part.length;
      this.queued -= part.length;
      if (part.length === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(part.length);
    }
    if (this.queued <= HIGH_WATER) this.client.resume();
  }

  destroy(): void {
    this.client.destroy();
    this.upstream.destroy();
  }
}

export const startRelay = async (upstreamPort: number, upstreamHost = '127.0.0.1'): Promise<Relay> => {
  const pairs = new Set<Pair>();
  let rate = Infinity;
  const server = createServer((client) => {
    const pair = new Pair(client, connect(upstreamPort, upstreamHost));
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      pair.push(chunk);
      if (rate === Infinity) pair.pump(Infinity);
    });
    pair.upstream.on('data', (chunk: Buffer) => client.write(chunk));
    // Either side gone takes the other with it; bytes still held die with the link.
    for (const socket of [client, pair.upstream]) {
      socket.on('error', () => pair.destroy());
      socket.on('close', () => {
        pair.destroy();
        pairs.delete(pair);
      });
    }
  });
  const timer = setInterval(() => {
    for (const pair of pairs) pair.pump(rate);
  }, TICK_MS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    trickle: (bytes) => {
      rate = bytes;
      for (const pair of pairs) pair.pump(rate);
    },
    hold: () => {
      rate = 0;
    },
    cut: () => {
      for (const pair of pairs) pair.destroy();
    },
    idle: async () => {
      while (pairs.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    close: async () => {
      clearInterval(timer);
      for (const pair of pairs) pair.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
