import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/config.js';
import { AuthThrottle } from './auth-throttle.service.js';

const config = loadConfig({
  AUTH_FAILURES_PER_ADDRESS: '3/60',
  AUTH_FAILURES_PER_ADDRESS_AND_KEY: '2/60',
  AUTH_PASSWORD_FAILURES_PER_KEY: '2/60',
  AUTH_PASSWORD_FAILURES_PER_ACCOUNT: '5/60',
  THROTTLE_REFUSAL_DELAY_MS: '0',
  QUEUE_PREFIX: `auththrottle_${process.pid}`,
});

const code = (p: Promise<unknown> | null | undefined) =>
  (p ?? Promise.resolve()).then(
    () => 'ok',
    (e: { code?: string; headers?: Record<string, string> }) =>
      `${e.code} ${e.headers?.['Retry-After'] ? 'with Retry-After' : ''}`.trim(),
  );

describe('AuthThrottle', () => {
  // Nothing listens on port 1: every Redis command fails at once, as during an outage.
  const deadRedis = new Redis('redis://127.0.0.1:1', {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  deadRedis.on('error', () => undefined);
  afterAll(() => deadRedis.disconnect());

  it('refuses failed keys from an address once it has used up its failures, and no other address', async () => {
    const t = new AuthThrottle(config);
    for (let i = 0; i < 3; i++) {
      expect(await code(t.refuseFailedKey('192.0.2.1', `bad-${i}`))).toBe('ok');
      await t.keyFailed('192.0.2.1', `bad-${i}`);
    }
    expect(await code(t.refuseFailedKey('192.0.2.1', 'bad-9'))).toBe('RATE_LIMITED with Retry-After');
    expect(await code(t.refuseFailedKey('192.0.2.2', 'bad-9'))).toBe('ok');
  });

  it('refuses one key repeated from one address before the address limit, and not that key elsewhere', async () => {
    const t = new AuthThrottle(config);
    for (let i = 0; i < 2; i++) await t.keyFailed('192.0.2.3', 'stale');
    expect(await code(t.refuseFailedKey('192.0.2.3', 'stale'))).toBe('RATE_LIMITED with Retry-After');
    expect(await code(t.refuseFailedKey('192.0.2.3', 'other'))).toBe('ok');
    expect(await code(t.refuseFailedKey('192.0.2.4', 'stale'))).toBe('ok');
  });

  it('refuses a key after its wrong passwords, and the account after those of all its keys', async () => {
    const t = new AuthThrottle(config);
    await t.passwordFailed('k1', 'a1');
    expect(await code(t.checkPassword('k1', 'a1'))).toBe('ok');
    await t.passwordFailed('k1', 'a1');
    expect(await code(t.checkPassword('k1', 'a1'))).toBe('RATE_LIMITED with Retry-After');
    // Other keys of the account still have room until the account's own limit (5).
    expect(await code(t.checkPassword('k2', 'a1'))).toBe('ok');
    for (const k of ['k2', 'k3', 'k4']) await t.passwordFailed(k, 'a1');
    expect(await code(t.checkPassword('k5', 'a1'))).toBe('RATE_LIMITED with Retry-After');
    expect(await code(t.checkPassword('k9', 'a2'))).toBe('ok');
  });

  it('keeps counting in memory when Redis does not answer, instead of letting everything through or failing', async () => {
    const t = new AuthThrottle(config, deadRedis);
    for (let i = 0; i < 3; i++) await t.keyFailed('198.51.100.1', `bad-${i}`);
    expect(await code(t.refuseFailedKey('198.51.100.1', 'bad-9'))).toBe('RATE_LIMITED with Retry-After');
    await t.passwordFailed('k1', 'a1');
    await t.passwordFailed('k1', 'a1');
    expect(await code(t.checkPassword('k1', 'a1'))).toBe('RATE_LIMITED with Retry-After');
    expect(await code(t.checkPassword('k2', 'a2'))).toBe('ok');
  });
});
