import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.js';
import { redisOptions } from './redis-options.js';

const clear = { REDIS_SENTINELS: undefined, REDIS_SENTINEL_NAME: undefined, REDIS_PASSWORD: undefined };

describe('Redis connection options (every connection of the process is built from them)', () => {
  it('REDIS_URL alone: that server, with its password and database number', () => {
    const c = loadConfig({ ...clear, REDIS_URL: 'redis://:s3cr%40t@cache.internal:6390/2' });
    const o = redisOptions(c.redis, { connectTimeout: 2000 });
    expect(o).toMatchObject({
      host: 'cache.internal',
      port: 6390,
      password: 's3cr@t',
      db: 2,
      connectTimeout: 2000,
    });
    expect(o.sentinels).toBeUndefined();
    expect(redisOptions(loadConfig({ ...clear, REDIS_URL: 'rediss://r:6379' }).redis).tls).toEqual({});
  });

  it('REDIS_SENTINELS: asks the sentinels for the primary by name, with each password, and follows promotions', () => {
    const c = loadConfig({
      REDIS_URL: 'redis://ignored:6379/3',
      REDIS_SENTINELS: 's1:26379, s2:26380,[::1]:26381',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
      REDIS_PASSWORD: 'data-pw',
    });
    const o = redisOptions(c.redis, { enableOfflineQueue: false });
    expect(o).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      name: 'mymaster',
      role: 'master',
      sentinelPassword: 'sentinel-pw',
      password: 'data-pw',
      db: 3,
      failoverDetector: false,
      enableOfflineQueue: false,
    });
    expect(o.host).toBeUndefined();
  });

  it('refuses a sentinel list without the monitored name, a name without sentinels, and a malformed list', () => {
    expect(() => loadConfig({ ...clear, REDIS_SENTINELS: 's1:26379' })).toThrow(/REDIS_SENTINEL_NAME/);
    expect(() => loadConfig({ ...clear, REDIS_SENTINEL_NAME: 'mymaster' })).toThrow(/REDIS_SENTINELS/);
    for (const bad of ['s1', 's1:abc', 's1:26379;s2:26379', 'redis://s1:26379'])
      expect(() => loadConfig({ ...clear, REDIS_SENTINELS: bad, REDIS_SENTINEL_NAME: 'm' }), bad).toThrow(
        ConfigError,
      );
  });
});
