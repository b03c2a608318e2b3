import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SegmentStore,
  type NewSegment,
  type SegmentGroup,
} from '../../src/modules/smpp-server/segments/segment.store.js';
import { nextId } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Every statement on smpp_segments (the parts of long texts submitted over SMPP), on real MySQL. */

let ctx: ServiceContext;
let store: SegmentStore;
let nextRef = 1;

/** A text of `total` parts of its own: credential 1 from ACME to one recipient, a fresh reference. */
const group = (over: Partial<SegmentGroup> = {}): SegmentGroup => ({
  credentialId: 1,
  source: 'ACME',
  destination: '260971000001',
  ref: nextRef++,
  total: 3,
  ...over,
});

const part = (g: SegmentGroup, seqnum: number, over: Partial<NewSegment> = {}): NewSegment => ({
  ...g,
  id: nextId(),
  seqnum,
  registeredDelivery: 1,
  text: `part ${seqnum} `,
  sendAt: null,
  validityPeriod: null,
  ...over,
});

/** The text's parts began `ms` ago. */
const ageParts = (ids: string[], ms: number) =>
  ctx.ds.query('UPDATE smpp_segments SET created_at = created_at - INTERVAL ? MICROSECOND WHERE id IN (?)', [
    ms * 1000,
    ids,
  ]);

const sameGroup = (a: SegmentGroup) => (b: SegmentGroup) =>
  a.credentialId === b.credentialId &&
  a.source === b.source &&
  a.destination === b.destination &&
  a.ref === b.ref &&
  a.total === b.total;

beforeAll(async () => {
  ctx = await startServices([], [SegmentStore]);
  store = ctx.get(SegmentStore);
});

afterAll(() => ctx?.close());

describe('SegmentStore', () => {
  it('keeps the parts of an open text and reads them back in order, waiting', async () => {
    const g = group();
    const [p3, p1] = [part(g, 3), part(g, 1, { registeredDelivery: 0, text: 'première ' })];
    expect(await store.insert(p3)).toBe(p3.id);
    expect(await store.insert(p1)).toBe(p1.id);
    const parts = await store.openParts(g);
    expect(parts.map((p) => [p.id, p.seqnum, p.text, p.registeredDelivery, p.state, p.messageId])).toEqual([
      [p1.id, 1, 'première ', 0, 'waiting', null],
      [p3.id, 3, 'part 3 ', 1, 'waiting', null],
    ]);
    expect(parts[0]).toMatchObject(g);
    expect(parts[0].createdAt).toBeInstanceOf(Date);
    expect(parts.map((p) => [p.sendAt, p.validityPeriod])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  it("keeps the send_at and validity_period a part's submit_sm asked for", async () => {
    const g = group({ total: 2 });
    const sendAt = new Date('2026-12-07T10:00:00.500Z');
    await store.insert(part(g, 1, { sendAt, validityPeriod: 7200 }));
    await store.insert(part(g, 2, { validityPeriod: 60 }));
    const parts = await store.openParts(g);
    expect(parts.map((p) => [p.sendAt, p.validityPeriod])).toEqual([
      [sendAt, 7200],
      [null, 60],
    ]);
  });

  it("answers the first part's id when the same part of the same open text comes again, keeping the first", async () => {
    const g = group();
    const first = part(g, 2, { text: 'first copy' });
    await store.insert(first);
    expect(await store.insert(part(g, 2, { text: 'second copy' }))).toBe(first.id);
    const parts = await store.openParts(g);
    expect(parts.map((p) => [p.id, p.text])).toEqual([[first.id, 'first copy']]);
  });

  it('keeps the texts apart by credential, sender, recipient, reference and total', async () => {
    const g = group();
    const others = [
      { ...g, credentialId: 2 },
      { ...g, source: 'OTHER' },
      { ...g, destination: '260971000002' },
      { ...g, ref: nextRef++ },
      { ...g, total: 2 },
    ];
    const mine = part(g, 1);
    await store.insert(mine);
    for (const o of others) expect(await store.insert(part(o, 1))).not.toBe(mine.id);
    expect((await store.openParts(g)).map((p) => p.id)).toEqual([mine.id]);
    for (const o of others) expect(await store.openParts(o)).toHaveLength(1);
  });

  it('closes an open text once: the second close answers false and leaves the first state and message', async () => {
    const g = group({ total: 2 });
    const [a, b] = [part(g, 1), part(g, 2)];
    await store.insert(a);
    await store.insert(b);
    const messageId = nextId();
    const closes = await Promise.all([
      store.close(g, 'stored', messageId),
      store.close(g, 'incomplete', null),
    ]);
    expect(closes.filter(Boolean)).toHaveLength(1);
    expect(await store.close(g, 'refused', null)).toBe(false);
    expect(await store.openParts(g)).toEqual([]);
    const rows = (await ctx.ds.query(
      'SELECT state, message_id FROM smpp_segments WHERE id IN (?) ORDER BY id',
      [[a.id, b.id]],
    )) as Array<{ state: string; message_id: string | null }>;
    const won = closes[0]
      ? { state: 'stored', message_id: messageId }
      : { state: 'incomplete', message_id: null };
    expect(rows.map((r) => ({ state: r.state, message_id: r.message_id && String(r.message_id) }))).toEqual([
      won,
      won,
    ]);
  });

  it('answers the parts a stored message was made of, in order, and nothing for another message', async () => {
    const g = group({ total: 2 });
    const [b, a] = [part(g, 2), part(g, 1)];
    await store.insert(b);
    await store.insert(a);
    const messageId = nextId();
    expect(await store.close(g, 'stored', messageId)).toBe(true);
    const parts = await store.partsOfMessage(messageId);
    expect(parts.map((p) => [p.id, p.seqnum, p.state, p.messageId])).toEqual([
      [a.id, 1, 'stored', messageId],
      [b.id, 2, 'stored', messageId],
    ]);
    expect(await store.partsOfMessage(nextId())).toEqual([]);
  });

  it('starts a new text when a closed reference is used again, each part its own id', async () => {
    const g = group({ total: 2 });
    const old = part(g, 1);
    await store.insert(old);
    expect(await store.close(g, 'incomplete', null)).toBe(true);
    const fresh = part(g, 1);
    expect(await store.insert(fresh)).toBe(fresh.id);
    expect((await store.openParts(g)).map((p) => p.id)).toEqual([fresh.id]);
    const [row] = (await ctx.ds.query('SELECT state, open FROM smpp_segments WHERE id = ?', [
      old.id,
    ])) as Array<{
      state: string;
      open: number | null;
    }>;
    expect(row).toEqual({ state: 'incomplete', open: null });
  });

  it('answers the open texts begun before the time given, with how many parts each has, up to the limit', async () => {
    const credentialId = 77;
    const stale = group({ credentialId });
    const staleParts = [part(stale, 1), part(stale, 3)];
    const fresh = group({ credentialId });
    const freshParts = [part(fresh, 1)];
    const closed = group({ credentialId, total: 1 });
    const closedParts = [part(closed, 1)];
    for (const p of [...staleParts, ...freshParts, ...closedParts]) await store.insert(p);
    await store.close(closed, 'stored', nextId());
    await ageParts([staleParts[0].id], 120_000);
    await ageParts(
      closedParts.map((p) => p.id),
      120_000,
    );
    const before = new Date(Date.now() - 60_000);
    const open = (await store.openGroups(before, 1000)).filter((o) => o.credentialId === credentialId);
    expect(open).toEqual([{ ...stale, parts: 2 }]);
    expect(open.some(sameGroup(fresh))).toBe(false);
    expect(open.some(sameGroup(closed))).toBe(false);
    expect(await store.openGroups(new Date(Date.now() + 60_000), 1)).toHaveLength(1);
  });
});
