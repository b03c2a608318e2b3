import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackJob } from '../../src/modules/callbacks/callback-job.js';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import { allCallbackAttempts, callbackJob, outboxCount } from '../support/callback-probes.js';
import { ageOutboxEvents } from '../support/clock.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The callback outbox and attempt log (notification database). */

let ctx: ServiceContext;
let store: CallbackStore;

const job = (over: Partial<CallbackJob> = {}): CallbackJob => callbackJob(over);
const ids = (rows: Array<{ event_id: string }>) => rows.map((r) => r.event_id);

beforeAll(async () => {
  ctx = await startServices([], [CallbackStore]);
  store = ctx.get(CallbackStore);
});

afterAll(() => ctx?.close());

describe('CallbackStore', () => {
  it('keeps an event once: keeping it again leaves the first copy', async () => {
    const first = job();
    await store.keep([first]);
    await store.keep([{ ...first, url: 'https://example.com/changed' }, job()]);
    const rows = (await ctx.ds.query(
      `SELECT job FROM \`${ctx.name}_notification\`.callback_outbox WHERE event_id = ?`,
      [first.eventId],
    )) as Array<{ job: string }>;
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].job)).toEqual(first);
    await store.keep([]);
  });

  it('answers events not yet queued and older than asked, oldest first, up to the limit', async () => {
    const [old, older, oldest, fresh, queued] = [job(), job(), job(), job(), job()];
    await store.keep([old, older, oldest, fresh, queued]);
    await ageOutboxEvents(ctx, [old.eventId, queued.eventId], 60_000);
    await ageOutboxEvents(ctx, [older.eventId], 120_000);
    await ageOutboxEvents(ctx, [oldest.eventId], 180_000);
    await store.markQueued([queued.eventId]);
    expect(ids(await store.unqueued(30_000, 10))).toEqual([oldest.eventId, older.eventId, old.eventId]);
    expect(ids(await store.unqueued(30_000, 2))).toEqual([oldest.eventId, older.eventId]);
    const row = (await store.unqueued(30_000, 1))[0];
    expect(JSON.parse(row.job)).toEqual(oldest);
  });

  it('puts every queued event back to not queued when the queue lost its data, and says how many', async () => {
    // More than the thousand one statement puts back.
    const jobs = Array.from({ length: 2500 }, () => job());
    await store.keep(jobs);
    await store.markQueued(jobs.map((j) => j.eventId));
    const queued = (await outboxCount(ctx)) - (await outboxCount(ctx, 'unqueued'));
    expect(queued).toBeGreaterThanOrEqual(2500);
    expect(await store.unmarkAllQueued()).toBe(queued);
    expect(await outboxCount(ctx, 'unqueued')).toBe(await outboxCount(ctx));
  });

  it('removes the events done with, and only those', async () => {
    const [done, kept] = [job(), job()];
    await store.keep([done, kept]);
    const total = await outboxCount(ctx);
    await store.remove([done.eventId]);
    expect(await outboxCount(ctx)).toBe(total - 1);
    await ageOutboxEvents(ctx, [kept.eventId], 3_600_000);
    expect(ids(await store.unqueued(3_000_000, 100))).toContain(kept.eventId);
  });

  it('forgets only rows older than the hours given', async () => {
    const [stale, recent] = [job(), job()];
    await store.keep([stale, recent]);
    await ageOutboxEvents(ctx, [stale.eventId], 3 * 3_600_000);
    await store.forgetOlderThan(2);
    const left = (await ctx.ds.query(
      `SELECT event_id FROM \`${ctx.name}_notification\`.callback_outbox WHERE event_id IN (?)`,
      [[stale.eventId, recent.eventId]],
    )) as Array<{ event_id: string }>;
    expect(ids(left)).toEqual([recent.eventId]);
  });

  it('keeps every event while the sweep puts queued events back and forgets old ones beside it', async () => {
    // Four state paths keeping a slice's 100 events at a time (then marking half of them queued
    // and removing most, as delivery does), beside the sweep's two statements run back to back.
    // A keep that fails leaves its events on Redis alone; the sweep's statements must not fail
    // either (a put-back that fails leaves events queued on lost data). Before the sweep's
    // statements changed rows by primary key, 3 s of this lost 50-200 keeps to deadlocks.
    const until = Date.now() + 3000;
    const failed: Record<'keep' | 'unmark' | 'forget', string[]> = { keep: [], unmark: [], forget: [] };
    const note = (what: keyof typeof failed) => (err: Error) => void failed[what].push(err.message);
    const keeper = async () => {
      while (Date.now() < until) {
        const batch = Array.from({ length: 100 }, () => job());
        const kept = await store.keep(batch).then(() => true, note('keep'));
        if (!kept) continue;
        // Deadlocks of these two are left to the outbox (a row marked again, or removed later).
        await store.markQueued(batch.slice(0, 50).map((j) => j.eventId)).catch(() => undefined);
        await store.remove(batch.slice(0, 90).map((j) => j.eventId)).catch(() => undefined);
      }
    };
    const sweep = async () => {
      while (Date.now() < until) {
        await store.unmarkAllQueued().catch(note('unmark'));
        await store.forgetOlderThan(6).catch(note('forget'));
      }
    };
    await Promise.all([keeper(), keeper(), keeper(), keeper(), sweep(), sweep()]);
    expect(failed).toEqual({ keep: [], unmark: [], forget: [] });
  });

  it('records each attempt, its URL cut to the column', async () => {
    const eventId = randomUUID();
    const attempt = {
      eventId,
      eventType: 'message',
      messageRowId: '1796000000000000009',
      accountId: '8',
      outcome: 'http_error',
      httpStatus: 500,
      error: 'HTTP 500',
      durationMs: 12,
    };
    await store.recordAttempt({ ...attempt, url: `https://example.com/${'a'.repeat(3000)}`, attempt: 1 });
    await store.recordAttempt({
      ...attempt,
      url: 'https://example.com/',
      attempt: 2,
      outcome: 'delivered',
      httpStatus: 200,
      error: null,
    });
    expect(
      (await allCallbackAttempts(ctx, { accountId: '8' })).map((a) => [
        a.event_id,
        a.attempt,
        a.outcome,
        a.http_status,
      ]),
    ).toEqual([
      [eventId, 1, 'http_error', 500],
      [eventId, 2, 'delivered', 200],
    ]);
    const [row] = (await ctx.ds.query(
      `SELECT LENGTH(url) AS n FROM \`${ctx.name}_notification\`.callback_attempts WHERE event_id = ? AND attempt = 1`,
      [eventId],
    )) as Array<{ n: number }>;
    expect(Number(row.n)).toBe(2048);
  });
});
