import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { mainDataSourceOptions } from '../../src/database/data-sources.js';
import { migrateDatabase } from '../../src/database/database-setup.js';
import { SuppressionCheck } from '../../src/modules/suppressions/suppression-check.service.js';
import { SUPPRESSION_CHUNK, SuppressionStore } from '../../src/modules/suppressions/suppression.store.js';
import { dropLocalState } from '../support/local-state.js';
import { testEnv, uniqueName } from '../support/test-app.js';

/** The suppression list and the check of a send against it, on a migrated MySQL database of this file's own. */

const name = uniqueName();
let ds: DataSource;
let store: SuppressionStore;

beforeAll(async () => {
  const config = loadConfig(testEnv(name));
  const options = mainDataSourceOptions(config);
  await migrateDatabase(options, config.database);
  ds = await new DataSource(options).initialize();
  store = new SuppressionStore(ds);
}, 60_000);

afterAll(async () => {
  await ds?.destroy();
  await dropLocalState(name);
});

const live = (accountId: string) => ({ accountId, testMode: false });
const testSide = (accountId: string) => ({ accountId, testMode: true });

/** Records the SQL of every ds.query until stop(). */
function recordStatements(): string[] & { stop: () => void } {
  const statements = [] as unknown as string[] & { stop: () => void };
  const query = ds.query.bind(ds);
  ds.query = ((sql: string, params?: unknown[]) => {
    statements.push(sql);
    return query(sql, params);
  }) as typeof ds.query;
  statements.stop = () => {
    ds.query = query as typeof ds.query;
  };
  return statements;
}

const numbers = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `2609${String(from + i).padStart(8, '0')}`);

describe('the suppression check of a send', () => {
  it('looks recipients up with one statement per chunk, never one per recipient, and marks only the listed ones', async () => {
    const listed = numbers(0, 50_000);
    await store.add(live('11'), 'sms', listed, 'MANUAL');
    const recipients = [...numbers(49_000, 2000), ...numbers(900_000, 500)]; // 1000 listed, 1500 not
    const entries = recipients.map((recipient) => ({
      recipient,
      status: 'ACKNOWLEDGED',
      reason: undefined as string | undefined,
    }));
    entries.push({ recipient: 'bad', status: 'REJECTED', reason: 'INVALID_NUMBER' });

    const statements = recordStatements();
    let marked: number;
    try {
      marked = await new SuppressionCheck(store).apply(live('11'), 'sms', entries);
    } finally {
      statements.stop();
    }
    expect(statements).toHaveLength(Math.ceil(recipients.length / SUPPRESSION_CHUNK));
    expect(marked).toBe(1000);
    expect(entries.filter((e) => e.reason === 'SUPPRESSED').map((e) => e.recipient)).toEqual(
      numbers(49_000, 1000),
    );
    expect(entries.at(-1)).toMatchObject({ status: 'REJECTED', reason: 'INVALID_NUMBER' });
  });

  it('answers small sends of the same tick with one shared statement, each with its own account, side and channel', async () => {
    await store.add(live('16'), 'sms', ['260977000161'], 'MANUAL');
    await store.add(testSide('16'), 'sms', ['260977000162'], 'MANUAL');
    await store.add(live('17'), 'email', ['x@y.example'], 'MANUAL');
    const check = new SuppressionCheck(store);
    const entries = (...recipients: string[]) =>
      recipients.map((recipient) => ({
        recipient,
        status: 'ACKNOWLEDGED',
        reason: undefined as string | undefined,
      }));
    const sends = [
      { owner: live('16'), channel: 'sms' as const, entries: entries('260977000161', '260977000162') },
      { owner: testSide('16'), channel: 'sms' as const, entries: entries('260977000161', '260977000162') },
      { owner: live('17'), channel: 'email' as const, entries: entries('x@y.example') },
      { owner: live('17'), channel: 'sms' as const, entries: entries('x@y.example') },
    ];
    const statements = recordStatements();
    let marked: number[];
    try {
      marked = await Promise.all(sends.map((x) => check.apply(x.owner, x.channel, x.entries)));
    } finally {
      statements.stop();
    }
    expect(statements).toHaveLength(1);
    expect(marked).toEqual([1, 1, 1, 0]);
    expect(sends.map((x) => x.entries.map((e) => e.reason ?? 'ok'))).toEqual([
      ['SUPPRESSED', 'ok'],
      ['ok', 'SUPPRESSED'],
      ['SUPPRESSED'],
      ['ok'],
    ]);
  });

  it('keeps lists apart per account and channel, and keeps the first reason of a repeated entry', async () => {
    await store.add(live('12'), 'sms', ['260977000001'], 'STOP_KEYWORD');
    expect(await store.add(live('12'), 'sms', ['260977000001'], 'MANUAL')).toBe(0);
    expect([...(await store.suppressedAmong(live('12'), 'chat', ['260977000001']))]).toEqual([]);
    expect([...(await store.suppressedAmong(live('13'), 'sms', ['260977000001']))]).toEqual([]);
    const [row] = await store.list(live('12'), 'sms', null, 10);
    expect(row).toMatchObject({ recipient: '260977000001', reason: 'STOP_KEYWORD' });
    // START lifts only what STOP put there.
    await store.add(live('12'), 'sms', ['260977000002'], 'MANUAL');
    expect(await store.remove(live('12'), 'sms', ['260977000001', '260977000002'], 'STOP_KEYWORD')).toBe(1);
  });

  it('keeps an account’s test list apart from its live one: each side is read, added to and cleared alone', async () => {
    await store.add(testSide('15'), 'sms', ['260977000015'], 'STOP_KEYWORD');
    expect([...(await store.suppressedAmong(testSide('15'), 'sms', ['260977000015']))]).toEqual([
      '260977000015',
    ]);
    expect([...(await store.suppressedAmong(live('15'), 'sms', ['260977000015']))]).toEqual([]);
    expect(await store.list(live('15'), null, null, 10)).toEqual([]);
    expect(await store.add(live('15'), 'sms', ['260977000015'], 'MANUAL')).toBe(1);
    expect(await store.remove(testSide('15'), 'sms', ['260977000015'])).toBe(1);
    expect((await store.list(live('15'), 'sms', null, 10)).map((r) => r.reason)).toEqual(['MANUAL']);
  });

  it('pages across channels in a stable order with the cursor', async () => {
    await store.add(live('14'), 'email', ['b@x.example', 'a@x.example'], 'MANUAL');
    await store.add(live('14'), 'sms', ['260977000009'], 'MANUAL');
    const seen: string[] = [];
    let after: { channel: 'sms' | 'email' | 'chat'; recipient: string } | null = null;
    for (;;) {
      const page = await store.list(live('14'), null, after, 1);
      if (page.length === 0) break;
      seen.push(`${page[0].channel}:${page[0].recipient}`);
      after = { channel: page[0].channel, recipient: page[0].recipient };
    }
    expect(seen).toEqual(['sms:260977000009', 'email:a@x.example', 'email:b@x.example']);
  });
});
