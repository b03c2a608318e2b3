import { DataSource, type DataSourceOptions } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { mainDataSourceOptions } from '../../src/database/data-sources.js';
import { migrateDatabase } from '../../src/database/database-setup.js';
import { FamilyDailySpend1764054100000 } from '../../src/database/migrations/main/1764054100000-family-daily-spend.js';
import { DailySpendStore } from '../../src/modules/balance/daily-spend.store.js';
import {
  SpendLimitExceeded,
  SpendLimits,
  type SpendCharge,
} from '../../src/modules/balance/spend-limits.service.js';
import { dropLocalState } from '../support/local-state.js';
import { testEnv, uniqueName } from '../support/test-app.js';

/** The daily spend rows against a migrated MySQL database of this file's own, many connections racing. */

const name = uniqueName();
let ds: DataSource;
let limits: SpendLimits;
let owner = 1000;

const charge = (over: Partial<SpendCharge> = {}): SpendCharge => ({
  accountId: '1',
  apiKeyId: '1',
  amount: '1',
  at: new Date(),
  accountLimit: null,
  keyLimit: null,
  ...over,
});

/** One send transaction as the committer runs it: rows made first, then charged under their lock. */
async function send(c: SpendCharge): Promise<'ok' | SpendLimitExceeded> {
  await limits.prepare(c);
  try {
    await ds.transaction((em) => limits.charge(em, [c]));
    return 'ok';
  } catch (err) {
    if (err instanceof SpendLimitExceeded) return err;
    throw err;
  }
}

beforeAll(async () => {
  const config = loadConfig(testEnv(name));
  // Enough connections for every racing transaction to hold one.
  const options = { ...mainDataSourceOptions(config), poolSize: 25 } as DataSourceOptions;
  await migrateDatabase(options, config.database);
  ds = await new DataSource(options).initialize();
  limits = new SpendLimits(new DailySpendStore(ds));
});

afterAll(async () => {
  await ds?.destroy();
  await dropLocalState(name);
});

describe('SpendLimits', () => {
  it('lets exactly 5 of 20 racing transactions through a key limit that pays for 5', async () => {
    const c = charge({
      accountId: String(++owner),
      apiKeyId: String(++owner),
      amount: '0.5',
      keyLimit: '2.5',
    });
    const results = await Promise.all(Array.from({ length: 20 }, () => send({ ...c })));
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(await limits.spentToday('key', c.apiKeyId)).toBe('2.500000');
    expect(await limits.spentToday('account', c.accountId)).toBe('2.500000');
  });

  it('lets exactly 4 of 20 racing transactions from two keys through the account limit', async () => {
    const accountId = String(++owner);
    const keys = [String(++owner), String(++owner)];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(charge({ accountId, apiKeyId: keys[i % 2], amount: '1', accountLimit: '4', keyLimit: '10' })),
      ),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(4);
    expect(await limits.spentToday('account', accountId)).toBe('4.000000');
  });

  it('reports the tighter remaining amount and the limit that refused', async () => {
    const c = charge({ accountId: String(++owner), apiKeyId: String(++owner), amount: '3' });
    expect(await send({ ...c, accountLimit: '10', keyLimit: '5' })).toBe('ok');
    const refused = await send({ ...c, accountLimit: '4', keyLimit: '5' });
    expect(refused).toBeInstanceOf(SpendLimitExceeded);
    expect(refused).toMatchObject({ scope: 'account', limit: '4.000000', remaining: '1.000000' });
  });

  it('checks each charge of one batch in order, against what the earlier ones added', async () => {
    const c = charge({ accountId: String(++owner), apiKeyId: String(++owner), amount: '2', keyLimit: '3' });
    await limits.prepare(c);
    await expect(ds.transaction((em) => limits.charge(em, [c, { ...c }]))).rejects.toMatchObject({
      scope: 'key',
      remaining: '1.000000',
    });
    // The batch rolled back whole: nothing was added.
    expect(await limits.spentToday('key', c.apiKeyId)).toBe('0.000000');
  });

  it('gives a refund back to the day it was charged, never below zero', async () => {
    const c = charge({ accountId: String(++owner), apiKeyId: String(++owner), amount: '2' });
    await send(c);
    const back = { accountId: c.accountId, apiKeyId: c.apiKeyId, chargedAt: c.at };
    await ds.transaction((em) => limits.giveBack(em, [{ ...back, amount: '0.5' }]));
    expect(await limits.spentToday('key', c.apiKeyId)).toBe('1.500000');
    await ds.transaction((em) => limits.giveBack(em, [{ ...back, amount: '5' }]));
    expect(await limits.spentToday('account', c.accountId)).toBe('0.000000');
  });

  it("lets exactly 5 of 20 racing transactions of a parent and two sub-accounts through the parent's limit", async () => {
    const parentId = String(++owner);
    const members = [parentId, String(++owner), String(++owner)].map((accountId) => ({
      accountId,
      apiKeyId: String(++owner),
    }));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const m = members[i % 3]!;
        // The parent's own charge names no parent: its account row is the family's.
        const family = m.accountId === parentId ? {} : { parentId, parentLimit: '5' };
        return send(
          charge({ ...m, amount: '1', accountLimit: m.accountId === parentId ? '5' : null, ...family }),
        );
      }),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(results.filter((r) => r !== 'ok').map((r) => (r as SpendLimitExceeded).scope)).not.toContain(
      'key',
    );
    expect(await limits.spentToday('account', parentId)).toBe('5.000000');
    const own = await Promise.all(members.map((m) => limits.spentToday('account', m.accountId)));
    // The sub-accounts' own rows plus the parent's own sends make the family's total.
    expect(Number(own[1]) + Number(own[2])).toBeLessThanOrEqual(5);
  });

  it('races charges and refunds across a family without a deadlock, ending at what was charged less what was given back', async () => {
    const parentId = String(++owner);
    const children = [String(++owner), String(++owner)].map((accountId) => ({
      accountId,
      apiKeyId: String(++owner),
    }));
    const at = new Date();
    for (const c of children) await send(charge({ ...c, parentId, amount: '10', at }));
    const work = Array.from({ length: 30 }, (_, i) => {
      const c = children[i % 2]!;
      if (i % 3 === 0)
        return ds
          .transaction((em) => limits.giveBack(em, [{ ...c, parentId, amount: '1', chargedAt: at }]))
          .then(() => 'back');
      return send(charge({ ...c, parentId, parentLimit: '1000', amount: '2', at }));
    });
    const results = await Promise.all(work);
    expect(results.filter((r) => r === 'ok')).toHaveLength(20);
    // 2 × 10 first, then 20 × 2 charged and 10 × 1 given back.
    expect(await limits.spentToday('account', parentId, at)).toBe('50.000000');
  });

  it("folds the day's spend of existing sub-accounts into their parents' rows on upgrade, leaving earlier days", async () => {
    const ids = [++owner, ++owner, ++owner].map(String);
    const [parentId, childA, childB] = ids as [string, string, string];
    for (const id of ids)
      await ds.query(
        `INSERT INTO accounts (id, parent_id, client_id, username, password_hash, currency, callback_secret)
         VALUES (?, ?, UUID(), CONCAT('fold-', ?), '!', 'ZMW', 'x')`,
        [id, id === parentId ? null : parentId, id],
      );
    const today = new Date();
    const yesterday = new Date(Date.now() - 86_400_000);
    for (const [id, amount, at] of [
      [parentId, '1', today],
      [childA, '2', today],
      [childB, '3', today],
      [childA, '7', yesterday],
    ] as const)
      await send(charge({ accountId: id, apiKeyId: String(++owner), amount, at }));
    const runner = ds.createQueryRunner();
    try {
      await new FamilyDailySpend1764054100000().up(runner);
    } finally {
      await runner.release();
    }
    expect(await limits.spentToday('account', parentId)).toBe('6.000000');
    expect(await limits.spentToday('account', parentId, yesterday)).toBe('0.000000');
    expect(await limits.spentToday('account', childA)).toBe('2.000000');
  });

  it('counts a charge toward its own UTC day', async () => {
    const c = charge({ accountId: String(++owner), apiKeyId: String(++owner), amount: '1', keyLimit: '1' });
    const yesterday = new Date(Date.now() - 86_400_000);
    expect(await send({ ...c, at: yesterday })).toBe('ok');
    expect(await send(c)).toBe('ok');
    expect(await limits.spentToday('key', c.apiKeyId, yesterday)).toBe('1.000000');
    expect(await limits.spentToday('key', c.apiKeyId)).toBe('1.000000');
  });
});
