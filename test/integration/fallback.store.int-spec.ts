import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { FallbackStore } from '../../src/modules/sending/fallback/fallback.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { ownerOf, storeSend } from '../factories/message.factory.js';
import { fallbackDueNow } from '../support/clock.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Chat-to-SMS fallbacks: claimed when due by one worker at a time, read, finished. */

let ctx: ServiceContext;
let store: FallbackStore;
let tenant: Tenant;

/** A chat request with a fallback: its messages fall due in an hour unless moved. */
async function chatWithFallback(recipients: string[], over: { body?: string | null } = {}) {
  const inAnHour = new Date(Date.now() + 3_600_000);
  return storeSend(ctx, ownerOf(tenant), {
    channel: 'chat',
    messages: recipients.map((recipient) => ({ recipient, fallbackDueAt: inAnHour, ...over })),
    request: { fallback: { afterSeconds: 3600, sender: 'ACME-SMS', body: null }, body: 'chat text' },
  });
}

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, MessagesModule], [FallbackStore]);
  store = ctx.get(FallbackStore);
  tenant = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('FallbackStore', () => {
  it('claims only what is due, up to the limit, and moves each claim a lease ahead', async () => {
    const { ids } = await chatWithFallback(['a1', 'a2', 'a3', 'a4']);
    await fallbackDueNow(ctx, ids.slice(0, 3));
    const now = new Date();
    const first = await store.claimDue(now, 60_000, 2);
    expect(first).toHaveLength(2);
    const second = await store.claimDue(now, 60_000, 10);
    expect([...first, ...second].sort()).toEqual(ids.slice(0, 3).sort());
    expect(await store.claimDue(now, 60_000, 10)).toEqual([]);
    // The lease ends: the claims fall due again for another worker.
    expect((await store.claimDue(new Date(now.getTime() + 61_000), 60_000, 10)).sort()).toEqual(
      ids.slice(0, 3).sort(),
    );
  });

  it('never gives the same fallback to two workers claiming at once', async () => {
    const { ids } = await chatWithFallback(Array.from({ length: 40 }, (_, i) => `b${i}`));
    await fallbackDueNow(ctx, ids);
    const now = new Date();
    const claims = await Promise.all(Array.from({ length: 4 }, () => store.claimDue(now, 60_000, 15)));
    const all = claims.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((id) => ids.includes(id))).toBe(true);
  });

  it("reads what each SMS is made of: the chat's own text unless personalised, and whether it exists already", async () => {
    const { ids } = await chatWithFallback(['c1']);
    const own = await chatWithFallback(['c2'], { body: 'personal text' });
    const sms = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: 'c1', fallbackOf: ids[0] }],
    });
    expect(sms.ids).toHaveLength(1);
    const rows = await store.sources([ids[0], own.ids[0]]);
    expect(rows.map((r) => [r.recipient, r.body, r.sender, r.fallback_sender, Number(r.made)])).toEqual([
      ['c1', 'chat text', 'ACME', 'ACME-SMS', 1],
      ['c2', 'personal text', 'ACME', 'ACME-SMS', 0],
    ]);
    expect(await store.sources([])).toEqual([]);
  });

  it('answers when the next fallback falls due, and forgets the finished ones', async () => {
    const { ids } = await chatWithFallback(['d1']);
    const next = await store.nextDue();
    expect(next!.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000);
    await store.finish(ids);
    expect(await store.claimDue(new Date(Date.now() + 7_200_000), 1000, 1000)).not.toContain(ids[0]);
  });
});
