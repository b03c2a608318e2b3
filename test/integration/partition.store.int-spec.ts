import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_DB, NOTIFICATION_DB } from '../../src/database/data-sources.js';
import { PartitionRequestLogsByDay1796604000000 } from '../../src/database/migrations/log/1796604000000-partition-request-logs-by-day.js';
import { PartitionCallbackAttemptsByDay1796603000000 } from '../../src/database/migrations/notification/1796603000000-partition-callback-attempts-by-day.js';
import { PartitionDeliveryReportsByDay1796602000000 } from '../../src/database/migrations/notification/1796602000000-partition-delivery-reports-by-day.js';
import {
  DAY_MS,
  dayStart,
  firstIdOf,
  msOfId,
  partitionName,
} from '../../src/database/partitions/day-partitions.js';
import { makePartitionsAhead, partitionTables } from '../../src/database/partitions/partition-maintenance.js';
import { PartitionStore } from '../../src/database/partitions/partition.store.js';
import { PartitionMessageTablesByDay1796597880783 } from '../../src/database/migrations/main/1796597880783-partition-message-tables-by-day.js';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import { DeliveryReportStore } from '../../src/modules/delivery/receipts/delivery-report.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { MessageLookupStore } from '../../src/modules/messages/message-lookup.store.js';
import { uuidOfId } from '../../src/modules/messages/message-uuid.js';
import { RequestLogPruner } from '../../src/modules/request-logs/request-log.pruner.js';
import { RequestLogStore } from '../../src/modules/request-logs/request-log.store.js';
import { PartitionScheduler } from '../../src/modules/retention/partition.scheduler.js';
import { RetentionModule } from '../../src/modules/retention/retention.module.js';
import { RetentionService } from '../../src/modules/retention/retention.service.js';
import { RetentionStore } from '../../src/modules/retention/retention.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { ownerOf, storeSend, type MessageSpec } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The message tables' and receipts' day partitions: made, made ahead, filled past them, converted and dropped. */

let ctx: ServiceContext;
let store: PartitionStore;
let tenant: Tenant;
let archiveDir: string;
let notifications: DataSource;
let logs: DataSource;
let reports: DeliveryReportStore;

const TABLES = [
  'messages',
  'message_events',
  'message_parts',
  'delivery_reports',
  'callback_attempts',
  'request_logs',
] as const;
/** Writes a request log created at `at` (epoch ms) and answers its id. */
const requestLog = async (at: number) => {
  const requestId = randomUUID();
  await new RequestLogStore(logs).insert([
    {
      apiKeyId: '1',
      accountId: '1',
      method: 'POST',
      path: '/api/v1/json/sms',
      status: 200,
      ip: null,
      userAgent: null,
      durationMs: 1,
      apiReference: null,
      requestId,
      createdAt: new Date(at),
    },
  ]);
  const [row] = (await logs.query('SELECT id FROM request_logs WHERE request_id = ?', [requestId])) as Array<{
    id: string;
  }>;
  return String(row.id);
};
/** Records a callback attempt at an event about `subject` (a message's id for 'message'). */
const attempt = async (eventType: 'message' | 'inbound' | 'webhook', subject: string) => {
  const eventId = randomUUID();
  await new CallbackStore(notifications, ctx.config).recordAttempt({
    eventId,
    eventType,
    messageRowId: subject,
    accountId: tenant.account.id,
    url: 'https://example.test/hook',
    attempt: 1,
    outcome: 'delivered',
    httpStatus: 200,
    error: null,
    durationMs: 5,
  });
  const [row] = (await notifications.query('SELECT id FROM callback_attempts WHERE event_id = ?', [
    eventId,
  ])) as Array<{ id: string }>;
  return String(row.id);
};
/** Stores a receipt, applied to `messageId` when given (else waiting for a match). */
const receipt = async (provider: string, messageId?: string) => {
  const applied = messageId
    ? new Map([[provider, { providerMessageId: provider, connector: null, messageId }]])
    : new Map();
  await reports.insert(
    [
      {
        transport: 'smpp',
        report: { providerMessageId: provider, status: 'DELIVERED', occurredAt: new Date() },
      },
    ],
    applied,
  );
  const [row] = (await notifications.query(
    'SELECT id FROM delivery_reports WHERE provider_message_id = ? ORDER BY id DESC LIMIT 1',
    [provider],
  )) as Array<{ id: string }>;
  return String(row.id);
};
const today = dayStart(Date.now());
const names = async (table: (typeof TABLES)[number]) => (await store.bounds(table)).map((b) => b.name);
/** The partition of `table` (on its database) holding the row `id`. */
const partitionHolding = async (table: (typeof TABLES)[number], id: string) => {
  const ds = { delivery_reports: notifications, callback_attempts: notifications, request_logs: logs }[
    table as string
  ];
  for (const p of await names(table)) {
    const rows = (await (ds ?? ctx.ds).query(`SELECT 1 FROM ${table} PARTITION (${p}) WHERE id = ?`, [
      id,
    ])) as unknown[];
    if (rows.length) return p;
  }
  return undefined;
};
const partitionOf = (id: string) => partitionHolding('messages', id);
const reportPartitionOf = (id: string) => partitionHolding('delivery_reports', id);
const attemptPartitionOf = (id: string) => partitionHolding('callback_attempts', id);
const logPartitionOf = (id: string) => partitionHolding('request_logs', id);
const send = (at: number, messages: MessageSpec[]) =>
  storeSend(ctx, ownerOf(tenant), { messages, request: { createdAt: new Date(at) } });

beforeAll(async () => {
  archiveDir = mkdtempSync(join(tmpdir(), 'partitions-'));
  ctx = await startServices([...TENANT_MODULES, MessagesModule, RetentionModule], [], {
    ARCHIVE_DIR: archiveDir,
  });
  store = ctx.get(PartitionStore);
  notifications = ctx.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
  logs = ctx.get<DataSource>(getDataSourceToken(LOG_DB));
  reports = new DeliveryReportStore(notifications);
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
    const notificationKeys = (await notifications.query(
      `SELECT TABLE_NAME AS t, INDEX_NAME AS k, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS cols FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('delivery_reports', 'callback_attempts') AND NON_UNIQUE = 0
        GROUP BY TABLE_NAME, INDEX_NAME ORDER BY TABLE_NAME, INDEX_NAME`,
    )) as Array<{ t: string; k: string; cols: string }>;
    expect(notificationKeys.map((r) => `${r.t}.${r.k}(${r.cols})`)).toEqual([
      'callback_attempts.PRIMARY(id,day_id)',
      'delivery_reports.PRIMARY(id,day_id)',
    ]);
    const logKeys = (await logs.query(
      `SELECT INDEX_NAME AS k, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS cols FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'request_logs' AND NON_UNIQUE = 0 GROUP BY INDEX_NAME`,
    )) as Array<{ k: string; cols: string }>;
    expect(logKeys.map((r) => `${r.k}(${r.cols})`)).toEqual(['PRIMARY(id,day_id)']);
  });

  it('put a request log in the day it was created, whatever the session time zone, under a unique id', async () => {
    const at = today + 2 * DAY_MS + 3_600_000;
    await makePartitionsAhead(store, { aheadDays: 3, spanDays: 1 });
    const id = await requestLog(at);
    const [row] = (await logs.query('SELECT day_id FROM request_logs WHERE id = ?', [id])) as Array<{
      day_id: string;
    }>;
    expect(String(row.day_id)).toBe(firstIdOf(at));
    expect(await logPartitionOf(id)).toBe(partitionName(dayStart(at)));
    // The DEFAULT is date arithmetic on the UTC time written: another session time zone changes nothing.
    const runner = logs.createQueryRunner();
    await runner.query("SET time_zone = '+05:00'");
    await runner.query(
      "INSERT INTO request_logs (api_key_id, method, path, status, request_id, created_at) VALUES (1, 'GET', '/tz', 200, 'pp-tz', ?)",
      [new Date(at).toISOString().slice(0, 23).replace('T', ' ')],
    );
    const [tz] = (await runner.query("SELECT day_id FROM request_logs WHERE request_id = 'pp-tz'")) as Array<{
      day_id: string;
    }>;
    await runner.query("SET time_zone = '+00:00'");
    await runner.release();
    expect(String(tz.day_id)).toBe(firstIdOf(at));
    // (id, day_id) refuses a repeated id in a day; no statement writes an id, the counter makes them.
    await expect(
      logs.query(
        "INSERT INTO request_logs (id, api_key_id, method, path, status, created_at) VALUES (?, 1, 'GET', '/x', 200, ?)",
        [id, new Date(at)],
      ),
    ).rejects.toThrow(/Duplicate entry/);
  });

  it('put a receipt in the day it arrived until it matches, then in its message’s day, under the same id', async () => {
    const { ids } = await send(today - 2 * DAY_MS + 3_600_000, [
      { recipient: '260971000050', status: 'SENT' },
    ]);
    await makePartitionsAhead(store, { aheadDays: 0, spanDays: 1 });
    const waiting = await receipt('pp-late-1');
    expect(await reportPartitionOf(waiting)).toBe(partitionName(today));
    await reports.markApplied([{ providerMessageId: 'pp-late-1', connector: null, messageId: ids[0] }]);
    const [row] = (await notifications.query('SELECT message_id, day_id FROM delivery_reports WHERE id = ?', [
      waiting,
    ])) as Array<{ message_id: string; day_id: string }>;
    expect([String(row.message_id), String(row.day_id)]).toEqual([ids[0], ids[0]]);
    // The catch-all of the first partition takes ids before the first planned day.
    expect(await reportPartitionOf(waiting)).toBe((await names('delivery_reports'))[0]);
    // Ids stay unique across partitions: the AUTO_INCREMENT is the table's, and a moved row keeps its id.
    const next = await receipt('pp-late-2', ids[0]);
    expect(BigInt(next)).toBeGreaterThan(BigInt(waiting));
    const count = (await notifications.query('SELECT COUNT(*) AS n FROM delivery_reports WHERE id = ?', [
      waiting,
    ])) as Array<{ n: string }>;
    expect(Number(count[0].n)).toBe(1);
    // (id, day_id) refuses a repeated id in a day; no statement writes an id, the counter makes them.
    await expect(
      notifications.query(
        `INSERT INTO delivery_reports (id, transport, provider_message_id, status, occurred_at, message_id)
          VALUES (?, 'smpp', 'pp-late-3', 'DELIVERED', NOW(3), ?)`,
        [next, ids[0]],
      ),
    ).rejects.toThrow(/Duplicate entry/);
  });

  it('put a message’s callback attempt in its message’s day, another event’s in the day it was recorded', async () => {
    const { ids } = await send(today - 2 * DAY_MS + 3_600_000, [
      { recipient: '260971000060', status: 'DELIVERED' },
    ]);
    await makePartitionsAhead(store, { aheadDays: 0, spanDays: 1 });
    const ofMessage = await attempt('message', ids[0]);
    // The same number as a subject id of an inbound message or a webhook event says no day.
    const ofInbound = await attempt('inbound', ids[0]);
    const ofWebhook = await attempt('webhook', '1');
    const rows = (await notifications.query(
      'SELECT id, message_id, day_id FROM callback_attempts WHERE id IN (?) ORDER BY id',
      [[ofMessage, ofInbound, ofWebhook]],
    )) as Array<{ id: string; message_id: string; day_id: string }>;
    expect(String(rows[0].day_id)).toBe(ids[0]);
    for (const r of rows.slice(1)) expect(dayStart(msOfId(String(r.day_id)))).toBe(today);
    expect(await attemptPartitionOf(ofMessage)).toBe((await names('callback_attempts'))[0]);
    expect(await attemptPartitionOf(ofInbound)).toBe(partitionName(today));
    expect(await attemptPartitionOf(ofWebhook)).toBe(partitionName(today));
    // (id, day_id) refuses a repeated id in a day; no statement writes an id, the counter makes them.
    await expect(
      notifications.query(
        `INSERT INTO callback_attempts (id, event_id, event_type, message_id, account_id, url, attempt, outcome, duration_ms)
          VALUES (?, ?, 'webhook', 1, 1, 'https://example.test/hook', 1, 'delivered', 1)`,
        [ofWebhook, randomUUID()],
      ),
    ).rejects.toThrow(/Duplicate entry/);
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
    const notificationRunner = notifications.createQueryRunner();
    await new PartitionDeliveryReportsByDay1796602000000().down(notificationRunner);
    await new PartitionCallbackAttemptsByDay1796603000000().down(notificationRunner);
    await notificationRunner.release();
    const logRunner = logs.createQueryRunner();
    await new PartitionRequestLogsByDay1796604000000().down(logRunner);
    await logRunner.release();
    for (const table of TABLES) expect(await store.bounds(table)).toEqual([]);
    await notifications.query('DELETE FROM delivery_reports');
    await notifications.query('DELETE FROM callback_attempts');
    await logs.query('DELETE FROM request_logs');
    // Request logs, by their own age: older than any message, and on days 12, 9, 8 and 1.
    const oldLog = await requestLog(day(20));
    const gone12Log = await requestLog(day(12));
    const gone9Log = await requestLog(day(9));
    const nowMs = Date.now();
    const cutoffDayLog = await requestLog(today - 8 * DAY_MS);
    const keptDayLog = await requestLog(nowMs - 8 * DAY_MS + 60_000);
    const freshLog = await requestLog(day(1));

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

    const gone1Receipt = await receipt('pp-gone1', gone1.ids[0]);
    const heldReceipt = await receipt('pp-held', held.ids[1]);
    const freshReceipt = await receipt('pp-fresh', fresh.ids[0]);
    const gone1Attempt = await attempt('message', gone1.ids[0]);
    const heldAttempt = await attempt('message', held.ids[1]);
    const freshAttempt = await attempt('message', fresh.ids[0]);
    // Recorded before the conversion: its day_id is the conversion's moment (the DEFAULT).
    const inboundAttempt = await attempt('inbound', gone1.ids[0]);

    const converted = await partitionTables(store, { aheadDays: 7, spanDays: 1 });
    expect(converted.map((c) => c.table)).toEqual([...TABLES]);
    expect((await names('messages'))[0]).toBe(partitionName(dayStart(day(12))));
    expect(await names('message_events')).toEqual(await names('messages'));
    expect(await names('delivery_reports')).toEqual(await names('messages'));
    expect(await partitionOf(held.ids[1])).toBe(partitionName(dayStart(day(11))));
    expect(await reportPartitionOf(heldReceipt)).toBe(partitionName(dayStart(day(11))));
    expect(await names('callback_attempts')).toEqual(await names('messages'));
    expect(await attemptPartitionOf(heldAttempt)).toBe(partitionName(dayStart(day(11))));
    expect(await attemptPartitionOf(gone1Attempt)).toBe(partitionName(dayStart(day(12))));
    expect(await attemptPartitionOf(inboundAttempt)).toBe(partitionName(today));
    // Request logs from their own oldest day, then the messages' bounds.
    const logNames = await names('request_logs');
    expect(logNames[0]).toBe(partitionName(dayStart(day(20))));
    expect(logNames.slice(8)).toEqual(await names('messages'));
    expect(await logPartitionOf(gone12Log)).toBe(partitionName(dayStart(day(12))));

    // logs prune keeps REQUEST_LOG_RETENTION_DAYS (8 here): every day partition that ends by the
    // cutoff goes whole, the cutoff's day loses the rows before it one by one.
    const pruner = new RequestLogPruner(new RequestLogStore(logs), store, ctx.config);
    // While another process prunes (it holds the log database's prune lock), a prune removes nothing.
    expect(await new RequestLogStore(logs).exclusively(() => pruner.prune(8, nowMs))).toBeUndefined();
    expect((await names('request_logs'))[0]).toBe(partitionName(dayStart(day(20))));
    const pruned = (await pruner.prune(8, nowMs))!;
    expect(pruned.partitionsDropped).toEqual(
      Array.from({ length: 12 }, (_, i) => partitionName(dayStart(day(20 - i)))),
    );
    expect(pruned.deleted).toBe(4);
    const leftLogs = (await logs.query('SELECT id FROM request_logs WHERE id IN (?) ORDER BY id', [
      [oldLog, gone12Log, gone9Log, cutoffDayLog, keptDayLog, freshLog],
    ])) as Array<{ id: string }>;
    expect(leftLogs.map((x) => String(x.id))).toEqual([keptDayLog, freshLog]);
    expect((await names('request_logs'))[0]).toBe(partitionName(dayStart(today - 8 * DAY_MS)));

    // A receipt matched late follows its message into day 10; one given up, arrived on day 10,
    // is there too; one still waiting for a message keeps day 12's receipts partition.
    const late = await receipt('pp-gone2');
    await reports.markApplied([{ providerMessageId: 'pp-gone2', connector: null, messageId: gone2.ids[0] }]);
    expect(await reportPartitionOf(late)).toBe(partitionName(dayStart(day(10))));
    const unmatched = async (provider: string, at: number, expired: boolean) => {
      await notifications.query(
        `INSERT INTO delivery_reports (transport, provider_message_id, status, occurred_at, received_at, expired_at, day_id)
          VALUES ('smpp', ?, 'DELIVERED', ?, ?, ?, ?)`,
        [provider, new Date(at), new Date(at), expired ? new Date(at + DAY_MS) : null, firstIdOf(at)],
      );
      const [row] = (await notifications.query(
        'SELECT id FROM delivery_reports WHERE provider_message_id = ?',
        [provider],
      )) as Array<{ id: string }>;
      return String(row.id);
    };
    const givenUp = await unmatched('pp-given-up', day(10), true);
    const waiting = await unmatched('pp-waiting', day(12), false);
    // Attempts at other events, recorded on day 10 (dropped) and day 11 (kept).
    const otherAttempt = async (eventType: string, at: number) => {
      const eventId = randomUUID();
      await notifications.query(
        `INSERT INTO callback_attempts (event_id, event_type, message_id, account_id, url, attempt, outcome, duration_ms, attempted_at, day_id)
          VALUES (?, ?, 1, 1, 'https://example.test/hook', 1, 'delivered', 1, ?, ?)`,
        [eventId, eventType, new Date(at), firstIdOf(at)],
      );
      const [row] = (await notifications.query('SELECT id FROM callback_attempts WHERE event_id = ?', [
        eventId,
      ])) as Array<{ id: string }>;
      return String(row.id);
    };
    const webhookGone = await otherAttempt('webhook', day(10));
    const webhookHeld = await otherAttempt('inbound', day(11));

    // A partition converted on its way out by a run stopped before it dropped the table.
    await ctx.ds.query('CREATE TABLE messages_gone_p20200101 (id BIGINT PRIMARY KEY)');
    const goneTables = async () =>
      [
        ...((await ctx.ds.query(
          "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE '%\\_gone\\_%'",
        )) as Array<{ t: string }>),
        ...((await notifications.query(
          "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE '%\\_gone\\_%'",
        )) as Array<{ t: string }>),
      ].map((x) => x.t);
    expect(await goneTables()).toEqual(['messages_gone_p20200101']);

    const r = await ctx.get(RetentionService).prune({ before: new Date(today - 8 * DAY_MS) });
    // Each partition went by a table of its own, dropped, and so did the one left before.
    expect(await goneTables()).toEqual([]);
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

    // Receipts: day 10's partition dropped (the late match and the one given up in it), day 12's
    // kept for the waiting receipt (gone1's receipt deleted by id range), day 11's kept with its day.
    const reportNames = await names('delivery_reports');
    expect(reportNames).not.toContain(partitionName(dayStart(day(10))));
    expect(reportNames).toContain(partitionName(dayStart(day(11))));
    expect(reportNames).toContain(partitionName(dayStart(day(12))));
    const leftReports = (await notifications.query(
      'SELECT id FROM delivery_reports WHERE id IN (?) ORDER BY id',
      [[gone1Receipt, heldReceipt, freshReceipt, late, givenUp, waiting]],
    )) as Array<{ id: string }>;
    expect(leftReports.map((x) => String(x.id))).toEqual([heldReceipt, freshReceipt, waiting]);
    expect(r!.removed.delivery_reports).toBe(3);
    const archived = (d: number) => {
      const file = join(archiveDir, new Date(day(d)).toISOString().slice(0, 10), 'index.ndjson');
      return readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { file: string; rows: number })
        .filter((e) => e.file.endsWith('delivery_reports.ndjson.gz'))
        .reduce((n, e) => n + e.rows, 0);
    };
    // gone1's receipt under its message's day; day 10: the late match with its message, the
    // one given up under the day it arrived.
    expect(archived(12)).toBe(1);
    expect(archived(10)).toBe(2);

    // Callback attempts: days 12 and 10 dropped with their messages (gone1's attempt, the
    // webhook attempt recorded on day 10); day 11 kept with its message not final, the other
    // event's attempt recorded that day with it; today's stay.
    const attemptNames = await names('callback_attempts');
    expect(attemptNames).not.toContain(partitionName(dayStart(day(12))));
    expect(attemptNames).not.toContain(partitionName(dayStart(day(10))));
    expect(attemptNames).toContain(partitionName(dayStart(day(11))));
    const leftAttempts = (await notifications.query(
      'SELECT id FROM callback_attempts WHERE id IN (?) ORDER BY id',
      [[gone1Attempt, heldAttempt, freshAttempt, inboundAttempt, webhookGone, webhookHeld]],
    )) as Array<{ id: string }>;
    expect(leftAttempts.map((x) => String(x.id))).toEqual([
      heldAttempt,
      freshAttempt,
      inboundAttempt,
      webhookHeld,
    ]);
    expect(r!.removed.callback_attempts).toBe(2);
    // Archived: gone1's attempt under its message's day, the webhook attempt under the day it
    // was recorded, with its event type.
    const attemptLines = async (d: number) => {
      const file = join(
        archiveDir,
        new Date(day(d)).toISOString().slice(0, 10),
        'callback_attempts.ndjson.gz',
      );
      return gunzipSync(readFileSync(file))
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    expect((await attemptLines(12)).map((l) => [String(l.id), l.event_type])).toEqual([
      [gone1Attempt, undefined],
    ]);
    expect((await attemptLines(10)).map((l) => [String(l.id), l.event_type])).toEqual([
      [webhookGone, 'webhook'],
    ]);
  });
});
