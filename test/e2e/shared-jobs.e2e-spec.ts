import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bull';
import { DispatchProducer } from '../../src/modules/delivery/dispatch/dispatch.producer.js';
import { sharedPointerKey } from '../../src/modules/delivery/dispatch/shared-jobs.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmppApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { statesOfRequests } from '../support/account-messages.js';

/**
 * Single-message sends that reach the queue in the same tick share one dispatch job; the
 * recovery sweep finds each of them through its pointer: it leaves them alone while the shared
 * job waits, and queues them again once it is lost.
 */

const SMS = '/api/v1/json/bulk/sms';
const REQUESTS = 6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('shared dispatch jobs', () => {
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;
  let queue: Queue;

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startSmppApp(smsc.url, { SWEEP_INTERVAL_MS: '200', SWEEP_STRANDED_AFTER_MS: '1000' });
    tenant = await createTenant(t);
    queue = t.queue('sms');
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  /** Single sends made one by one, their own jobs then replaced by one shared job (one tick). */
  async function sharedSends(base: number): Promise<{ refs: string[]; to: string[] }> {
    await queue.pause(true);
    const refs: string[] = [];
    const ids: string[] = [];
    const to = Array.from({ length: REQUESTS }, (_, k) => `26097${base + k}`);
    for (const n of to) {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: [n], message: 'shared' });
      expect(res.status).toBe(200);
      refs.push(res.body.api_reference);
      const own = await waitFor(() => queue.getJob(`${res.body.api_reference}-0`), 10_000, 'own job');
      ids.push(own.data.messageIds[0]);
      await own.remove();
    }
    const producer = t.app.get(DispatchProducer);
    expect(await Promise.all(refs.map((ref, k) => producer.enqueue('sms', ref, [ids[k]])))).toEqual(
      refs.map(() => true),
    );
    const jobs = await queue.getJobs(['waiting', 'paused']);
    expect(jobs.map((j) => j.id)).toEqual([`${refs[0]}-0`]);
    expect(jobs[0].data).toMatchObject({ sendRequestId: refs[0], messageIds: ids, requestIds: refs });
    for (const ref of refs.slice(1))
      expect(await queue.client.get(sharedPointerKey(queue, ref))).toBe(`${refs[0]}-0`);
    return { refs, to };
  }

  async function deliveredOnce(refs: string[], to: string[]): Promise<void> {
    await waitFor(async () => (await statesOfRequests(t, refs)).SENT === REQUESTS, 30_000, 'all SENT');
    expect(to.map((n) => smsc.countByDestination(n))).toEqual(to.map(() => 1));
  }

  it('are left alone by the sweep while their shared job waits, sent once, and their pointers then go', async () => {
    const { refs, to } = await sharedSends(1_000_000);
    await sleep(2500); // past SWEEP_STRANDED_AFTER_MS, several rounds
    expect((await queue.getJobs(['waiting', 'paused'])).map((j) => j.id)).toEqual([`${refs[0]}-0`]);
    await queue.resume(true);
    await deliveredOnce(refs, to);
    await waitFor(
      async () => (await queue.client.exists(...refs.slice(1).map((r) => sharedPointerKey(queue, r)))) === 0,
      10_000,
      'pointers deleted',
    );
  }, 60_000);

  it('are queued again, each, when their shared job is lost', async () => {
    const { refs, to } = await sharedSends(2_000_000);
    const [shared] = await queue.getJobs(['waiting', 'paused']);
    await shared.remove(); // as when Redis lost it; the pointers remain and lead nowhere
    await queue.resume(true);
    await deliveredOnce(refs, to);
  }, 60_000);
});
