import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkClicks } from '../../src/modules/link-redirects/link-clicks.service.js';
import { WebhooksModule } from '../../src/modules/callbacks/webhooks/webhooks.module.js';
import { ShortLinkStore, type NewShortLink } from '../../src/modules/links/short-link.store.js';
import { startServices, type ServiceContext } from '../support/service-context.js';
import { createConnection } from 'mysql2/promise';
import { linkRow } from '../support/link-probes.js';
import { throughConnection } from '../support/message-probes.js';
import { dropTestState, MYSQL_ROOT } from '../support/test-app.js';

/** short_links: a send's links, the redirect's read, click counts and removals. */

let ctx: ServiceContext;
let store: ShortLinkStore;
let next = 1;

beforeAll(async () => {
  // LinkClicks hands the link.clicked events of what it counts to the webhook endpoints.
  ctx = await startServices([WebhooksModule], [ShortLinkStore, LinkClicks]);
  store = ctx.get(ShortLinkStore);
});

afterAll(() => ctx?.close());

/** Links of a new message id, written as the send's transaction writes them. */
async function links(codes: string[], createdAt = new Date()): Promise<NewShortLink[]> {
  const messageId = String(9_000_000 + next++);
  const rows = codes.map((code, position) => ({
    code,
    messageId,
    position,
    url: `https://acme.example/${code}`,
    createdAt,
  }));
  await ctx.ds.transaction((em) => store.insert(em, rows));
  return rows;
}

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);

describe('ShortLinkStore', () => {
  it('finds a code by its exact case, with its target, message and age', async () => {
    const made = new Date(Date.now() - 10 * 86_400_000);
    made.setMilliseconds(123);
    const [l] = await links(['AbCdEfGh01'], made);
    expect(await store.find('AbCdEfGh01')).toEqual({
      url: 'https://acme.example/AbCdEfGh01',
      message_id: l!.messageId,
      created_at: made,
    });
    expect(await store.find('abcdefgh01')).toBeUndefined();
  });

  it('lists a message’s links in text order, and refuses a code twice', async () => {
    const rows = await links(['ZzOrder003', 'ZzOrder001', 'ZzOrder002']);
    expect((await store.ofMessage(rows[0]!.messageId)).map((r) => r.code)).toEqual([
      'ZzOrder003',
      'ZzOrder001',
      'ZzOrder002',
    ]);
    await expect(links(['ZzOrder001'])).rejects.toMatchObject({ errno: 1062 });
  });

  it('adds tallies: counts add up, the first click only moves earlier and the last only later', async () => {
    const [a, b] = await links(['TallyAaaa1', 'TallyBbbb1']);
    const t1 = new Date('2026-01-01T10:00:00.000Z');
    const t2 = new Date('2026-01-01T11:00:00.000Z');
    const t0 = new Date('2026-01-01T09:00:00.000Z');
    await store.addClicks([
      { code: a!.code, clicks: 2, previews: 1, firstAt: t1, lastAt: t2 },
      { code: b!.code, clicks: 0, previews: 3, firstAt: null, lastAt: null },
      { code: 'NoSuchCode', clicks: 5, previews: 0, firstAt: t1, lastAt: t1 },
    ]);
    // A later write from another process, with an earlier first click; then one with previews alone.
    await store.addClicks([{ code: a!.code, clicks: 1, previews: 0, firstAt: t0, lastAt: t1 }]);
    await store.addClicks([{ code: a!.code, clicks: 0, previews: 2, firstAt: null, lastAt: null }]);
    expect(await linkRow(ctx, a!.code)).toMatchObject({
      clicks: 3,
      previews: 3,
      first_click_at: t0,
      last_click_at: t2,
    });
    expect(await linkRow(ctx, b!.code)).toMatchObject({
      clicks: 0,
      previews: 3,
      first_click_at: null,
      last_click_at: null,
    });
    expect(await linkRow(ctx, 'NoSuchCode')).toBeUndefined();
  });

  it('removes the links of given messages, and expired ones up to a limit, oldest first', async () => {
    const kept = await links(['KeepMe0001']);
    const gone = await links(['GoneMe0001', 'GoneMe0002']);
    expect(await store.removeOfMessages([gone[0]!.messageId, '1'])).toBe(2);
    expect(await store.ofMessage(gone[0]!.messageId)).toEqual([]);
    expect(await store.ofMessage(kept[0]!.messageId)).toHaveLength(1);

    await links(['OldOld0001'], daysAgo(100));
    await links(['OldOld0002'], daysAgo(95));
    expect(await store.removeExpired(daysAgo(90), 1)).toBeGreaterThanOrEqual(1);
    expect(await linkRow(ctx, 'OldOld0002')).toBeDefined();
    while ((await store.removeExpired(daysAgo(90), 100)) > 0);
    expect(await linkRow(ctx, 'OldOld0001')).toBeUndefined();
    expect(await linkRow(ctx, 'OldOld0002')).toBeUndefined();
    expect(await linkRow(ctx, 'KeepMe0001')).toBeDefined();
  });
});

describe('ShortLinkStore, a day dropped whole', () => {
  it('removes the links of messages in an id range, a limit at a time, and none outside it', async () => {
    const a = await links(['RangeIn001', 'RangeIn002']);
    const b = await links(['RangeIn003']);
    const c = await links(['RangeOut01']);
    const [from, to] = [a[0].messageId, c[0].messageId];
    expect(await store.removeOfMessageRange(from, to, 2)).toBe(2);
    expect(await store.removeOfMessageRange(from, to, 2)).toBe(1);
    expect(await store.removeOfMessageRange(from, to, 2)).toBe(0);
    expect(await store.find(b[0].code)).toBeUndefined();
    expect(await store.find(c[0].code)).toBeDefined();
  });
});

describe('LinkClicks', () => {
  it('gathers clicks and previews in memory and writes them in one go', async () => {
    const [l] = await links(['Gather0001']);
    const clicks = ctx.get(LinkClicks);
    const followed = { code: l!.code, url: l!.url, message_id: l!.messageId };
    const first = new Date('2026-02-01T08:00:00.000Z');
    clicks.clicked(followed, first);
    clicks.clicked(followed, new Date('2026-02-01T08:05:00.000Z'));
    clicks.previewed(followed);
    expect(await linkRow(ctx, l!.code)).toMatchObject({ clicks: 0, previews: 0 });
    await clicks.flush();
    expect(await linkRow(ctx, l!.code)).toMatchObject({
      clicks: 2,
      previews: 1,
      first_click_at: first,
      last_click_at: new Date('2026-02-01T08:05:00.000Z'),
    });
  });

  it('writes what it holds when the application shuts down', async () => {
    const own = await startServices([WebhooksModule], [ShortLinkStore, LinkClicks]);
    const conn = await createConnection(`${MYSQL_ROOT}/${own.name}`);
    try {
      const rows = [
        { code: 'AtClose001', messageId: '42', position: 0, url: 'https://x.example', createdAt: new Date() },
      ];
      await own.ds.transaction((em) => own.get(ShortLinkStore).insert(em, rows));
      own
        .get(LinkClicks)
        .clicked({ code: 'AtClose001', url: 'https://x.example', message_id: '42' }, new Date());
      await own.ref.close();
      expect(await linkRow(throughConnection(conn, own.name), 'AtClose001')).toMatchObject({ clicks: 1 });
    } finally {
      await conn.end();
      await dropTestState(own.name);
    }
  });
});
