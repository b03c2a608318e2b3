import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagePartsStore } from '../../src/modules/messages/message-parts.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { moveTo, ownerOf, storeSend } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** message_parts: the provider ids of each message's parts and what was reported for each. */

let ctx: ServiceContext;
let store: MessagePartsStore;
let tenant: Tenant;

const sent = async (n: number) =>
  (await storeSend(ctx, ownerOf(tenant), { messages: Array.from({ length: n }, (_, i) => `2609710001${i}`) }))
    .ids;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, MessagesModule]);
  store = ctx.get(MessagePartsStore);
  tenant = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('MessagePartsStore', () => {
  it('stores the parts handed over, and a resend replaces the earlier provider id of a part', async () => {
    const [id] = await sent(1);
    await store.storeParts(ctx.ds, [
      { messageId: id, part: 1, providerMessageId: 'old-1', idValue: null },
      { messageId: id, part: 2, providerMessageId: '0A1B', idValue: '2587' },
    ]);
    await store.storeParts(ctx.ds, [{ messageId: id, part: 1, providerMessageId: 'new-1', idValue: null }]);
    expect(await store.findCandidates(['old-1'], [])).toEqual([]);
    const found = await store.findCandidates(['new-1'], ['2587']);
    expect(found.map((p) => [String(p.message_id), p.part, p.provider_message_id, Number(p.parts)])).toEqual([
      [id, 1, 'new-1', 2],
      [id, 2, '0A1B', 2],
    ]);
    expect(await store.findCandidates([], ['2587'])).toEqual([]);
  });

  it("gives each candidate its message's connector, and given connectors leaves out other connectors' parts", async () => {
    const ids = await sent(3);
    await moveTo(ctx, [ids[0]], 'SENT', { connector: 'smsc-a' });
    await moveTo(ctx, [ids[1]], 'SENT', { connector: 'smsc-b' });
    await store.storeParts(
      ctx.ds,
      ids.map((m) => ({ messageId: m, part: 1, providerMessageId: 'same-7', idValue: null })),
    );
    const shown = (rows: Awaited<ReturnType<MessagePartsStore['findCandidates']>>) =>
      rows.map((p) => [String(p.message_id), p.connector]).sort();
    expect(shown(await store.findCandidates(['same-7'], []))).toEqual(
      [
        [ids[0], 'smsc-a'],
        [ids[1], 'smsc-b'],
        [ids[2], null],
      ].sort(),
    );
    expect(shown(await store.findCandidates(['same-7'], [], ['smsc-a']))).toEqual(
      [
        [ids[0], 'smsc-a'],
        [ids[2], null],
      ].sort(),
    );
  });

  it('keeps the first reported outcome of a part; a later report does not change it', async () => {
    const [id] = await sent(1);
    await store.storeParts(ctx.ds, [
      { messageId: id, part: 1, providerMessageId: 'q-1', idValue: null },
      { messageId: id, part: 2, providerMessageId: 'q-2', idValue: null },
    ]);
    await store.recordOutcomes('UNDELIVERED', [{ messageId: id, part: 1, reason: 'ABSENT' }]);
    await store.recordOutcomes('DELIVERED', [
      { messageId: id, part: 1, reason: null },
      { messageId: id, part: 2, reason: null },
    ]);
    expect(await store.partStates([id])).toEqual([
      { message_id: id, status: 'UNDELIVERED', reason: 'ABSENT' },
      { message_id: id, status: 'DELIVERED', reason: null },
    ]);
  });

  it('records a reason per part when they differ, and tells consecutive 19-digit ids apart', async () => {
    // Two messages made one after the other: ids that differ in their last digit only.
    const [a, b] = await sent(2);
    expect(BigInt(b) - BigInt(a)).toBe(1n);
    await store.storeParts(ctx.ds, [
      { messageId: a, part: 1, providerMessageId: 'r-a', idValue: null },
      { messageId: b, part: 1, providerMessageId: 'r-b', idValue: null },
    ]);
    await store.recordOutcomes('UNDELIVERED', [
      { messageId: a, part: 1, reason: 'ABSENT' },
      { messageId: b, part: 1, reason: 'BARRED' },
    ]);
    expect(await store.partStates([a, b])).toEqual([
      { message_id: a, status: 'UNDELIVERED', reason: 'ABSENT' },
      { message_id: b, status: 'UNDELIVERED', reason: 'BARRED' },
    ]);
    expect(await store.partStates([])).toEqual([]);
  });
});
