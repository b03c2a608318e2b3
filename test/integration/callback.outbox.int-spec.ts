import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_QUEUE, type CallbackJob } from '../../src/modules/callbacks/callback-job.js';
import { CallbackOutbox } from '../../src/modules/callbacks/callback.outbox.js';
import { CallbackQueueModule } from '../../src/modules/callbacks/callback-queue.module.js';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import { callbackJob } from '../support/callback-probes.js';
import { ageOutboxEvents } from '../support/clock.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The callback outbox on real MySQL and Redis: what it keeps goes back on a queue that lost its data. */

let ctx: ServiceContext;
let outbox: CallbackOutbox;
let store: CallbackStore;
let queue: Queue<CallbackJob>;

const job = (): CallbackJob => callbackJob({}, 'SENT');

beforeAll(async () => {
  ctx = await startServices([CallbackQueueModule]);
  outbox = ctx.get(CallbackOutbox);
  store = ctx.get(CallbackStore);
  queue = ctx.get<Queue<CallbackJob>>(getQueueToken(CALLBACK_QUEUE));
});

afterAll(() => ctx?.close());

describe('CallbackOutbox', () => {
  it('puts a queued event back on a queue that lost its data at the next round when the first try failed', async () => {
    await outbox.recover(); // the first round sets the marker
    // An event queued (and marked so) on the data Redis then loses, with the marker.
    const lost = job();
    await store.keep([lost]);
    await store.markQueued([lost.eventId]);
    await ageOutboxEvents(ctx, [lost.eventId], 60_000); // past the grace left to the call queuing it
    await queue.client.del(`${ctx.config.queuePrefix}:${CALLBACK_QUEUE}:outbox-epoch`);
    // The round that notices fails to put it back: the outbox table is out of reach.
    const db = `\`${ctx.name}_notification\``;
    await ctx.ds.query(`RENAME TABLE ${db}.callback_outbox TO ${db}.callback_outbox_away`);
    try {
      await expect(outbox.recover()).rejects.toThrow();
    } finally {
      await ctx.ds.query(`RENAME TABLE ${db}.callback_outbox_away TO ${db}.callback_outbox`);
    }
    expect(await queue.getJob(lost.eventId)).toBeNull();
    // The next round puts it back.
    expect(await outbox.recover()).toBe(1);
    expect((await queue.getJob(lost.eventId))?.data).toEqual(lost);
  });
});
