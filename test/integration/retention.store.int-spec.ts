import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import { DeliveryReportStore } from '../../src/modules/delivery/receipts/delivery-report.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { MessagePartsStore } from '../../src/modules/messages/message-parts.store.js';
import { RetentionStore } from '../../src/modules/retention/retention.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { moveTo, nextId, ownerOf, storeSend, type MessageSpec } from '../factories/message.factory.js';
import { messagesOfRequest } from '../support/probes.js';
import { requestsById } from '../support/message-probes.js';
import { ShortLinkStore } from '../../src/modules/links/short-link.store.js';
import { linkRow } from '../support/link-probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The prune's statements across the main and notification databases. */

let ctx: ServiceContext;
let store: RetentionStore;
let tenant: Tenant;

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);
/** A request made `days` ago whose messages have not changed since. */
const oldSend = (days: number, messages: MessageSpec[]) =>
  storeSend(ctx, ownerOf(tenant), { messages, request: { createdAt: daysAgo(days) } });
const walk = (after: string, before: Date, limit = 100) => store.removable(after, nextId(), before, limit);

beforeAll(async () => {
  ctx = await startServices(
    [...TENANT_MODULES, MessagesModule],
    [RetentionStore, DeliveryReportStore, CallbackStore, ShortLinkStore],
  );
  store = ctx.get(RetentionStore);
  tenant = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('RetentionStore: the walk', () => {
  it('walks final messages last changed before the cutoff, in id order, between its bounds, up to the limit', async () => {
    const start = nextId(daysAgo(30).getTime());
    const old = await oldSend(20, [
      { recipient: 'd', status: 'DELIVERED' },
      { recipient: 'f', status: 'FAILED' },
      { recipient: 's', status: 'SENT' },
      { recipient: 'a', status: 'ACKNOWLEDGED' },
      { recipient: 'r', status: 'REJECTED' },
    ]);
    await oldSend(1, [{ recipient: 'recent', status: 'DELIVERED' }]);
    const ids = old.ids;
    expect((await walk(start, daysAgo(10))).map((m) => String(m.id))).toEqual([ids[0], ids[1], ids[4]]);
    expect((await walk(start, daysAgo(10), 2)).map((m) => String(m.id))).toEqual([ids[0], ids[1]]);
    expect((await walk(ids[1], daysAgo(10))).map((m) => String(m.id))).toEqual([ids[4]]);
    expect((await store.removable(start, ids[1], daysAgo(10), 100)).map((m) => String(m.id))).toEqual([
      ids[0],
    ]);
  });

  it('gives each candidate as the archive writes it: times in ISO 8601, the request reference and currency', async () => {
    const start = nextId(daysAgo(31).getTime());
    const { request, ids } = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: '260971000001', status: 'DELIVERED' }],
      request: { createdAt: new Date('2030-01-02T03:04:05.678Z'), userReferenceId: 'arch-1' },
    });
    const [row] = (
      await store.candidates(start, nextId(Date.parse('2030-01-03')), new Date('2030-01-03'), 100)
    ).filter((m) => String(m.id) === ids[0]);
    expect(row).toMatchObject({
      recipient: '260971000001',
      status: 'DELIVERED',
      user_reference_id: 'arch-1',
      currency: 'ZMW',
      created_at: '2030-01-02T03:04:05.678Z',
      updated_at: '2030-01-02T03:04:05.678Z',
      fallback_message_id: null,
    });
    expect(String(row.send_request_id)).toBe(request.id);
  });
});

describe('RetentionStore: removal', () => {
  it("reads and removes a message's events, parts, receipts and callback attempts with it", async () => {
    const { request, ids } = await oldSend(40, ['260971000002']);
    await moveTo(ctx, ids, 'SENT', { at: daysAgo(40) });
    await moveTo(ctx, ids, 'DELIVERED', { at: daysAgo(40) });
    await ctx
      .get(MessagePartsStore)
      .storeParts(ctx.ds, [{ messageId: ids[0], part: 1, providerMessageId: 'ret-1', idValue: null }]);
    const applied = { providerMessageId: 'ret-1', connector: null, messageId: ids[0] };
    await ctx.get(DeliveryReportStore).insert(
      [
        {
          transport: 'smpp',
          report: { providerMessageId: 'ret-1', status: 'DELIVERED', occurredAt: daysAgo(40) },
        },
      ],
      new Map([['ret-1', applied]]),
    );
    await ctx.get(CallbackStore).recordAttempt({
      eventId: 'e-ret-1',
      eventType: 'message',
      messageRowId: ids[0],
      accountId: tenant.account.id,
      url: 'https://example.com/cb',
      attempt: 1,
      outcome: 'delivered',
      httpStatus: 200,
      error: null,
      durationMs: 5,
    });
    const related = await store.related(ids);
    expect([
      related.message_events.length,
      related.message_parts.length,
      related.delivery_reports.length,
      related.callback_attempts.length,
    ]).toEqual([2, 1, 1, 1]);
    expect(related.message_events[0]).toMatchObject({
      status: 'SENT',
      occurred_at: expect.stringMatching(/Z$/),
    });
    const link = {
      code: 'PrunedLnk1',
      messageId: ids[0]!,
      position: 0,
      url: 'https://x.example',
      createdAt: new Date(),
    };
    await ctx.ds.transaction((em) => ctx.get(ShortLinkStore).insert(em, [link]));
    const removed = await store.remove(ids, [request.id], daysAgo(30));
    expect(await linkRow(ctx, link.code)).toBeUndefined();
    expect(removed).toEqual({
      messages: 1,
      message_events: 2,
      message_parts: 1,
      send_requests: 1,
      delivery_reports: 1,
      callback_attempts: 1,
      short_links: 1,
    });
    expect(await store.related(ids)).toEqual({
      message_events: [],
      message_parts: [],
      delivery_reports: [],
      callback_attempts: [],
    });
  });

  it("reads a run of messages' rows by the range of their ids, kept to the messages listed", async () => {
    const { ids } = await oldSend(41, ['260971000011', '260971000012', '260971000013']);
    await moveTo(ctx, ids, 'SENT', { at: daysAgo(41) });
    const listed = [ids[0], ids[2]];
    const byRange = await store.relatedOfRange((BigInt(ids[0]) - 1n).toString(), listed);
    expect(new Set(byRange.message_events.map((e) => String(e.message_id)))).toEqual(new Set(listed));
    expect(byRange).toEqual(await store.related(listed));
  });

  it('removes only final messages, and a request only once none of its messages is left', async () => {
    const { request, ids } = await oldSend(40, [
      { recipient: 'x', status: 'DELIVERED' },
      { recipient: 'y', status: 'ACKNOWLEDGED' },
    ]);
    const removed = await store.remove(ids, [request.id], daysAgo(30));
    expect([removed.messages, removed.send_requests]).toEqual([1, 0]);
    expect((await messagesOfRequest(ctx, request.id)).map((m) => m.recipient)).toEqual(['y']);
    expect(await requestsById(ctx, [request.id], 'id')).toHaveLength(1);
  });

  it('answers the given-up receipts received before a time, and removes them', async () => {
    const reports = ctx.get(DeliveryReportStore);
    await reports.insert([
      {
        transport: 'smpp',
        report: { providerMessageId: 'lost-1', status: 'DELIVERED', occurredAt: new Date() },
      },
    ]);
    expect(await store.unmatchedReceipts(new Date(Date.now() + 60_000), 10)).toEqual([]);
    // A TTL every stored report has outlived: they are all given up.
    await reports.expireUnapplied(-60_000);
    const given = await store.unmatchedReceipts(new Date(Date.now() + 60_000), 10);
    expect(given.map((r) => r.provider_message_id)).toContain('lost-1');
    expect(await store.unmatchedReceipts(daysAgo(1), 10)).toEqual([]);
    expect(await store.removeReceipts(given.map((r) => String(r.id)))).toBe(given.length);
  });
});

describe('RetentionStore: one prune at a time', () => {
  it('runs the work under a named lock, and answers undefined to a second caller while it is held', async () => {
    const name = store.lockName();
    expect(name).toBe(`retention:${ctx.name}`);
    let second: string | undefined = 'not asked';
    const first = await store.exclusively(name, async () => {
      second = await store.exclusively(name, async () => 'ran');
      return 'first';
    });
    expect([first, second]).toEqual(['first', undefined]);
    expect(await store.exclusively(name, async () => 'free again')).toBe('free again');
  });
});
