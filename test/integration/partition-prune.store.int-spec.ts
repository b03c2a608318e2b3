import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import { dayStart, DAY_MS, firstIdOf, partitionName } from '../../src/database/partitions/day-partitions.js';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import { DeliveryReportStore } from '../../src/modules/delivery/receipts/delivery-report.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { PartitionPruneStore } from '../../src/modules/retention/partition-prune.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { moveTo, ownerOf, storeSend } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** A prune by partition's statements: what a day's partition holds, and its rows in unpartitioned tables by id range. */

let ctx: ServiceContext;
let store: PartitionPruneStore;
let tenant: Tenant;
const today = dayStart(Date.now());
const p = partitionName(today);

beforeAll(async () => {
  ctx = await startServices(
    [...TENANT_MODULES, MessagesModule],
    [PartitionPruneStore, DeliveryReportStore, CallbackStore],
  );
  store = ctx.get(PartitionPruneStore);
  tenant = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('PartitionPruneStore', () => {
  it('tells a partition holding a message not final, or changed since the cutoff, and counts its rows', async () => {
    const at = new Date(today + 3_600_000);
    const { ids } = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: '260971000401', status: 'DELIVERED' }],
      request: { createdAt: at },
    });
    const cutoff = new Date(today + 2 * DAY_MS);
    // The send's messages are final, last changed at `at`.
    await ctx.ds.query('UPDATE messages SET updated_at = ? WHERE id IN (?)', [at, ids]);
    expect(await store.survey(p, cutoff)).toEqual({ held: false, messages: 1 });
    // Changed since the cutoff: held, though final.
    expect((await store.survey(p, new Date(today))).held).toBe(true);
    const waiting = await storeSend(ctx, ownerOf(tenant), {
      messages: ['260971000402'],
      request: { createdAt: at },
    });
    await ctx.ds.query('UPDATE messages SET updated_at = ? WHERE id IN (?)', [at, waiting.ids]);
    // Not final: held, whatever the time.
    expect((await store.survey(p, cutoff)).held).toBe(true);
    await moveTo(ctx, waiting.ids, 'SENT', { at });
    expect((await store.survey(p, cutoff)).held).toBe(true);
    await moveTo(ctx, waiting.ids, 'DELIVERED', { at });
    await ctx.ds.query('UPDATE messages SET updated_at = ? WHERE id IN (?)', [at, waiting.ids]);
    expect(await store.survey(p, cutoff)).toEqual({ held: false, messages: 2 });
    expect(await store.count('messages', p)).toBe(2);
    expect(await store.count('message_events', p)).toBe(2);
  });

  it('tells a receipts partition holding a receipt waiting for its message, and reads its unmatched ones', async () => {
    const reports = ctx.get(DeliveryReportStore);
    const before = await store.countReports(p);
    const report = (provider: string) => ({
      transport: 'smpp',
      report: { providerMessageId: provider, status: 'DELIVERED' as const, occurredAt: new Date() },
    });
    await reports.insert([report('pp-wait-1'), report('pp-wait-2')]);
    expect(await store.countReports(p)).toBe(before + 2);
    expect(await store.holdsWaitingReport(p)).toBe(true);
    const unmatched = await store.unmatchedReports(p, '0', 1);
    expect(unmatched).toHaveLength(1);
    expect(unmatched[0]).toMatchObject({ provider_message_id: 'pp-wait-1', message_id: null });
    expect(String(unmatched[0].received_at)).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    const rest = await store.unmatchedReports(p, String(unmatched[0].id), 10);
    expect(rest.map((r) => r.provider_message_id)).toEqual(['pp-wait-2']);
    // Given up: still unmatched, no longer waiting.
    await ctx
      .get<DataSource>(getDataSourceToken(NOTIFICATION_DB))
      .query("UPDATE delivery_reports SET expired_at = NOW(3) WHERE provider_message_id LIKE 'pp-wait-%'");
    expect(await store.holdsWaitingReport(p)).toBe(false);
  });

  it('counts a callback attempts partition and reads its attempts at events other than a message’s', async () => {
    const before = await store.countAttempts(p);
    const { ids } = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: '260971000405', status: 'DELIVERED' }],
      request: { createdAt: new Date(today + 3_600_000) },
    });
    for (const eventType of ['message', 'inbound', 'webhook'])
      await ctx.get(CallbackStore).recordAttempt({
        eventId: `pp-other-${eventType}`,
        eventType,
        messageRowId: ids[0],
        accountId: tenant.account.id,
        url: 'https://example.com/cb',
        attempt: 1,
        outcome: 'delivered',
        httpStatus: 200,
        error: null,
        durationMs: 5,
      });
    expect(await store.countAttempts(p)).toBe(before + 3);
    const others = (await store.otherAttempts(p, '0', 100)).filter((r) =>
      String(r.event_id).startsWith('pp-other-'),
    );
    expect(others.map((r) => [r.event_id, r.event_type])).toEqual([
      ['pp-other-inbound', 'inbound'],
      ['pp-other-webhook', 'webhook'],
    ]);
    expect(String(others[0].attempted_at)).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(Object.keys(others[0])).toEqual([
      'id',
      'event_id',
      'message_id',
      'url',
      'attempt',
      'outcome',
      'http_status',
      'error',
      'duration_ms',
      'attempted_at',
      'event_type',
    ]);
    const rest = await store.otherAttempts(p, String(others[0].id), 100);
    expect(rest.map((r) => r.event_id)).toContain('pp-other-webhook');
    expect(rest.map((r) => r.event_id)).not.toContain('pp-other-inbound');
  });

  it('removes receipts, message callback attempts and emptied requests by id range only, a chunk at a time', async () => {
    const owner = ownerOf(tenant);
    const inRange = await storeSend(ctx, owner, {
      messages: [{ recipient: '260971000403', status: 'DELIVERED' }],
      request: { createdAt: new Date(today - 50 * DAY_MS) },
    });
    const outside = await storeSend(ctx, owner, {
      messages: [{ recipient: '260971000404', status: 'DELIVERED' }],
      request: { createdAt: new Date(today - 40 * DAY_MS) },
    });
    for (const [i, id] of [...inRange.ids, ...outside.ids].entries()) {
      const provider = `pp-${i}`;
      await ctx.get(DeliveryReportStore).insert(
        [
          {
            transport: 'smpp',
            report: { providerMessageId: provider, status: 'DELIVERED', occurredAt: new Date() },
          },
        ],
        new Map([[provider, { providerMessageId: provider, connector: null, messageId: id }]]),
      );
      for (const eventType of ['message', 'inbound'])
        await ctx.get(CallbackStore).recordAttempt({
          eventId: `pp-${i}-${eventType}`,
          eventType,
          messageRowId: id,
          accountId: tenant.account.id,
          url: 'https://example.com/cb',
          attempt: 1,
          outcome: 'delivered',
          httpStatus: 200,
          error: null,
          durationMs: 5,
        });
    }
    const from = firstIdOf(today - 51 * DAY_MS);
    const to = firstIdOf(today - 49 * DAY_MS);
    expect(await store.removeReports(from, to, 10)).toBe(1);
    expect(await store.removeReports(from, to, 10)).toBe(0);
    expect(await store.removeAttempts(from, to, 10)).toBe(1);
    // The request still has its message: it stays until the message is gone.
    expect(await store.removeRequests(from, to, new Date(), 10)).toBe(0);
    await ctx.ds.query('DELETE FROM messages WHERE id IN (?)', [inRange.ids]);
    expect(await store.removeRequests(from, to, new Date(), 10)).toBe(1);
    const left = (await ctx.ds.query('SELECT COUNT(*) AS n FROM send_requests WHERE id = ?', [
      outside.request.id,
    ])) as Array<{ n: string }>;
    expect(Number(left[0].n)).toBe(1);
  });
});
