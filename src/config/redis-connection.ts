import type { ConfigError } from './config-error.js';

/** Where every Redis connection of the process goes: one server, or the primary Sentinel names. */
export interface RedisConnection {
  /** REDIS_URL (or its default): the server when no sentinels are given; its database number and password apply either way. */
  url: string;
  /** REDIS_SENTINELS: with them, the primary is asked of the sentinels and followed through failovers. */
  sentinels: Array<{ host: string; port: number }>;
  /** REDIS_SENTINEL_NAME: the name the sentinels monitor the primary under. */
  sentinelName?: string;
  /** REDIS_SENTINEL_PASSWORD: the sentinels' own password (their requirepass), when they have one. */
  sentinelPassword?: string;
  /** REDIS_PASSWORD: the primary's and replicas' password; wins over one in REDIS_URL. */
  password?: string;
}

export interface RedisEnv {
  REDIS_URL?: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_NAME?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_PASSWORD?: string;
}

/** `host:port,host:port` (a bracketed IPv6 host allowed); the schema has checked the form. */
function parseSentinels(text: string): Array<{ host: string; port: number }> {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const at = s.lastIndexOf(':');
      return { host: s.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(s.slice(at + 1)) };
    });
}

/** The Redis settings, checked together (a sentinel list needs the name it monitors). */
export function redisConnection(env: RedisEnv, fail: (problems: string[]) => ConfigError): RedisConnection {
  const sentinels = env.REDIS_SENTINELS ? parseSentinels(env.REDIS_SENTINELS) : [];
  if (sentinels.length && !env.REDIS_SENTINEL_NAME)
    throw fail([
      'REDIS_SENTINEL_NAME="": required with REDIS_SENTINELS (the name the sentinels monitor the primary under)',
    ]);
  if (!sentinels.length && env.REDIS_SENTINEL_NAME)
    throw fail([`REDIS_SENTINELS="": required with REDIS_SENTINEL_NAME (host:port of each sentinel)`]);
  return {
    url: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    sentinels,
    ...(env.REDIS_SENTINEL_NAME ? { sentinelName: env.REDIS_SENTINEL_NAME } : {}),
    ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
  };
}
