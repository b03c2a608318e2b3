import argon2 from 'argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from './auth-context.js';
import { AuthThrottle } from './auth-throttle.js';
import { loadConfig } from '../../../config/config.js';
import { passwordTag } from '../api-keys.service.js';
import type { AccountsService } from '../../accounts/accounts.service.js';
import { CredentialCheck } from './credential-check.js';

/**
 * The account store is held back by the test, so checks stay "under way" for as long as the
 * test needs: what the bounds do to checks that overlap does not depend on how fast argon2 is.
 */
class HeldAccounts {
  calls = 0;
  private waiting: Array<() => void> = [];
  constructor(private readonly hash: string) {}
  credentials(): Promise<{ username: string; passwordHash: string }> {
    this.calls++;
    return new Promise((resolve) =>
      this.waiting.push(() => resolve({ username: 'alice', passwordHash: this.hash })),
    );
  }
  release(): void {
    for (const w of this.waiting.splice(0)) w();
  }
}

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string; headers?: Record<string, string> }) =>
      `${e.code}${e.headers?.['Retry-After'] ? ` retry ${e.headers['Retry-After']}` : ''}`,
  );

describe('CredentialCheck', () => {
  let hash: string;
  beforeAll(async () => {
    hash = await argon2.hash('correct-horse-battery', { type: argon2.argon2id });
  });

  function setup(concurrency = 2) {
    const config = loadConfig({
      PASSWORD_CHECK_CONCURRENCY: String(concurrency),
      AUTH_PASSWORD_FAILURES_PER_KEY: '100/60',
      AUTH_PASSWORD_FAILURES_PER_ACCOUNT: '100/60',
    });
    const accounts = new HeldAccounts(hash);
    const check = new CredentialCheck(
      config,
      accounts as unknown as AccountsService,
      new AuthThrottle(config),
    );
    return { accounts, check };
  }
  const auth = (keyId: string): AuthContext =>
    ({
      key: { id: keyId },
      account: { id: `acct-${keyId}` },
      passwordTag: passwordTag(hash),
    }) as unknown as AuthContext;
  const settle = () => new Promise((r) => setImmediate(r));

  it('runs one check per key at a time: a second, different password for the same key is refused at once', async () => {
    const { accounts, check } = setup();
    const first = code(check.verify(auth('1'), 'alice', 'wrong-one', '192.0.2.1'));
    await settle();
    expect(await code(check.verify(auth('1'), 'alice', 'wrong-two', '192.0.2.1'))).toBe(
      'RATE_LIMITED retry 1',
    );
    accounts.release();
    expect(await first).toBe('INVALID_CREDENTIALS');
  });

  it('joins identical checks under way instead of hashing again', async () => {
    const { accounts, check } = setup();
    const all = Array.from({ length: 5 }, () =>
      code(check.verify(auth('1'), 'alice', 'correct-horse-battery', undefined)),
    );
    await settle();
    accounts.release();
    expect(await Promise.all(all)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(accounts.calls).toBe(1);
  });

  it('caps the checks of all keys together and refuses beyond the cap without waiting', async () => {
    const { accounts, check } = setup(2);
    const a = code(check.verify(auth('1'), 'alice', 'correct-horse-battery', undefined));
    const b = code(check.verify(auth('2'), 'alice', 'correct-horse-battery', undefined));
    await settle();
    expect(await code(check.verify(auth('3'), 'alice', 'correct-horse-battery', undefined))).toBe(
      'RATE_LIMITED retry 1',
    );
    accounts.release();
    expect([await a, await b]).toEqual(['ok', 'ok']);
    // Room again once the checks are done.
    const c = code(check.verify(auth('3'), 'alice', 'correct-horse-battery', undefined));
    await settle();
    accounts.release();
    expect(await c).toBe('ok');
  });

  it('remembers a verified pair while the password tag is unchanged, and checks again when it changes', async () => {
    const { accounts, check } = setup();
    const first = code(check.verify(auth('1'), 'alice', 'correct-horse-battery', undefined));
    await settle();
    accounts.release();
    expect(await first).toBe('ok');
    expect(await code(check.verify(auth('1'), 'alice', 'correct-horse-battery', undefined))).toBe('ok');
    expect(accounts.calls).toBe(1);
    const changed = { ...auth('1'), passwordTag: 'another-tag' } as AuthContext;
    const again = code(check.verify(changed, 'alice', 'correct-horse-battery', undefined));
    await settle();
    accounts.release();
    await again;
    expect(accounts.calls).toBe(2);
  });
});
