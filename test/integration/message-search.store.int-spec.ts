import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { mainDataSourceOptions } from '../../src/database/data-sources.js';
import { migrateDatabase } from '../../src/database/database-setup.js';
import {
  EXPORT_MARKER,
  MessageSearchStore,
  type ExportRow,
  type MessageFilter,
  type SearchPosition,
} from '../../src/modules/messages/message-search.store.js';
import { MessageStore } from '../../src/modules/messages/message.store.js';
import { dropLocalState } from '../support/local-state.js';
import { seedMessages, seedRecipient } from '../support/message-seed.js';
import { testEnv, uniqueName } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/** The search and export queries against a migrated MySQL database of this file's own. */

const name = uniqueName();
let ds: DataSource;
let search: MessageSearchStore;
let store: MessageStore;
const A = '101';
const B = '102';
const BIG = '103';
const start = new Date('2026-01-01T00:00:00.000Z');
let requestsA: string[] = [];

type Row = { id: string; created_at: Date };

/** Every page of a filter, following positions as the API's cursor does. */
async function pageAll(f: MessageFilter, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let after: SearchPosition | null = null;
  for (;;) {
    const rows = (await search.page(f, after, limit)) as Row[];
    seen.push(...rows.map((r) => String(r.id)));
    if (rows.length < limit) return seen;
    const last = rows[rows.length - 1];
    after = { createdAt: last.created_at, id: String(last.id) };
  }
}

async function processes(): Promise<Array<{ ID: number; INFO: string | null }>> {
  // The marker is split so this query does not find itself.
  return (await ds.query(
    "SELECT ID, INFO FROM information_schema.PROCESSLIST WHERE INFO LIKE CONCAT('%messages', '-export%')",
  )) as Array<{ ID: number; INFO: string | null }>;
}

beforeAll(async () => {
  const config = loadConfig(testEnv(name));
  const options = mainDataSourceOptions(config);
  await migrateDatabase(options, config.database);
  ds = await new DataSource(options).initialize();
  search = new MessageSearchStore(ds);
  store = new MessageStore(ds);
  const q = (sql: string, params?: unknown[]) => ds.query(sql, params);
  ({ requestIds: requestsA } = await seedMessages(q, {
    accountId: A,
    count: 30_000,
    firstId: 1_000_000_000n,
    start,
    perRequest: 500,
  }));
  await seedMessages(q, { accountId: B, count: 5_000, firstId: 2_000_000_000n, start, perRequest: 250 });
  await seedMessages(q, { accountId: BIG, count: 150_000, firstId: 3_000_000_000n, start, perRequest: 5000 });
  await ds.query('ANALYZE TABLE messages, send_requests');
}, 180_000);

afterAll(async () => {
  await ds?.destroy();
  await dropLocalState(name);
});

describe('message search: every filter combination is served by an index', () => {
  const FILTERS = [
    'status',
    'channel',
    'recipient',
    'requests',
    'createdFrom',
    'createdTo',
    'cursor',
  ] as const;
  const combos = Array.from({ length: 1 << FILTERS.length }, (_, mask) =>
    FILTERS.filter((_, i) => mask & (1 << i)),
  );

  function build(combo: readonly string[]): { f: MessageFilter; after: SearchPosition | null } {
    const f: MessageFilter = { accountId: A };
    if (combo.includes('status')) f.status = 'FAILED';
    if (combo.includes('channel')) f.channel = 'email';
    if (combo.includes('recipient')) f.recipient = seedRecipient(42);
    if (combo.includes('requests')) f.sendRequestIds = requestsA.slice(3, 5);
    if (combo.includes('createdFrom')) f.createdFrom = new Date(start.getTime() + 100);
    if (combo.includes('createdTo')) f.createdTo = new Date(start.getTime() + 500);
    const after = combo.includes('cursor') ? { createdAt: new Date(start.getTime() + 50), id: '1' } : null;
    return { f, after };
  }

  it('never scans the messages table, for a page or an export, whatever filters are combined', async () => {
    const scans: string[] = [];
    for (const combo of combos) {
      const { f, after } = build(combo);
      for (const limit of [101, null]) {
        const plan = await search.explainPage(f, after, limit);
        const label = `[${combo.join(', ') || 'account only'}] ${limit ? 'page' : 'export'}`;
        // 'ALL' reads the whole table, 'index' the whole of an index: neither may happen.
        for (const table of ['m', 'r']) {
          const step = plan.find((p) => p.table === table);
          if (!step || step.type === 'ALL' || step.type === 'index' || !step.key)
            scans.push(`${label}: ${table === 'm' ? 'messages' : 'send_requests'} ${String(step?.type)}`);
        }
        // The fallback links: one read of a unique key per row (f by fallback_of, o by id).
        for (const [table, key] of [
          ['f', 'uq_messages_fallback_of'],
          ['o', 'PRIMARY'],
        ]) {
          const step = plan.find((p) => p.table === table);
          if (!step || !['eq_ref', 'ref'].includes(String(step.type)) || step.key !== key)
            scans.push(`${label}: fallback link ${table} ${String(step?.type)} ${String(step?.key)}`);
        }
      }
    }
    expect(combos).toHaveLength(128);
    expect(scans).toEqual([]);
  });

  it('finds a user_reference_id through an index of send_requests', async () => {
    const plan = (await ds.query(
      'EXPLAIN SELECT id FROM send_requests WHERE account_id = ? AND user_reference_id = ?',
      [A, 'seed-1000000003'],
    )) as Array<{ type: string; key: string | null }>;
    expect(plan[0].key).toBe('ix_send_requests_account_reference');
    expect(await search.requestIdsByReference(A, 'seed-1000000003')).toEqual(['1000000003']);
  });
});

describe('message search: results', () => {
  it('pages every matching message once, oldest first, and only the account’s own', async () => {
    const f: MessageFilter = { accountId: A, status: 'DELIVERED', channel: 'sms' };
    const expected = (
      (await ds.query(
        `SELECT id FROM messages WHERE account_id = ? AND status = 'DELIVERED' AND channel = 'sms'
          ORDER BY created_at, id`,
        [A],
      )) as Array<{ id: string }>
    ).map((r) => String(r.id));
    expect(expected.length).toBeGreaterThan(1000);
    // 333 does not divide a request's 500 messages: pages end in the middle of a created_at.
    expect(await pageAll(f, 333)).toEqual(expected);
  });

  it('takes created_from as inclusive and created_to as exclusive', async () => {
    // Requests are 10 ms apart with 500 messages each: [start + 10 ms, start + 30 ms) is requests 1 and 2.
    const ids = await pageAll(
      {
        accountId: A,
        createdFrom: new Date(start.getTime() + 10),
        createdTo: new Date(start.getTime() + 30),
      },
      1000,
    );
    expect(ids).toHaveLength(1000);
    const inRange = (await ds.query('SELECT COUNT(*) AS n FROM messages WHERE send_request_id IN (?)', [
      requestsA.slice(1, 3),
    ])) as Array<{ n: string }>;
    expect(Number(inRange[0].n)).toBe(1000);
  });

  it('matches nothing for an empty set of requests (a user_reference_id no request carries)', async () => {
    expect(await search.page({ accountId: A, sendRequestIds: [] }, null, 10)).toEqual([]);
  });

  it('visits every message exactly once while new messages arrive during the paging', async () => {
    const account = '104';
    const q = (sql: string, params?: unknown[]) => ds.query(sql, params);
    await seedMessages(q, {
      accountId: account,
      count: 3_000,
      firstId: 4_000_000_000n,
      start,
      perRequest: 100,
    });
    const before = new Set(
      (
        (await ds.query('SELECT id FROM messages WHERE account_id = ?', [account])) as Array<{ id: string }>
      ).map((r) => String(r.id)),
    );
    let nextId = 4_100_000_000n;
    const arrived: string[] = [];
    const seen: string[] = [];
    let after: SearchPosition | null = null;
    for (;;) {
      // A new request of 7 messages lands between every two pages, "now" as the pipeline stamps it.
      const reqId = String(nextId++);
      const rows = Array.from({ length: 7 }, () => ({
        id: String(nextId++),
        uuid: randomUUID(),
        recipient: '260970000001',
        status: 'ACKNOWLEDGED' as const,
        reason: null,
        units: 1,
        cost: '0.25',
      }));
      await ds.transaction(async (em) => {
        await store.insertRequests(em, [
          {
            id: reqId,
            accountId: account,
            apiKeyId: '1',
            channel: 'sms',
            sender: 'ACME',
            subject: null,
            body: 'hi',
            replyTo: null,
            source: null,
            callbackUrl: null,
            userReferenceId: null,
            requestHash: Buffer.alloc(32),
            recipientCount: 7,
            acceptedCount: 7,
            unitsPerRecipient: 1,
            cost: '1.75',
            currency: 'ZMW',
            createdAt: new Date(),
            sendAt: null,
            dueAt: null,
            validityPeriod: 172_800,
            validUntil: new Date(Date.now() + 172_800_000),
            enqueuedAt: null,
          },
        ]);
        await store.insertMessages(em, [
          {
            common: { sendRequestId: reqId, accountId: account, channel: 'sms', createdAt: new Date() },
            rows,
          },
        ]);
      });
      arrived.push(...rows.map((r) => r.id));
      const page = (await search.page({ accountId: account }, after, 97)) as Row[];
      seen.push(...page.map((r) => String(r.id)));
      if (page.length < 97) break;
      const last = page[page.length - 1];
      after = { createdAt: last.created_at, id: String(last.id) };
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen.includes(id), `message ${id} was never listed`).toBe(true);
    // Each arrival is stamped after everything listed so far, so the paging reaches it.
    expect(seen.filter((id) => !before.has(id)).sort()).toEqual([...arrived].sort());
  }, 60_000);
});

describe('message export', () => {
  it('streams every row of the filter in the search order', async () => {
    const q = await search.openExport({ accountId: B });
    const ids: string[] = [];
    for await (const row of q.rows as AsyncIterable<ExportRow>) ids.push(String(row.id));
    await q.close();
    expect(ids).toEqual(await pageAll({ accountId: B }, 1000));
    expect(ids).toHaveLength(5_000);
  });

  it('stops the query on the server when the reader goes away before the end', async () => {
    const q = await search.openExport({ accountId: BIG });
    const iterator = (q.rows as AsyncIterable<ExportRow>)[Symbol.asyncIterator]();
    for (let i = 0; i < 10; i++) await iterator.next();
    // The reader stopped: MySQL holds the rest, blocked on the socket.
    const running = await processes();
    expect(running).toHaveLength(1);
    expect(running[0].INFO).toContain(EXPORT_MARKER);
    q.rows.destroy();
    await q.close();
    await waitFor(async () => (await processes()).length === 0, 10_000, 'the export query to end');
    // Its connection is closed too, not handed back to the pool in the middle of a result.
    const thread = () =>
      ds.query('SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ?', [running[0].ID]);
    await waitFor(
      async () => ((await thread()) as unknown[]).length === 0,
      10_000,
      'the export thread to end',
    );
    // The pool still serves queries.
    expect(await search.page({ accountId: BIG }, null, 5)).toHaveLength(5);
  });
});
