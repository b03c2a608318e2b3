import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import { PartitionMessageTablesByDay1796597880783 } from '../../src/database/migrations/main/1796597880783-partition-message-tables-by-day.js';
import { PartitionDeliveryReportsByDay1796602000000 } from '../../src/database/migrations/notification/1796602000000-partition-delivery-reports-by-day.js';
import { DAY_MS, dayStart, partitionName } from '../../src/database/partitions/day-partitions.js';
import { partitionTables } from '../../src/database/partitions/partition-maintenance.js';
import { PartitionStore } from '../../src/database/partitions/partition.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { readArchiveFile, type IndexEntry } from '../../src/modules/retention/message-archive.js';
import { RetentionModule } from '../../src/modules/retention/retention.module.js';
import { PartitionPrune } from '../../src/modules/retention/partition-prune.service.js';
import { RetentionService } from '../../src/modules/retention/retention.service.js';
import { RetentionStore } from '../../src/modules/retention/retention.store.js';
import { ShortLinkStore } from '../../src/modules/links/short-link.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { seedMessages } from '../support/message-seed.js';
import { startServices, type ServiceContext } from '../support/service-context.js';
import { othersWrite } from '../support/others-writes.js';

/**
 * A day's partition archived in more batches than one: each read while the one before is
 * written, and rested after while others write.
 */

let ctx: ServiceContext;
let tenant: Tenant;
let archiveDir: string;
let notifications: DataSource;

/** The first hour of the day `n` days back. */
const dayBack = (n: number) => new Date(dayStart(Date.now() - n * DAY_MS) + 3_600_000);
const count = 25_000;

/**
 * Two days of 25,000 final messages each (30 and 29 days back), with an event and a receipt
 * each, seeded unpartitioned and then converted: the rows fill their days' partitions.
 */
async function seedDays(): Promise<void> {
  const runner = ctx.ds.createQueryRunner();
  await new PartitionMessageTablesByDay1796597880783().down(runner);
  await runner.release();
  const notificationRunner = notifications.createQueryRunner();
  await new PartitionDeliveryReportsByDay1796602000000().down(notificationRunner);
  await notificationRunner.release();
  for (const start of [dayBack(30), dayBack(29)])
    await seedMessages((sql, params) => ctx.ds.query(sql, params), {
      accountId: tenant.account.id,
      count,
      firstId: BigInt(start.getTime()) * 1_000_000n,
      start,
      stepMs: 1000,
    });
  await ctx.ds.query(
    "UPDATE messages SET status = 'DELIVERED', updated_at = created_at WHERE status IN ('ACKNOWLEDGED', 'SENT')",
  );
  await ctx.ds.query(
    'INSERT INTO message_events (message_id, status, occurred_at) SELECT id, status, created_at FROM messages',
  );
  await notifications.query(
    `INSERT INTO delivery_reports (transport, provider_message_id, status, occurred_at, received_at, applied_at, message_id)
     SELECT 'smpp', CONCAT('p', id), 'DELIVRD', created_at, created_at, created_at, id FROM \`${ctx.name}\`.messages`,
  );
  await partitionTables(ctx.get(PartitionStore), { aheadDays: 7, spanDays: 1 });
}

/** A day's index: each member's file name and rows, in order. */
const indexOf = (date: string) =>
  readFileSync(join(archiveDir, date, 'index.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as IndexEntry)
    .map((e) => [e.file.split('/')[1], e.rows]);
/**
 * The prune of every day before the one `start` is in, counting others' writes below
 * `quietWrites` a second as quiet (the server's counters are shared with suites running beside).
 */
const pruneBefore = (start: Date, quietWrites: number, signal?: AbortSignal) => {
  const config = { ...ctx.config, retention: { ...ctx.config.retention, quietWrites } };
  const service = new RetentionService(
    ctx.get(RetentionStore, { strict: false }),
    ctx.get(PartitionPrune, { strict: false }),
    config,
    ctx.get(ShortLinkStore, { strict: false }),
  );
  return service.prune({ before: new Date(dayStart(start.getTime()) + DAY_MS), signal });
};
/** Writes no suite makes: every run counts as quiet. */
const ALWAYS_QUIET = 1_000_000_000;

beforeAll(async () => {
  archiveDir = mkdtempSync(join(tmpdir(), 'partition-archive-'));
  ctx = await startServices([...TENANT_MODULES, MessagesModule, RetentionModule], [], {
    ARCHIVE_DIR: archiveDir,
  });
  notifications = ctx.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
  tenant = await createTenant(ctx);
  await seedDays();
});

afterAll(async () => {
  await ctx?.close();
  rmSync(archiveDir, { recursive: true, force: true });
});

describe("a day's archive", () => {
  it('holds each of a day of 25,000 messages once, in id order, with its event and receipt, before the day is dropped', async () => {
    const start = dayBack(30);
    const r = (await pruneBefore(start, ALWAYS_QUIET))!;
    expect(r.partitions.dropped).toEqual([partitionName(dayStart(start.getTime()))]);
    expect(r.removed).toMatchObject({ messages: count, message_events: count, delivery_reports: count });
    expect(r.archived.rows).toBe(3 * count);

    const date = start.toISOString().slice(0, 10);
    const lines = (family: string) => readArchiveFile(join(archiveDir, date, `${family}.ndjson.gz`));
    const messages = await lines('messages');
    const created = messages.map((m) => String(m.created_at));
    expect(messages).toHaveLength(count);
    expect(new Set(messages.map((m) => m.message_id)).size).toBe(count);
    expect(created).toEqual([...created].sort());
    for (const family of ['message_events', 'delivery_reports']) {
      const ids = (await lines(family)).map((l) => BigInt(String(l.message_id)));
      expect(ids).toHaveLength(count);
      expect(new Set(ids).size).toBe(count);
      expect(ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
    }
    // Three batches of at most 10,000 messages: a member per batch and family, listed in order.
    expect(indexOf(date)).toEqual(
      [10_000, 10_000, 5_000].flatMap((n) => [
        ['messages.ndjson.gz', n],
        ['message_events.ndjson.gz', n],
        ['delivery_reports.ndjson.gz', n],
      ]),
    );
  });

  it('rests after each batch while others write, and goes on once they stop', async () => {
    const start = dayBack(29);
    const date = start.toISOString().slice(0, 10);
    // Others write up to 2,500 rows a second into a table of their own on the same server.
    const others = await othersWrite((sql) => ctx.ds.query(sql));
    try {
      // Stopped after 3 s beside the writes: each batch is followed by a rest of the busy
      // factor, 48, times the batch, so fewer than the day's three batches are archived (one,
      // or two where a batch takes under 60 ms), and the day is not dropped.
      const busy = (await pruneBefore(start, 100, AbortSignal.timeout(3000)))!;
      expect(busy.partitions.dropped).toEqual([]);
      expect(indexOf(date).every(([, rows]) => rows === 10_000)).toBe(true);
    } finally {
      await others.stop();
    }
    const busyBatches = indexOf(date).filter(([file]) => file === 'messages.ndjson.gz').length;
    expect(busyBatches).toBeGreaterThanOrEqual(1);
    expect(busyBatches).toBeLessThan(3);
    // Writes that count as quiet: the day goes at once, all three batches, and is dropped.
    const quiet = (await pruneBefore(start, ALWAYS_QUIET))!;
    expect(quiet.partitions.dropped).toEqual([partitionName(dayStart(start.getTime()))]);
    expect(indexOf(date).filter(([file]) => file === 'messages.ndjson.gz')).toHaveLength(busyBatches + 3);
  });
});
