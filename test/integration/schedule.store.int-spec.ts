import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { ScheduleStore } from '../../src/modules/messages/schedule.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { ownerOf, storeSend } from '../factories/message.factory.js';
import { endValidityInFlight } from '../support/clock.js';
import { eventsOfRequests, requestMessages, requestsById } from '../support/message-probes.js';
import { statusesOfRequest } from '../support/probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Scheduling, hand-over claims, validity and cancellation on send_requests and messages. */

let ctx: ServiceContext;
let store: ScheduleStore;
let tenant: Tenant;

const minutes = (m: number) => new Date(Date.now() + m * 60_000);

/** A request whose messages wait for `sendAt` (SCHEDULED, the request on the schedule). */
function scheduled(sendAt: Date, recipients = ['260971000001', '260971000002'], testMode = false) {
  return storeSend(
    ctx,
    { ...ownerOf(tenant), testMode },
    {
      messages: recipients.map((recipient) => ({ recipient, status: 'SCHEDULED' as const })),
      request: { sendAt, dueAt: sendAt, enqueuedAt: null },
    },
  );
}
const dueAt = async (id: string) => (await requestsById(ctx, [id], 'due_at'))[0].due_at as Date | null;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, MessagesModule]);
  store = ctx.get(ScheduleStore);
  tenant = await createTenant(ctx, { test: true });
});

afterAll(() => ctx?.close());

describe('ScheduleStore: the due scanner', () => {
  it('releases only due requests: their messages acknowledged with a history row each, the request off the schedule', async () => {
    const due = await scheduled(minutes(-1));
    const later = await scheduled(minutes(30));
    const released = await store.releaseDue(new Date(), 100, 10_000);
    expect(released.map((r) => r.id)).toContain(due.request.id);
    expect(released.map((r) => r.id)).not.toContain(later.request.id);
    expect(released.find((r) => r.id === due.request.id)).toEqual({
      id: due.request.id,
      channel: 'sms',
      test: false,
      priority: 'normal',
    });
    expect(await statusesOfRequest(ctx, due.request.id)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED']);
    expect((await eventsOfRequests(ctx, [due.request.id])).map((e) => e.status)).toEqual([
      'ACKNOWLEDGED',
      'ACKNOWLEDGED',
    ]);
    expect(await dueAt(due.request.id)).toBeNull();
    expect(await statusesOfRequest(ctx, later.request.id)).toEqual(['SCHEDULED', 'SCHEDULED']);
    expect((await store.nextDue())!.getTime()).toBeLessThanOrEqual(later.request.sendAt!.getTime());
  });

  it('takes requests up to about the message budget, but always at least one', async () => {
    const big = await scheduled(minutes(-3), ['1', '2', '3']);
    const small = await scheduled(minutes(-2), ['4']);
    const first = await store.releaseDue(new Date(), 100, 2);
    expect(first.map((r) => r.id)).toEqual([big.request.id]);
    expect((await store.releaseDue(new Date(), 100, 2)).map((r) => r.id)).toEqual([small.request.id]);
  });

  it('keeps a request on the schedule while some of its messages wait for their own window', async () => {
    const opens = minutes(90);
    const windowed = await storeSend(ctx, ownerOf(tenant), {
      messages: [
        { recipient: 'now', status: 'SCHEDULED' },
        { recipient: 'later', status: 'SCHEDULED', sendAt: opens },
      ],
      request: { sendAt: minutes(-1), dueAt: minutes(-1), enqueuedAt: null },
    });
    await store.releaseDue(new Date(), 100, 10_000);
    expect(await statusesOfRequest(ctx, windowed.request.id)).toEqual(['ACKNOWLEDGED', 'SCHEDULED']);
    expect((await dueAt(windowed.request.id))?.getTime()).toBe(opens.getTime());
  });

  it('lets scanners racing for the same due requests release each one exactly once', async () => {
    const reqs = [];
    for (let i = 0; i < 12; i++) reqs.push(await scheduled(minutes(-1), [`r${i}`]));
    const runs = await Promise.all(Array.from({ length: 4 }, () => store.releaseDue(new Date(), 5, 10_000)));
    const released = runs.flat().map((r) => r.id);
    expect(new Set(released).size).toBe(released.length);
    const rest = await store.releaseDue(new Date(), 100, 10_000);
    expect([...released, ...rest.map((r) => r.id)].sort()).toEqual(reqs.map((r) => r.request.id).sort());
    for (const r of reqs) expect((await eventsOfRequests(ctx, [r.request.id])).length).toBe(1);
  });
});

describe('ScheduleStore: hand-over claims, cancel and validity', () => {
  it('claims only acknowledged messages of a request neither cancelled nor past its validity', async () => {
    const { request, ids } = await storeSend(ctx, ownerOf(tenant), {
      messages: ['1', { recipient: '2', status: 'SENT' }, '3'],
    });
    const now = new Date();
    const first = await store.claim([request.id], ids, now);
    expect(first.claimed.sort()).toEqual([ids[0], ids[2]].sort());
    expect(first.gates.get(request.id)).toEqual({ valid_until: expect.any(Date), cancel_requested_at: null });
    await store.unclaim(ids);
    await store.requestCancel(request.id, now);
    const refused = await store.claim([request.id], ids, new Date());
    expect(refused.claimed).toEqual([]);
    expect(refused.gates.get(request.id)?.cancel_requested_at).toBeInstanceOf(Date);
    const expired = await storeSend(ctx, ownerOf(tenant), { messages: ['4'] });
    await endValidityInFlight(ctx, expired.request.id);
    expect((await store.claim([expired.request.id], expired.ids, new Date())).claimed).toEqual([]);
  });

  it('claims across the requests of a shared job, each by its own gate', async () => {
    const open = await storeSend(ctx, ownerOf(tenant), { messages: ['s1'] });
    const cancelled = await storeSend(ctx, ownerOf(tenant), { messages: ['s2'] });
    const lapsed = await storeSend(ctx, ownerOf(tenant), { messages: ['s3'] });
    await store.requestCancel(cancelled.request.id, new Date());
    await endValidityInFlight(ctx, lapsed.request.id);
    const requests = [open, cancelled, lapsed];
    const got = await store.claim(
      requests.map((r) => r.request.id),
      requests.flatMap((r) => r.ids),
      new Date(),
    );
    expect(got.claimed).toEqual(open.ids);
    expect(got.gates.size).toBe(3);
    expect(got.gates.get(cancelled.request.id)?.cancel_requested_at).toBeInstanceOf(Date);
    expect(got.gates.get(lapsed.request.id)?.valid_until!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('keeps the time of the first cancel asked', async () => {
    const { request } = await storeSend(ctx, ownerOf(tenant));
    const first = new Date(Date.now() - 60_000);
    await store.requestCancel(request.id, first);
    await store.requestCancel(request.id, new Date());
    const [row] = await requestsById(ctx, [request.id], 'cancel_requested_at');
    expect((row.cancel_requested_at as Date).getTime()).toBe(first.getTime());
  });

  it('finds messages left by an unfinished cancel or out of validity, leaving out those being handed over', async () => {
    const now = new Date();
    const cancelled = await storeSend(ctx, ownerOf(tenant), { messages: ['c1', 'c2'] });
    const lapsed = await storeSend(ctx, ownerOf(tenant), { messages: ['v1', 'v2'] });
    // One of each is being handed over by a live worker (a claim newer than the stale bound).
    await store.claim([cancelled.request.id], [cancelled.ids[1]], now);
    await store.claim([lapsed.request.id], [lapsed.ids[1]], now);
    await store.requestCancel(cancelled.request.id, new Date(now.getTime() - 120_000));
    await endValidityInFlight(ctx, lapsed.request.id);
    const staleBefore = new Date(now.getTime() - 30_000);
    const left = await store.findUnfinishedCancels(new Date(now.getTime() - 60_000), staleBefore, 100);
    expect(left.map((m) => m.id)).toContain(cancelled.ids[0]);
    expect(left.map((m) => m.id)).not.toContain(cancelled.ids[1]);
    const out = await store.findOutOfValidity(now, staleBefore, 100);
    expect(out.map((m) => [m.id, m.cost])).toContainEqual([lapsed.ids[0], '0.500000']);
    expect(out.map((m) => m.id)).not.toContain(lapsed.ids[1]);
  });
});

describe('ScheduleStore: owned requests and reschedule', () => {
  it("finds a request only on its own account's side", async () => {
    const live = await storeSend(ctx, ownerOf(tenant));
    const test = await storeSend(ctx, ownerOf(tenant, 'test'));
    expect((await store.findOwnedRequest(tenant.account.id, live.request.id, false))?.id).toBe(
      live.request.id,
    );
    expect(await store.findOwnedRequest(tenant.account.id, live.request.id, true)).toBeUndefined();
    expect((await store.findOwnedRequest(tenant.account.id, test.request.id, true))?.id).toBe(
      test.request.id,
    );
    expect(await store.findOwnedRequest('999999999', live.request.id, false)).toBeUndefined();
  });

  it('lists the messages not yet handed over, in id order', async () => {
    const { request, ids } = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: '1', status: 'SCHEDULED' }, { recipient: '2', status: 'SENT' }, '3'],
    });
    expect((await store.findWaitingOf(request.id)).map((m) => m.id)).toEqual([ids[0], ids[2]]);
  });

  it('moves the waiting messages and the request to the new time, each message where its placer puts it', async () => {
    const req = await scheduled(minutes(60), ['a', 'b']);
    const newAt = minutes(120);
    const own = minutes(150);
    const moved = await store.reschedule(
      req.request.id,
      { sendAt: newAt, validUntil: minutes(600) },
      (waiting) => waiting.map((w) => (w.recipient === 'b' ? own : null)),
    );
    expect(moved).toBe(2);
    const [row] = await requestsById(ctx, [req.request.id], 'send_at', 'due_at');
    expect((row.send_at as Date).getTime()).toBe(newAt.getTime());
    expect((row.due_at as Date).getTime()).toBe(newAt.getTime());
    const placed = await requestMessages(ctx, req.request.id, 'recipient', 'send_at');
    expect(placed.map((m) => [m.recipient, (m.send_at as Date | null)?.getTime() ?? null])).toEqual([
      ['a', null],
      ['b', own.getTime()],
    ]);
    const released = await storeSend(ctx, ownerOf(tenant));
    expect(
      await store.reschedule(released.request.id, { sendAt: newAt, validUntil: minutes(600) }, () => []),
    ).toBe(0);
  });
});
