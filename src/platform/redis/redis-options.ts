import type { RedisOptions } from 'ioredis';
import type { RedisConnection } from '../../config/redis-connection.js';

/** Reconnect attempts every 50 ms more, up to one a second: a promoted primary is found within a second. */
const retryStrategy = (times: number): number => Math.min(times * 50, 1000);

/**
 * After a failover the old primary may come back as a replica while a connection still points
 * at it: its writes then fail with READONLY. Reconnecting (2: and resending the command) asks
 * the sentinels for the primary again.
 */
const reconnectOnError = (err: Error): 2 | false => (err.message.startsWith('READONLY') ? 2 : false);

/** REDIS_URL as ioredis options (rediss:// turns TLS on); its database number applies in Sentinel mode too. */
function fromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = Number(u.pathname.replace(/^\//, '') || 0);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * The one place a Redis connection's options are made: the app's own client, the rate-limit
 * counters, the auth throttles and every Bull queue (and so the dashboard) start from here,
 * with `extra` for what each needs of its own (timeouts, offline queue). With REDIS_SENTINELS
 * the connection asks the sentinels for the primary, and asks again whenever the connection
 * drops or a write is answered READONLY, so a promotion is followed without a restart.
 * ioredis's failoverDetector (reconnect on the sentinels' +switch-master) stays off: its
 * listener of an earlier connection can fire while a reconnect is asking the sentinels, and
 * ioredis then ends that connection for good (status `end`: a queue that never dispatches
 * again), as the Sentinel failover test saw in 2 of 8 runs. A primary that dies closes its
 * sockets, and one that comes back demoted answers writes READONLY.
 */
export function redisOptions(conn: RedisConnection, extra: RedisOptions = {}): RedisOptions {
  const url = fromUrl(conn.url);
  const common: RedisOptions = {
    retryStrategy,
    reconnectOnError,
    ...(conn.password ? { password: conn.password } : {}),
  };
  if (!conn.sentinels.length) return { ...url, ...common, ...extra };
  // The sentinels name the host and port; the URL still gives the credentials and database.
  return {
    ...(url.username ? { username: url.username } : {}),
    ...(url.password ? { password: url.password } : {}),
    ...(url.db ? { db: url.db } : {}),
    ...common,
    sentinels: conn.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: conn.sentinelName,
    role: 'master',
    ...(conn.sentinelPassword ? { sentinelPassword: conn.sentinelPassword } : {}),
    failoverDetector: false,
    sentinelRetryStrategy: retryStrategy,
    ...extra,
  };
}

/** `host:port` of the server a connected client talks to (for Sentinel, the primary in use); undefined while not connected. */
export function connectedAddress(client: {
  stream?: { remoteAddress?: string; remotePort?: number };
}): string | undefined {
  const s = client.stream;
  if (!s?.remoteAddress || !s.remotePort) return undefined;
  return s.remoteAddress.includes(':')
    ? `[${s.remoteAddress}]:${s.remotePort}`
    : `${s.remoteAddress}:${s.remotePort}`;
}
