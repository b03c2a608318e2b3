import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { MAIN_ENTITIES } from '../../src/app/entities.js';
import { mainDataSourceOptions } from '../../src/database/data-sources.js';
import { migrateDatabase } from '../../src/database/database-setup.js';
import type { NewSendRequest } from '../../src/modules/messages/message.store.js';
import { MessageStateStore } from '../../src/modules/messages/message-state.store.js';
import { MessageLookupStore } from '../../src/modules/messages/message-lookup.store.js';
import { dropLocalState } from '../support/local-state.js';
import { accept as acceptRows } from '../support/send-rows.js';
import { testEnv, uniqueName } from '../support/test-app.js';

/** The state-change statements of the message tables against a migrated MySQL database of this file's own. */

const name = uniqueName();
let ds: DataSource;
let lookups: MessageLookupStore;
const store = new MessageStateStore();
const accept = (over?: Partial<NewSendRequest>, recipients?: string[]) => acceptRows(ds, over, recipients);

const statusOf = async (messageId: string) =>
  ((await ds.query('SELECT status FROM messages WHERE id = ?', [messageId])) as Array<{ status: string }>)[0]
    ?.status;

beforeAll(async () => {
  const config = loadConfig(testEnv(name));
  const options = mainDataSourceOptions(config, MAIN_ENTITIES);
  await migrateDatabase(options, config.database);
  ds = await new DataSource(options).initialize();
  lookups = new MessageLookupStore(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await dropLocalState(name);
});

describe('MessageStateStore', () => {
  it('locks messages with their request callback data and writes each change with its history', async () => {
    const { req, ids } = await accept(
      { callbackUrl: 'https://example.com/hook', userReferenceId: 'ref-lock' },
      ['260971000040', '260971000041', '260971000042'],
    );
    const at = new Date('2026-01-02T03:04:05.678Z');
    await ds.transaction(async (em) => {
      const locked = await store.lockForTransition(em, [ids[2], ids[0], ids[1]]);
      expect(locked.map((r) => [String(r.id), r.status, r.callback_url, r.user_reference_id])).toEqual(
        ids.map((i) => [i, 'ACKNOWLEDGED', 'https://example.com/hook', 'ref-lock']),
      );
      expect(String(locked[0].send_request_id)).toBe(req.id);
      await store.writeTransitions(em, [
        { id: ids[0], status: 'SENT', reason: null, providerMessageId: 'prov-0', at },
        { id: ids[1], status: 'SENT', reason: null, providerMessageId: 'prov-1', at },
        { id: ids[2], status: 'FAILED', reason: 'TIMEOUT', providerMessageId: null, at },
      ]);
    });
    const rows = (await ds.query(
      'SELECT status, reason, provider_message_id, sent_at, completed_at FROM messages WHERE id IN (?) ORDER BY id',
      [ids],
    )) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      { status: 'SENT', reason: null, provider_message_id: 'prov-0', sent_at: at, completed_at: null },
      { status: 'SENT', reason: null, provider_message_id: 'prov-1', sent_at: at, completed_at: null },
      { status: 'FAILED', reason: 'TIMEOUT', provider_message_id: null, sent_at: null, completed_at: at },
    ]);
    // A later change without a reason or provider id keeps the ones already stored.
    await ds.transaction((em) =>
      store.writeTransitions(em, [
        { id: ids[0], status: 'DELIVERED', reason: null, providerMessageId: null, at: new Date() },
      ]),
    );
    expect(await statusOf(ids[0])).toBe('DELIVERED');
    const [kept] = await ds.query('SELECT provider_message_id FROM messages WHERE id = ?', [ids[0]]);
    expect(kept.provider_message_id).toBe('prov-0');
    expect((await lookups.history(ids[0])).map((e) => e.status)).toEqual(['SENT', 'DELIVERED']);
    expect(await lookups.history(ids[2])).toEqual([{ status: 'FAILED', reason: 'TIMEOUT', occurred_at: at }]);
  });
});
