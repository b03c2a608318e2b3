import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundStore, type NewInbound } from '../../src/modules/inbound/inbound.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { ageInboundParts } from '../support/clock.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Inbound messages, their auto-reply state, each account's inbound settings and the parts of concatenated ones. */

let ctx: ServiceContext;
let store: InboundStore;
let tenant: Tenant;

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const inbound = (over: Partial<NewInbound> = {}): NewInbound => ({
  uuid: randomUUID(),
  accountId: tenant.account.id,
  testMode: false,
  from: '260971000001',
  to: '260970000100',
  text: 'hello',
  keyword: null,
  inReplyTo: null,
  source: 'smpp',
  replyText: null,
  receivedAt: new Date(),
  ...over,
});
const receive = async (...rows: NewInbound[]) => {
  await ctx.ds.transaction((em) => store.insert(em, rows));
  return store.byUuids(rows.map((r) => r.uuid));
};

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [InboundStore]);
  store = ctx.get(InboundStore);
  tenant = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('InboundStore: messages', () => {
  it('stores a batch and reads it back by uuid in arrival order, the newest id being the last', async () => {
    const rows = await receive(inbound({ text: 'one' }), inbound({ text: 'two', testMode: true }));
    expect(rows.map((r) => [r.text, r.test_mode, r.sender])).toEqual([
      ['one', 0, '260971000001'],
      ['two', 1, '260971000001'],
    ]);
    expect(await store.newestId()).toBe(String(rows[1].id));
    expect(await store.byUuids([])).toEqual([]);
  });

  it('pages one side of an account after a cursor, filtered by number and time', async () => {
    const other = await createTenant(ctx);
    const rows = await receive(
      inbound({ accountId: other.account.id, to: '1', receivedAt: minutesAgo(30) }),
      inbound({ accountId: other.account.id, to: '2', receivedAt: minutesAgo(20) }),
      inbound({ accountId: other.account.id, to: '1', receivedAt: minutesAgo(10) }),
      inbound({ accountId: other.account.id, to: '1', receivedAt: minutesAgo(5), testMode: true }),
    );
    const page = (filter: { since?: Date; to?: string }, after: string | null, limit = 10, test = false) =>
      store.page(other.account.id, test, filter, after, limit).then((r) => r.map((x) => x.uuid));
    expect(await page({}, null, 2)).toEqual([rows[0].uuid, rows[1].uuid]);
    expect(await page({}, String(rows[1].id))).toEqual([rows[2].uuid]);
    expect(await page({ to: '1' }, null)).toEqual([rows[0].uuid, rows[2].uuid]);
    expect(await page({ since: minutesAgo(15) }, null)).toEqual([rows[2].uuid]);
    expect(await page({}, null, 10, true)).toEqual([rows[3].uuid]);
  });

  it('knows whether a sender got an auto-reply to a keyword from this side since a time', async () => {
    const from = '260971000077';
    await receive(inbound({ from, keyword: 'STOP', replyText: 'Bye', receivedAt: minutesAgo(10) }));
    const owner = { accountId: tenant.account.id, testMode: false };
    const asked = (o: typeof owner, keyword: string, since: Date) =>
      ctx.ds.transaction((em) => store.repliedSince(em, o, from, keyword, since));
    expect(await asked(owner, 'STOP', minutesAgo(60))).toBe(true);
    expect(await asked(owner, 'STOP', minutesAgo(5))).toBe(false);
    expect(await asked(owner, 'HELP', minutesAgo(60))).toBe(false);
    expect(await asked({ ...owner, testMode: true }, 'STOP', minutesAgo(60))).toBe(false);
  });

  it('lists the auto-replies still due, oldest first, until they are marked done', async () => {
    const [older, newer] = await receive(
      inbound({ replyText: 'r1', receivedAt: minutesAgo(9) }),
      inbound({ replyText: 'r2', receivedAt: minutesAgo(8) }),
      inbound({ replyText: null, receivedAt: minutesAgo(7) }),
      inbound({ replyText: 'r3', receivedAt: new Date() }),
    );
    const due = async () => (await store.pendingReplies(minutesAgo(1), 10)).map((r) => r.uuid);
    expect((await due()).filter((u) => [older.uuid, newer.uuid].includes(u))).toEqual([
      older.uuid,
      newer.uuid,
    ]);
    await store.replyDone([String(older.id), String(newer.id)]);
    expect(await due()).not.toContain(older.uuid);
    expect(await due()).not.toContain(newer.uuid);
  });
});

describe('InboundStore: settings and parts', () => {
  it('sets the settings given, keeps those left out and clears those set to null', async () => {
    const id = tenant.account.id;
    await store.updateSettings(id, { inbound_url: 'https://example.com/in', reply_on_stop: 'Bye' });
    await store.updateSettings(id, { reply_on_help: 'Call us' });
    await store.updateSettings(id, { reply_on_stop: null });
    expect((await store.settings([id])).get(id)).toEqual({
      account_id: expect.anything(),
      inbound_url: 'https://example.com/in',
      reply_on_stop: null,
      reply_on_start: null,
      reply_on_help: 'Call us',
    });
    expect((await store.settings(['999999999'])).size).toBe(0);
    expect((await store.settings([])).size).toBe(0);
  });

  it('answers the whole text only when the last part arrives, in sequence order whatever the arrival order', async () => {
    const key = { from: '260971', to: '555', ref: 5, total: 3 };
    const add = (seq: number, text: string) => ctx.ds.transaction((em) => store.addPart(em, key, seq, text));
    expect(await add(3, 'c')).toBeNull();
    expect(await add(1, 'a')).toBeNull();
    expect(await add(1, 'a')).toBeNull(); // the SMSC sent a part twice
    expect(await add(2, 'b')).toBe('abc');
    expect(await ctx.ds.query('SELECT 1 FROM inbound_parts WHERE sender = ?', [key.from])).toEqual([]);
  });

  it('assembles once when the last two parts arrive at the same moment on two connections', async () => {
    const key = { from: '260972', to: '555', ref: 6, total: 3 };
    await ctx.ds.transaction((em) => store.addPart(em, key, 1, 'x'));
    const results = await Promise.all([
      ctx.ds.transaction((em) => store.addPart(em, key, 2, 'y')),
      ctx.ds.transaction((em) => store.addPart(em, key, 3, 'z')),
    ]);
    expect(results.filter((r) => r !== null)).toEqual(['xyz']);
  });

  it('drops the parts of a set that never completed in time, and keeps a recent one', async () => {
    const key = (ref: number) => ({ from: '260971000005', to: '260970000100', ref, total: 3 });
    await ctx.ds.transaction((em) => store.addPart(em, key(1), 1, 'old '));
    await ctx.ds.transaction((em) => store.addPart(em, key(2), 1, 'new '));
    await ageInboundParts(ctx, '260971000005', 1);
    expect(await store.dropStaleParts(minutesAgo(60))).toBe(1);
    await ctx.ds.transaction((em) => store.addPart(em, key(2), 2, 'parts '));
    expect(await ctx.ds.transaction((em) => store.addPart(em, key(2), 3, 'here'))).toBe('new parts here');
    // The dropped set starts over: its first part alone completes nothing.
    expect(await ctx.ds.transaction((em) => store.addPart(em, key(1), 3, 'late'))).toBeNull();
  });
});
