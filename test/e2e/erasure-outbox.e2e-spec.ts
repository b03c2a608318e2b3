import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipientHash } from '../../src/modules/callbacks/outbox-recipient.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { outboxEvents } from '../support/callback-probes.js';
import { runCli } from '../support/cli-in-process.js';
import { requestMessages } from '../support/message-probes.js';
import { dropOutboxHashesDirectly } from '../support/direct-writes.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const SERVER_SECRET = 'erasure-outbox-e2e-secret-0123456789abcdef';
/** The recipient erased; another recipient of the same account; both also messaged by another account. */
const R = '260971777001';
const OTHER = '260971777002';

/**
 * The callback outbox's recipient index: events are kept with a keyed hash of who they name, an
 * erasure changes the recipient's events found by it, and no one else's.
 */
describe('erasure in the callback outbox, by recipient hash', () => {
  let t: TestApp;
  let hooks: HttpPeer;
  let mine: Tenant;
  let theirs: Tenant;
  const hex = (recipient: string) => recipientHash(SERVER_SECRET, recipient).toString('hex');
  const settings = {
    RUN_WORKERS: 'true',
    SANDBOX_DELIVERY_DELAY_MS: '50',
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    SERVER_SECRET,
  };

  beforeAll(async () => {
    hooks = await startHttpPeer();
    // Every callback fails, so the events stay in the outbox, retried.
    hooks.setHandler(() => ({ status: 503 }));
    t = await startTestApp(settings);
    mine = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    theirs = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  it("keeps each event with the keyed hash of its recipient; an erasure changes that recipient's events of its own account only", async () => {
    const refs: string[] = [];
    for (const tenant of [mine, theirs]) {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: [R, OTHER], message: 'Hello', callback_url: `${hooks.url}/down` });
      expect(res.status).toBe(200);
      refs.push(String(res.body.api_reference));
    }
    // Erasure changes final messages only: wait for the four to be delivered, and their events kept.
    const delivered = async () =>
      (await Promise.all(refs.map((ref) => requestMessages(t, ref, 'status'))))
        .flat()
        .filter((m) => m.status === 'DELIVERED').length;
    await waitFor(async () => (await delivered()) === 4, 15_000, 'messages delivered');
    await waitFor(async () => (await outboxEvents(t)).length >= 8, 15_000, 'callback events kept');
    const before = await outboxEvents(t);
    for (const e of before) expect(e.hash, e.names).toBe(hex(e.names));
    // One of the recipient's events as an older process kept it: no hash; it is found all the same.
    const mineToR = before.filter((e) => e.account_id === String(mine.account.id) && e.names === R);
    expect(mineToR.length).toBeGreaterThanOrEqual(2);
    await dropOutboxHashesDirectly(t, [mineToR[0]!.event_id]);

    const res = await t
      .http()
      .post('/api/v1/json/recipients/erase')
      .set('X-API-Key', mine.key)
      .send({ recipient: R });
    expect(res.status).toBe(200);
    const after = await outboxEvents(t);
    expect(res.body.rows.callback_outbox).toBe(mineToR.length);

    const erased = new Set(mineToR.map((e) => e.event_id));
    for (const e of after) {
      const was = before.find((b) => b.event_id === e.event_id);
      if (!was) continue; // an event kept since (a later state change)
      if (erased.has(e.event_id)) expect(e).toMatchObject({ names: 'erased', hash: hex('erased') });
      else expect(e, `${e.account_id} ${e.names}`).toEqual(was);
    }
    // The other account's events to the same number, and this account's to another, are untouched.
    expect(
      after.filter((e) => e.account_id === String(theirs.account.id) && e.names === R).length,
    ).toBeGreaterThan(0);
    expect(
      after.filter((e) => e.account_id === String(mine.account.id) && e.names === OTHER).length,
    ).toBeGreaterThan(0);
  });

  it('db hash-outbox gives events without a hash theirs, and --all every event again', async () => {
    const events = await outboxEvents(t);
    expect(events.length).toBeGreaterThan(0);
    await dropOutboxHashesDirectly(
      t,
      events.slice(0, 3).map((e) => e.event_id),
    );
    const env = { ...testEnv(t.name, settings), LOG_LEVEL: 'silent' };
    const missing = await runCli(env, ['db', 'hash-outbox', '--json']);
    expect(missing.code, missing.stderr).toBe(0);
    expect(JSON.parse(missing.stdout)).toEqual({ hashed: 3, webhook_deliveries: 0 });
    for (const e of await outboxEvents(t)) expect(e.hash, e.names).toBe(hex(e.names));
    const all = await runCli(env, ['db', 'hash-outbox', '--all', '--json']);
    expect(JSON.parse(all.stdout).hashed).toBe((await outboxEvents(t)).length);
  });
});
