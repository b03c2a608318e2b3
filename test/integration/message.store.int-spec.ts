import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { MAIN_ENTITIES } from '../../src/app/entities.js';
import { mainDataSourceOptions } from '../../src/database/data-sources.js';
import { migrateDatabase } from '../../src/database/database-setup.js';
import { MessageStore, type NewSendRequest } from '../../src/modules/messages/message.store.js';
import { MessageStateStore } from '../../src/modules/messages/message-state.store.js';
import type { Channel } from '../../src/modules/messages/channel.js';
import { dropLocalState } from '../support/local-state.js';
import { accept as acceptRows, group, request } from '../support/send-rows.js';
import { testEnv, uniqueName } from '../support/test-app.js';

/**
 * The message tables' store against a migrated MySQL database of this file's own. The state
 * changes, the lookups and the parts have specs of their own (message-state.store,
 * message-lookup.store and message-parts.store).
 */

const name = uniqueName();
let ds: DataSource;
let store: MessageStore;
const states = new MessageStateStore();
const accept = (over?: Partial<NewSendRequest>, recipients?: string[], rejected?: string[]) =>
  acceptRows(ds, over, recipients, rejected);

beforeAll(async () => {
  const config = loadConfig(testEnv(name));
  const options = mainDataSourceOptions(config, MAIN_ENTITIES);
  await migrateDatabase(options, config.database);
  ds = await new DataSource(options).initialize();
  store = new MessageStore(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await dropLocalState(name);
});

describe('MessageStore: accepting', () => {
  it('stores each named field of a request in its own column', async () => {
    const { req } = await accept({
      channel: 'email',
      sender: 'from@acme.example',
      subject: 'the subject',
      body: 'the body',
      replyTo: 'reply@acme.example',
      source: 'crm',
      callbackUrl: 'https://example.com/cb',
      userReferenceId: 'ref-columns',
      recipientCount: 3,
      acceptedCount: 2,
      unitsPerRecipient: 4,
      cost: '8.25',
    });
    const [row] = await ds.query(
      `SELECT account_id, api_key_id, channel, sender, subject, body, reply_to, source, callback_url,
              user_reference_id, request_hash, recipient_count, accepted_count, units_per_recipient, cost, currency
         FROM send_requests WHERE id = ?`,
      [req.id],
    );
    expect(row).toMatchObject({
      account_id: '7',
      api_key_id: '3',
      channel: 'email',
      sender: 'from@acme.example',
      subject: 'the subject',
      body: 'the body',
      reply_to: 'reply@acme.example',
      source: 'crm',
      callback_url: 'https://example.com/cb',
      user_reference_id: 'ref-columns',
      recipient_count: 3,
      accepted_count: 2,
      units_per_recipient: 4,
      cost: '8.250000',
      currency: 'ZMW',
    });
    expect(Buffer.compare(row.request_hash, req.requestHash)).toBe(0);
  });

  it('writes several requests and more messages than one INSERT chunk holds, all of them', async () => {
    const a = request();
    const b = request({ channel: 'chat' });
    const many = Array.from({ length: 2100 }, (_, i) => `26097${String(i).padStart(7, '0')}`);
    const groups = [group(a, many.slice(0, 1500)), group(b, many.slice(1500), ['bad'])];
    await ds.transaction(async (em) => {
      await store.insertRequests(em, [a, b]);
      await store.insertMessages(em, groups);
    });
    const counts = (await ds.query(
      'SELECT send_request_id AS r, channel, COUNT(*) AS n FROM messages WHERE send_request_id IN (?) GROUP BY send_request_id, channel ORDER BY send_request_id',
      [[a.id, b.id]],
    )) as Array<{ r: string; channel: Channel; n: string }>;
    expect(counts.map((c) => [c.r, c.channel, Number(c.n)])).toEqual([
      [a.id, 'sms', 1500],
      [b.id, 'chat', 601],
    ]);
  });

  it('refuses a repeated user_reference_id of the same account and channel with the duplicate-key error', async () => {
    await accept({ userReferenceId: 'ref-dup' });
    await expect(accept({ userReferenceId: 'ref-dup' })).rejects.toMatchObject({ errno: 1062 });
    // Another channel may use the same reference.
    await expect(accept({ userReferenceId: 'ref-dup', channel: 'chat' })).resolves.toBeDefined();
  });

  it('finds the request a repeated reference names and gives back its first answer in id order', async () => {
    const { req, ids } = await accept(
      { userReferenceId: 'ref-replay' },
      ['260971000002', '260971000003'],
      ['x'],
    );
    const found = await store.findReplay('7', 'sms', 'ref-replay');
    expect(found).toMatchObject({ id: req.id, accepted_count: 1, units_per_recipient: 1, currency: 'ZMW' });
    expect(Buffer.compare(found!.request_hash, req.requestHash)).toBe(0);
    expect(await store.findReplay('8', 'sms', 'ref-replay')).toBeUndefined();
    const answer = await store.acceptedAnswer(req.id);
    expect(answer.map((m) => [m.id, m.recipient, m.units, m.reason])).toEqual([
      [ids[0], '260971000002', 1, null],
      [ids[1], '260971000003', 1, null],
      [ids[2], 'x', 0, 'INVALID_RECIPIENT'],
    ]);
  });
});

describe('MessageStore: queueing and recovery', () => {
  it('lists a request never enqueued once it is old enough, and no longer once marked enqueued', async () => {
    const { req } = await accept();
    const fresh = await accept({ createdAt: new Date() });
    const listed = async () => (await store.findUnenqueued(60_000, 10_000)).map((r) => String(r.id));
    expect(await listed()).toContain(req.id);
    expect(await listed()).not.toContain(fresh.req.id);
    await store.markEnqueued([req.id]);
    expect(await listed()).not.toContain(req.id);
  });

  it('finds requests with waiting messages after a cursor, and the quiet ones among them as stranded', async () => {
    const quiet = await accept({}, ['260971000010', '260971000011']);
    const busy = await accept({}, ['260971000012']);
    await ds.query(
      'UPDATE send_requests SET enqueued_at = CURRENT_TIMESTAMP(3) - INTERVAL 1 HOUR WHERE id IN (?)',
      [[quiet.req.id, busy.req.id]],
    );
    // A message of `busy` changed just now: someone is working on it.
    await ds.query('UPDATE messages SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [busy.ids[0]]);
    const waiting = (await store.findWaitingRequests(String(BigInt(quiet.req.id) - 1n), 2)).map((r) =>
      String(r.id),
    );
    expect(waiting).toEqual([quiet.req.id, busy.req.id]);
    const stranded = await store.findStranded([quiet.req.id, busy.req.id], 60_000);
    expect(stranded.map((r) => [String(r.id), r.channel])).toEqual([[quiet.req.id, 'sms']]);
  });

  it('reads back the accepted messages of a request with their states, leaving out the refused ones', async () => {
    const { req, ids } = await accept({}, ['260971000020', '260971000021'], ['bad']);
    const states = await store.acceptedStates(req.id);
    expect(states.map((s) => [String(s.id), s.status])).toEqual([
      [ids[0], 'ACKNOWLEDGED'],
      [ids[1], 'ACKNOWLEDGED'],
    ]);
  });
});

describe('MessageStore: dispatching', () => {
  it('gives the dispatcher the request text and only the messages still waiting', async () => {
    const { req, ids } = await accept({ channel: 'email', subject: 's', replyTo: 'r@acme.example' }, [
      'a@x.example',
      'b@x.example',
    ]);
    expect(await store.findDispatchRequest(req.id)).toEqual({
      account_id: expect.anything(),
      sender: 'ACME',
      body: 'hello',
      subject: 's',
      reply_to: 'r@acme.example',
      priority: 'normal',
    });
    expect(await store.findDispatchRequest('1')).toBeUndefined();
    await ds.transaction((em) =>
      states.writeTransitions(em, [
        { id: ids[0], status: 'SENT', reason: null, providerMessageId: 'p-1', at: new Date() },
      ]),
    );
    expect((await store.findWaiting(ids)).map((r) => String(r.id))).toEqual([ids[1]]);
  });

  it('counts an attempt for every message tried and keeps the failure reason only for those that failed', async () => {
    const { ids } = await accept({}, ['260971000030', '260971000031']);
    await store.recordAttempts(ids, [[ids[1], 'TIMEOUT']]);
    await store.recordAttempts(ids, []);
    const rows = (await ds.query(
      'SELECT id, attempts, last_error, last_attempt_at FROM messages WHERE id IN (?) ORDER BY id',
      [ids],
    )) as Array<{ attempts: number; last_error: string | null; last_attempt_at: Date | null }>;
    expect(rows.map((r) => [r.attempts, r.last_error, r.last_attempt_at !== null])).toEqual([
      [2, null, true],
      [2, 'TIMEOUT', true],
    ]);
  });

  it('lists SENT messages older than the receipt wait, of the given channels only', async () => {
    const sms = await accept({}, ['260971000050']);
    const chat = await accept({ channel: 'chat' }, ['260971000051']);
    const old = new Date(Date.now() - 3_600_000);
    await ds.transaction((em) =>
      states.writeTransitions(em, [
        { id: sms.ids[0], status: 'SENT', reason: null, providerMessageId: 'x', at: old },
        { id: chat.ids[0], status: 'SENT', reason: null, providerMessageId: 'y', at: old },
      ]),
    );
    const found = (await store.findSentBefore(60_000, ['sms'], 10_000)).map((r) => String(r.id));
    expect(found).toContain(sms.ids[0]);
    expect(found).not.toContain(chat.ids[0]);
    expect((await store.findSentBefore(7_200_000, ['sms'], 10_000)).map((r) => String(r.id))).not.toContain(
      sms.ids[0],
    );
  });
});
