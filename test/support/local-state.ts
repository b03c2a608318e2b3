import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { createConnection } from 'mysql2/promise';

/** Helpers shared by the tests, the benchmarks and the soak: nothing here loads the app. */

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const spawned = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Kills a test's own server (redis-server, mariadbd) when the test process exits, whatever
 * the path: a worker torn down before its afterAll ran must not leave servers behind.
 */
export function killOnExit(proc: ChildProcess): ChildProcess {
  spawned.add(proc);
  proc.once('exit', () => spawned.delete(proc));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const p of spawned) p.kill('SIGKILL');
    });
  }
  return proc;
}

/** A TCP port free on loopback right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Drops the three databases named after `name` and the Redis keys under its prefix. */
export async function dropLocalState(name: string, redisUrl = 'redis://127.0.0.1:6379'): Promise<void> {
  const conn = await createConnection({ host: '127.0.0.1', user: 'root' });
  try {
    for (const db of [name, `${name}_log`, `${name}_notification`])
      await conn.query(`DROP DATABASE IF EXISTS \`${db}\``);
  } finally {
    await conn.end();
  }
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${name}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
