import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IdempotencyStore,
  type Claim,
  type KeyScope,
} from '../../src/modules/idempotency/idempotency.store.js';
import { nextId } from '../factories/message.factory.js';
import { ageIdempotencyKeys, endIdempotencyLease } from '../support/clock.js';
import { idempotencyKeyCount } from '../support/account-probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** idempotency_keys: a key is held by one request, answered again, taken over, forgotten. */

let ctx: ServiceContext;
let store: IdempotencyStore;
let n = 0;
const scope = (testMode = false): KeyScope => ({ accountId: String(9000 + ++n), testMode });
const body = () => randomBytes(32);
const answer = { status: 200, contentType: 'application/json', body: Buffer.from('{"ok":true}') };

async function claimed(s: KeyScope, key: string, fp: Buffer, lease = 30): Promise<Claim> {
  const r = await store.claim(s, key, fp, lease);
  if (r.kind !== 'claimed') throw new Error(`expected a claim, got ${r.kind}`);
  return r.claim;
}

beforeAll(async () => {
  ctx = await startServices([], [IdempotencyStore]);
  store = ctx.get(IdempotencyStore);
});

afterAll(() => ctx?.close());

describe('IdempotencyStore', () => {
  it('lets one of many racing requests hold a new key; the others see it in progress', async () => {
    const s = scope();
    const fp = body();
    const results = await Promise.all(Array.from({ length: 10 }, () => store.claim(s, 'k', fp, 30)));
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in-progress')).toHaveLength(9);
  });

  it('replays the kept answer to the same body, and refuses another body under the key', async () => {
    const s = scope();
    const fp = body();
    await store.complete(await claimed(s, 'k', fp), answer);
    expect(await store.claim(s, 'k', fp, 30)).toEqual({ kind: 'replay', answer });
    expect(await store.claim(s, 'k', body(), 30)).toEqual({ kind: 'other-body' });
  });

  it("keeps each account's keys, and an account's test and live keys, apart", async () => {
    const live = scope();
    const fp = body();
    await store.complete(await claimed(live, 'shared', fp), answer);
    expect((await store.claim({ ...live, testMode: true }, 'shared', fp, 30)).kind).toBe('claimed');
    expect((await store.claim(scope(), 'shared', fp, 30)).kind).toBe('claimed');
  });

  it('forgets a key whose request failed, so it can be used again with another body', async () => {
    const s = scope();
    await store.release(await claimed(s, 'k', body()));
    expect((await store.claim(s, 'k', body(), 30)).kind).toBe('claimed');
  });

  it('keeps a released key that a send is tied to, so the retry is answered with that send', async () => {
    const s = scope();
    const fp = body();
    const first = await claimed(s, 'k', fp);
    const sendRequestId = nextId();
    expect(await ctx.ds.transaction((em) => store.linkSend(em, first.id, sendRequestId))).toBe(true);
    await store.release(first);
    const retry = await claimed(s, 'k', fp);
    expect(retry.id).toBe(first.id);
    expect(await store.linkedSend(retry.id)).toBe(sendRequestId);
    // The link is made once: a second send under the key is not tied to it.
    expect(await ctx.ds.transaction((em) => store.linkSend(em, retry.id, nextId()))).toBe(false);
  });

  it('lets a retry take over a key whose holder let its lease lapse; the old holder can then neither answer nor release it', async () => {
    const s = scope();
    const fp = body();
    const stale = await claimed(s, 'k', fp);
    await endIdempotencyLease(ctx, stale.id);
    const fresh = await claimed(s, 'k', fp);
    expect(fresh.id).toBe(stale.id);
    await store.complete(stale, { ...answer, status: 500 });
    await store.release(stale);
    expect(await store.claim(s, 'k', fp, 30)).toEqual({ kind: 'in-progress' });
    await store.complete(fresh, answer);
    expect(await store.claim(s, 'k', fp, 30)).toEqual({ kind: 'replay', answer });
  });

  it('starts a key afresh after its 24 hours, and the sweep deletes keys past them', async () => {
    const s = scope();
    await store.complete(await claimed(s, 'old', body()), answer);
    await ageIdempotencyKeys(ctx, s.accountId, 25);
    const other = body();
    expect((await store.claim(s, 'old', other, 30)).kind).toBe('claimed');
    const gone = scope();
    await store.complete(await claimed(gone, 'k1', body()), answer);
    await store.complete(await claimed(gone, 'k2', body()), answer);
    await ageIdempotencyKeys(ctx, gone.accountId, 25);
    expect(await store.deleteExpired()).toBe(2);
    expect(await idempotencyKeyCount(ctx, gone.accountId)).toBe(0);
    expect(await idempotencyKeyCount(ctx, s.accountId)).toBe(1);
  });
});
