import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { subscriber } from './redis-subscriber.js';

/**
 * A Redis stand-in that speaks just enough of the protocol for a subscriber's handshake, and
 * hands each INFO (ioredis's ready check, its last step before sending what it owes) to the
 * test to answer when it chooses.
 */
class FakeRedis {
  readonly commands: Array<{ conn: number; args: string[] }> = [];
  private readonly sockets: Socket[] = [];
  private readonly infoWaiters: Array<(answer: () => void) => void> = [];
  private readonly subscribeWaiters: Array<{ count: number; resolve: () => void }> = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((socket) => {
      const conn = this.sockets.push(socket) - 1;
      socket.on('error', () => undefined);
      let buf = '';
      socket.on('data', (d) => {
        buf += d.toString('utf8');
        for (let parsed = parse(buf); parsed; parsed = parse(buf)) {
          buf = buf.slice(parsed.length);
          this.answer(socket, conn, parsed.args);
        }
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return (this.server.address() as AddressInfo).port;
  }

  /** Resolves with the answer to the next INFO, once it has arrived. */
  nextInfo(): Promise<() => void> {
    return new Promise((r) => this.infoWaiters.push(r));
  }

  /** Cuts every connection, as a Redis restart does. */
  drop(): void {
    for (const s of this.sockets) s.destroy();
  }

  /** The connections (numbered from 0) that sent SUBSCRIBE, in order. */
  subscribedOn(): number[] {
    return this.commands.filter((c) => c.args[0] === 'subscribe').map((c) => c.conn);
  }

  /** Resolves once `count` SUBSCRIBEs have arrived in all. */
  subscribes(count: number): Promise<void> {
    if (this.subscribedOn().length >= count) return Promise.resolve();
    return new Promise((resolve) => this.subscribeWaiters.push({ count, resolve }));
  }

  close(): Promise<void> {
    this.drop();
    return new Promise((r) => this.server.close(() => r()));
  }

  private answer(socket: Socket, conn: number, args: string[]): void {
    const name = args[0]!.toLowerCase();
    this.commands.push({ conn, args: [name, ...args.slice(1)] });
    if (name === 'info') {
      const reply = () => socket.write(bulk('# Server\r\nloading:0\r\n'));
      const waiter = this.infoWaiters.shift();
      if (waiter) waiter(reply);
      else reply();
    } else if (name === 'subscribe') {
      socket.write(`*3\r\n${bulk('subscribe')}${bulk(args[1]!)}:1\r\n`);
      const n = this.subscribedOn().length;
      for (const w of this.subscribeWaiters.filter((w) => w.count <= n)) w.resolve();
    } else socket.write('+OK\r\n');
  }
}

const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;

/** One RESP array of bulk strings at the start of `buf` (how clients send commands), if whole. */
function parse(buf: string): { args: string[]; length: number } | undefined {
  const lines = buf.split('\r\n');
  if (!lines[0]?.startsWith('*') || lines.length < 2) return undefined;
  const n = Number(lines[0].slice(1));
  if (lines.length < 2 + 2 * n) return undefined;
  const args = Array.from({ length: n }, (_, i) => lines[2 + 2 * i]!);
  return { args, length: lines.slice(0, 1 + 2 * n).join('\r\n').length + 2 };
}

const events = (client: Redis, name: string) => new Promise<void>((r) => client.once(name, () => r()));

describe('subscriber', () => {
  const fakes: FakeRedis[] = [];
  const clients: Redis[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const f of fakes.splice(0)) await f.close();
  });

  async function setUp() {
    const fake = new FakeRedis();
    fakes.push(fake);
    const base = new Redis({ port: await fake.listen(), lazyConnect: true, retryStrategy: () => 10 });
    clients.push(base);
    const failures: Error[] = [];
    const sub = subscriber(base, 'wake', { onMessage: () => undefined, onFailure: (e) => failures.push(e) });
    clients.push(sub);
    return { fake, sub, failures };
  }

  it('subscribes again after a reconnection', async () => {
    const { fake } = await setUp();
    await fake.subscribes(1);
    fake.drop();
    await fake.subscribes(2);
    expect(fake.subscribedOn()).toEqual([0, 1]);
  });

  it('passes the failure of a SUBSCRIBE sent after the connection began closing to onFailure, none unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { fake, sub, failures } = await setUp();
      await fake.subscribes(1);
      // Redis restarts; the shutdown closes the connection while its reconnection is checking
      // that Redis is ready, and Redis answers the check only then.
      const info = fake.nextInfo();
      fake.drop();
      const answer = await info;
      const ended = events(sub, 'end');
      sub.disconnect();
      answer();
      await ended;
      // Rejections nobody handles are reported once the promise jobs have run.
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
      expect(failures.map((e) => e.message)).toEqual(['Connection is closed.']);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
