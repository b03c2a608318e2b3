import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, dayStart, partitionName } from '../../src/database/partitions/day-partitions.js';
import { makePartitionsAhead, partitionTables } from '../../src/database/partitions/partition-maintenance.js';
import { PartitionStore } from '../../src/database/partitions/partition.store.js';
import { PartitionMessageTablesByDay1796597880783 } from '../../src/database/migrations/main/1796597880783-partition-message-tables-by-day.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { MessageLookupStore } from '../../src/modules/messages/message-lookup.store.js';
import { uuidOfId } from '../../src/modules/messages/message-uuid.js';
import { PartitionScheduler } from '../../src/modules/retention/partition.scheduler.js';
import { RetentionModule } from '../../src/modules/retention/retention.module.js';
import { RetentionService } from '../../src/modules/retention/retention.service.js';
import { RetentionStore } from '../../src/modules/retention/retention.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { ownerOf, storeSend, type MessageSpec } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The message tables' day partitions: made, made ahead, filled past them, converted and dropped. */

let ctx: ServiceContext;
let store: PartitionStore;
let tenant: Tenant;
let archiveDir: string;

const TABLES = ['messages', 'message_events', 'message_parts'] as const;
const today = dayStart(Date.now());
const names = async (table: (typeof TABLES)[number]) => (await store.bounds(table)).map((b) => b.name);
const send = (at: number, messages: MessageSpec[]) =>
  storeSend(ctx, ownerOf(tenant), { messages, request: { createdAt: new Date(at) } });
const partitionOf = async (id: string) => {
  for (const p of await names('messages')) {
    const rows = (await ctx.ds.query(`SELECT 1 FROM messages PARTITION (${p}) WHERE id = ?`, [
      id,
    ])) as unknown[];
    if (rows.length) return p;
  }
  return undefined;
};

beforeAll(async () => {
  archiveDir = mkdtempSync(join(tmpdir(), 'partitions-'));
  ctx = await startServices([...TENANT_MODULES, MessagesModule, RetentionModule], [], {
    ARCHIVE_DIR: archiveDir,
  });
  store = ctx.get(PartitionStore);
  tenant = await createTenant(ctx);
});

afterAll(async () => {
  await ctx?.close();
  rmSync(archiveDir, { recursive: true, force: true });
});

describe('day partitions of the message tables', () => {
  it('are made by the migration on empty tables, with every unique key holding the partition column', async () => {
    for (const table of TABLES) expect((await names(table)).at(-1)).toBe('pmax');
    const keys = (await ctx.ds.query(
      `SELECT TABLE_NAME AS t, INDEX_NAME AS k, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS cols FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('messages', 'message_events') AND NON_UNIQUE = 0
        GROUP BY TABLE_NAME, INDEX_NAME ORDER BY TABLE_NAME, INDEX_NAME`,
    )) as Array<{ t: string; k: string; cols: string }>;
    expect(keys.map((r) => `${r.t}.${r.k}(${r.cols})`).sort()).toEqual([
      'message_events.PRIMARY(id,message_id)',
      'messages.PRIMARY(id)',
      'messages.uq_messages_fallback_of(fallback_of,id)',
      'messages.uq_messages_uuid(uuid,id)',
    ]);
  });

  it('are made a week ahead by a worker round under the retention lock, the same on every table, once', async () => {
    const scheduler = new PartitionScheduler(store, ctx.get(RetentionStore), ctx.config);
    const made = await scheduler.runOnce();
    expect(made!.length).toBeGreaterThan(0);
    const expected = Array.from({ length: 8 }, (_, i) => partitionName(today + i * DAY_MS));
    for (const table of TABLES) expect((await names(table)).slice(-9)).toEqual([...expected, 'pmax']);
    expect(await scheduler.runOnce()).toEqual([]);
    // Another process pruning holds the lock: the round is skipped.
    const held = await ctx
      .get(RetentionStore)
      .exclusively(ctx.get(RetentionStore).lockName(), () => scheduler.runOnce(today + 30 * DAY_MS));
    expect(held).toBeUndefined();
  });

  it('take a send into a day past them in the catch-all, and split it off into its day later', async () => {
    const at = today + 40 * DAY_MS + 3_600_000;
    const { ids } = await send(at, [{ recipient: '260971000040', status: 'DELIVERED' }]);
    expect(await partitionOf(ids[0])).toBe('pmax');
    await makePartitionsAhead(store, { aheadDays: 7, spanDays: 1 }, at);
    expect(await partitionOf(ids[0])).toBe(partitionName(dayStart(at)));
  });
});

describe('reads by message_id', () => {
  it('reach one partition by the id the UUID carries, and find an older UUID by its index alone', async () => {
    const { ids } = await send(Date.now(), [{ recipient: '260971000301', status: 'DELIVERED' }]);
    const uuid = uuidOfId(ids[0]);
    await ctx.ds.query('UPDATE messages SET uuid = ? WHERE id = ?', [uuid, ids[0]]);
    const lookups = ctx.get(MessageLookupStore);
    expect((await lookups.findOwned(tenant.account.id, { uuid }))?.id).toBe(ids[0]);
    const plan = (await ctx.ds.query(
      'EXPLAIN PARTITIONS SELECT id FROM messages m WHERE m.uuid = ? AND m.id = ?',
      [uuid, ids[0]],
    )) as Array<{ partitions: string; type: string }>;
    expect(plan[0]).toMatchObject({ partitions: partitionName(today), type: 'const' });
    const older = await send(Date.now(), [{ recipient: '260971000302', status: 'DELIVERED' }]);
    const random = older.messages[0].uuid;
    expect((await lookups.findOwned(tenant.account.id, { uuid: random }))?.id).toBe(older.ids[0]);
  });
});

describe('uniqueness with the reworked keys', () => {
  it('refuses a message id, and with it its UUID, a second time', async () => {
    const id = `${Date.now()}123456`;
    await send(Date.now(), [{ recipient: '260971000101', id, uuid: uuidOfId(id) }]);
    await expect(send(Date.now(), [{ recipient: '260971000102', id, uuid: uuidOfId(id) }])).rejects.toThrow(
      /Duplicate entry/,
    );
  });

  it('refuses a repeated user_reference_id and idempotency key by keys of unpartitioned tables', async () => {
    const ref = { userReferenceId: 'partitioned-ref' };
    await storeSend(ctx, ownerOf(tenant), { request: { createdAt: new Date(), ...ref } });
    await expect(
      storeSend(ctx, ownerOf(tenant), { request: { createdAt: new Date(today - 50 * DAY_MS), ...ref } }),
    ).rejects.toThrow(/uq_send_requests_reference/);
    const keys = (await ctx.ds.query(
      `SELECT TABLE_NAME AS t, COUNT(PARTITION_NAME) AS parts FROM information_schema.PARTITIONS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('send_requests', 'idempotency_keys') GROUP BY TABLE_NAME`,
    )) as Array<{ t: string; parts: string }>;
    expect(keys.map((k) => [k.t, Number(k.parts)])).toEqual([
      ['idempotency_keys', 0],
      ['send_requests', 0],
    ]);
  });
});

describe('an unpartitioned database with data', () => {
  const day = (n: number) => today - n * DAY_MS + 3_600_000;

  it('is partitioned by db partition from its oldest day, then pruned by dropping whole days', async () => {
    const runner = ctx.ds.createQueryRunner();
    await new PartitionMessageTablesByDay1796597880783().down(runner);
    await runner.release();
    for (const table of TABLES) expect(await store.bounds(table)).toEqual([]);

    const gone1 = await send(day(12), [
      { recipient: '260971000201', status: 'DELIVERED' },
      { recipient: '260971000202', status: 'FAILED' },
    ]);
    const held = await send(day(11), [
      { recipient: '260971000203', status: 'DELIVERED' },
      { recipient: '260971000204', status: 'SENT' },
    ]);
    const gone2 = await send(day(10), [{ recipient: '260971000205', status: 'UNDELIVERED' }]);
    const fresh = await send(day(1), [{ recipient: '260971000206', status: 'DELIVERED' }]);

    const converted = await partitionTables(store, { aheadDays: 7, spanDays: 1 });
    expect(converted.map((c) => c.table)).toEqual([...TABLES]);
    expect((await names('messages'))[0]).toBe(partitionName(dayStart(day(12))));
    expect(await names('message_events')).toEqual(await names('messages'));
    expect(await partitionOf(held.ids[1])).toBe(partitionName(dayStart(day(11))));

    const r = await ctx.get(RetentionService).prune({ before: new Date(today - 8 * DAY_MS) });
    // Every day before the cutoff goes but the one with a message not final; empty days with them.
    expect(r!.partitions.kept).toEqual([partitionName(dayStart(day(11)))]);
    expect(r!.partitions.dropped).toEqual(
      Array.from({ length: 4 }, (_, i) => partitionName(dayStart(day(12 - i)))).filter((_, i) => i !== 1),
    );
    const left = (await ctx.ds.query('SELECT id FROM messages WHERE id IN (?) ORDER BY id', [
      [...gone1.ids, ...held.ids, ...gone2.ids, ...fresh.ids],
    ])) as Array<{ id: string }>;
    expect(left.map((m) => String(m.id))).toEqual([held.ids[1], fresh.ids[0]]);
    expect(r!.removed.messages).toBe(4);
    expect(r!.archived.rows).toBeGreaterThanOrEqual(4);
    const date = new Date(day(12)).toISOString().slice(0, 10);
    expect(existsSync(join(archiveDir, date, 'messages.ndjson.gz'))).toBe(true);
    const index = readFileSync(join(archiveDir, date, 'index.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; rows: number });
    expect(index.find((e) => e.file === `${date}/messages.ndjson.gz`)).toMatchObject({ rows: 2 });
    expect(await names('messages')).not.toContain(partitionName(dayStart(day(12))));
  });
});
