import argon2 from 'argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from './auth-context.js';
import { AuthThrottle } from './auth-throttle.service.js';
import { loadConfig } from '../../../config/config.js';
import { passwordTag } from '../api-keys.service.js';
import type { AccountsService } from '../../accounts/accounts.service.js';
import { CredentialCheck } from './credential-check.service.js';

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
    // Light parameters: the rules tested do not depend on what a hash costs.
    hash = await argon2.hash('correct-horse-battery', {
      type: argon2.argon2id,
      memoryCost: 1024,
      timeCost: 1,
      parallelism: 1,
    });
  });

  function setup(concurrency = 2, perAccount = 3, failuresPerKey = '100/60') {
    const config = loadConfig({
      PASSWORD_CHECK_CONCURRENCY: String(concurrency),
      PASSWORD_CHECK_QUEUE_PER_ACCOUNT: String(perAccount),
      AUTH_PASSWORD_FAILURES_PER_KEY: failuresPerKey,
      AUTH_PASSWORD_FAILURES_PER_ACCOUNT: '100/60',
      THROTTLE_REFUSAL_DELAY_MS: '0',
    });
    const accounts = new HeldAccounts(hash);
    const check = new CredentialCheck(
      config,
      accounts as unknown as AccountsService,
      new AuthThrottle(config),
    );
    return { accounts, check };
  }
  const auth = (keyId: string, accountId = `acct-${keyId}`): AuthContext =>
    ({
      key: { id: keyId },
      account: { id: accountId },
      passwordTag: passwordTag(hash),
    }) as unknown as AuthContext;
  const settle = () => new Promise((r) => setImmediate(r));
  /** Releases the held store reads until every check given has an answer. */
  async function answers(accounts: HeldAccounts, checks: Array<Promise<string>>): Promise<string[]> {
    let done = false;
    const all = Promise.all(checks).finally(() => (done = true));
    while (!done) {
      accounts.release();
      await new Promise((r) => setTimeout(r, 20));
    }
    return all;
  }

  it('queues a second check of the same account behind the first instead of refusing it', async () => {
    const { accounts, check } = setup();
    const first = code(check.verify(auth('1'), 'alice', 'wrong-one'));
    const second = code(check.verify(auth('1'), 'alice', 'correct-horse-battery'));
    await settle();
    expect(accounts.calls).toBe(1);
    expect(await answers(accounts, [first, second])).toEqual(['INVALID_CREDENTIALS', 'ok']);
    expect(accounts.calls).toBe(2);
  });

  it("refuses an account's check beyond its queue bound at once, and another account still gets in", async () => {
    const { accounts, check } = setup(2, 2);
    const queued = [
      code(check.verify(auth('1'), 'alice', 'wrong-one')),
      code(check.verify(auth('1'), 'alice', 'wrong-two')),
    ];
    await settle();
    // Another key of the same account shares its lane.
    expect(await code(check.verify(auth('2', 'acct-1'), 'alice', 'wrong-three'))).toBe(
      'RATE_LIMITED retry 1',
    );
    const other = code(check.verify(auth('3'), 'alice', 'correct-horse-battery'));
    await settle();
    expect(accounts.calls).toBe(2); // one of account 1's, and account 3's beside it
    expect(await answers(accounts, [...queued, other])).toEqual([
      'INVALID_CREDENTIALS',
      'INVALID_CREDENTIALS',
      'ok',
    ]);
  });

  it("serves another account's check before the rest of a flooding account's queue", async () => {
    const { accounts, check } = setup(1, 10);
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => code(p.finally(() => order.push(name)));
    const flood = [1, 2, 3].map((i) => track(`a${i}`, check.verify(auth('a'), 'alice', `wrong-${i}`)));
    await settle();
    const other = track('b', check.verify(auth('b'), 'alice', 'correct-horse-battery'));
    await answers(accounts, [...flood, other]);
    expect(order).toEqual(['a1', 'b', 'a2', 'a3']);
  });

  it('refuses a key over its wrong-password limit before reading or hashing anything, queued checks included', async () => {
    const { accounts, check } = setup(2, 10, '2/60');
    const queued = [1, 2, 3, 4].map((i) => code(check.verify(auth('1'), 'alice', `wrong-${i}`)));
    expect(await answers(accounts, queued)).toEqual([
      'INVALID_CREDENTIALS',
      'INVALID_CREDENTIALS',
      'RATE_LIMITED retry 60',
      'RATE_LIMITED retry 60',
    ]);
    expect(accounts.calls).toBe(2);
    expect(await code(check.verify(auth('1'), 'alice', 'correct-horse-battery'))).toBe(
      'RATE_LIMITED retry 60',
    );
    expect(accounts.calls).toBe(2);
  });

  it('joins identical checks under way instead of hashing again', async () => {
    const { accounts, check } = setup();
    const all = Array.from({ length: 5 }, () =>
      code(check.verify(auth('1'), 'alice', 'correct-horse-battery')),
    );
    expect(await answers(accounts, all)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(accounts.calls).toBe(1);
  });

  it('remembers a verified pair while the password tag is unchanged, and checks again when it changes', async () => {
    const { accounts, check } = setup();
    expect(
      await answers(accounts, [code(check.verify(auth('1'), 'alice', 'correct-horse-battery'))]),
    ).toEqual(['ok']);
    expect(await code(check.verify(auth('1'), 'alice', 'correct-horse-battery'))).toBe('ok');
    // Any key of the account: the pair is the account's.
    expect(await code(check.verify(auth('2', 'acct-1'), 'alice', 'correct-horse-battery'))).toBe('ok');
    expect(accounts.calls).toBe(1);
    const changed = { ...auth('1'), passwordTag: 'another-tag' } as AuthContext;
    await answers(accounts, [code(check.verify(changed, 'alice', 'correct-horse-battery'))]);
    expect(accounts.calls).toBe(2);
  });

  it('checks again after the account was seen suspended', async () => {
    const { accounts, check } = setup();
    await answers(accounts, [code(check.verify(auth('1'), 'alice', 'correct-horse-battery'))]);
    check.forgetAccount('acct-1');
    await answers(accounts, [code(check.verify(auth('1'), 'alice', 'correct-horse-battery'))]);
    expect(accounts.calls).toBe(2);
  });
});
