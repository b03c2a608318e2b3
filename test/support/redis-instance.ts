import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort, killOnExit } from './local-state.js';

export { freePort };

async function waitUntil(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out waiting');
}

async function pings(port: number): Promise<boolean> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined); // refused while the server starts: expected, polled again
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } finally {
    r.disconnect();
  }
}

/** A Redis of the test's own, on its own port, that the test can stop and start again. */
export class RedisInstance {
  private proc?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisInstance> {
    const r = new RedisInstance(await freePort());
    await r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server; a no-op while it runs (a second one could not bind, and the first would be orphaned). */
  async start(): Promise<void> {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) return;
    this.proc = killOnExit(
      spawn(
        'redis-server',
        ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      ),
    );
    await waitUntil(() => pings(this.port), 10_000);
  }

  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
    this.proc = undefined;
  }
}
