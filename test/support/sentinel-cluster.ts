import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, killOnExit, sleep } from './local-state.js';

/** Whether redis-sentinel can run here (Debian's redis-sentinel package); tests skip loudly without it. */
export function sentinelAvailable(): boolean {
  return spawnSync('redis-sentinel', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function ask<T>(port: number, run: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await run(r);
  } finally {
    r.disconnect();
  }
}

async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`Sentinel cluster: timed out waiting for ${what}`);
}

/**
 * A Redis primary, one replica and three sentinels of the test's own, on free loopback ports:
 * what an operator runs for Redis that survives the loss of its primary. The sentinels declare
 * the primary down after `downAfterMs` without an answer and promote the replica (quorum 2).
 */
export class SentinelCluster {
  readonly name = 'bulkmaster';
  private readonly procs = new Map<number, ChildProcess>();

  private constructor(
    private readonly dir: string,
    readonly dataPorts: [number, number],
    readonly sentinelPorts: number[],
  ) {}

  static async start(opts: { downAfterMs?: number } = {}): Promise<SentinelCluster> {
    const ports = [await freePort(), await freePort()] as [number, number];
    const sentinels = [await freePort(), await freePort(), await freePort()];
    const c = new SentinelCluster(mkdtempSync(join(tmpdir(), 'bm-sentinel-')), ports, sentinels);
    try {
      await c.startData(ports[0]);
      await c.startData(ports[1], ports[0]);
      await until('the replica in sync', 15_000, () =>
        ask(ports[1], async (r) => /master_link_status:up/.test(await r.info('replication'))),
      );
      for (const port of sentinels) c.startSentinel(port, ports[0], opts.downAfterMs ?? 1000);
      // Each sentinel must know the replica (from the primary's INFO) and the other two (from
      // their hellos) before a failover can be agreed.
      await until('the sentinels to know the replica and each other', 30_000, async () => {
        for (const port of sentinels) {
          const ok = await ask(port, async (r) => {
            const replicas = (await r.call('SENTINEL', 'REPLICAS', c.name)) as unknown[];
            const peers = (await r.call('SENTINEL', 'SENTINELS', c.name)) as unknown[];
            return replicas.length === 1 && peers.length === 2;
          });
          if (!ok) return false;
        }
        return true;
      });
    } catch (err) {
      await c.destroy();
      throw err;
    }
    return c;
  }

  /** For REDIS_SENTINELS. */
  get sentinels(): string {
    return this.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',');
  }

  /** `127.0.0.1:port` of the primary the sentinels name now. */
  async primary(): Promise<string> {
    for (const port of this.sentinelPorts) {
      const addr = await ask(port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name)).catch(
        () => null,
      );
      if (Array.isArray(addr)) return `${String(addr[0])}:${String(addr[1])}`;
    }
    throw new Error('no sentinel answers');
  }

  /** Runs `run` on a connection of its own to the primary the sentinels name now (to read what is stored there). */
  async onPrimary<T>(run: (r: Redis) => Promise<T>): Promise<T> {
    return ask(Number((await this.primary()).split(':')[1]), run);
  }

  /** SIGKILLs the server on `port` (a crash: no goodbye to the sentinels or the clients). */
  async kill(port: number): Promise<void> {
    const p = this.procs.get(port);
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  }

  /** Waits until the sentinels name a primary other than `old`, and that server says it is one. */
  async waitForPromotion(old: string, ms = 30_000): Promise<string> {
    let now = old;
    await until('a promotion', ms, async () => {
      now = await this.primary();
      if (now === old) return false;
      return ask(Number(now.split(':')[1]), async (r) => /role:master/.test(await r.info('replication')));
    });
    return now;
  }

  async destroy(): Promise<void> {
    for (const port of this.procs.keys()) await this.kill(port);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async startData(port: number, replicaOf?: number): Promise<void> {
    // The replica's first sync writes an RDB file: into the cluster's directory, not the cwd.
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      this.dir,
    ];
    if (replicaOf) args.push('--replicaof', '127.0.0.1', String(replicaOf));
    this.procs.set(port, killOnExit(spawn('redis-server', args, { stdio: 'ignore' })));
    await until(`redis-server on :${port}`, 10_000, () =>
      ask(port, async (r) => (await r.ping()) === 'PONG'),
    );
  }

  private startSentinel(port: number, primaryPort: number, downAfterMs: number): void {
    // Sentinels rewrite their configuration file: each gets a writable one of its own.
    const file = join(this.dir, `sentinel-${port}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${this.dir}`,
        `sentinel monitor ${this.name} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${this.name} ${downAfterMs}`,
        `sentinel failover-timeout ${this.name} 10000`,
        `sentinel parallel-syncs ${this.name} 1`,
        '',
      ].join('\n'),
    );
    this.procs.set(port, killOnExit(spawn('redis-sentinel', [file], { stdio: 'ignore' })));
  }
}
