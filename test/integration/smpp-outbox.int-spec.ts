import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { BalanceModule } from '../../src/modules/balance/balance.module.js';
import { DeliveryMetricsModule } from '../../src/modules/delivery/delivery-metrics.module.js';
import { MessageStateService } from '../../src/modules/delivery/lifecycle/message-state.service.js';
import { STATE_CHANGE_LISTENER } from '../../src/modules/delivery/lifecycle/state-change.listener.js';
import { InboundNumberStore } from '../../src/modules/inbound/inbound-number.store.js';
import { InboundModule } from '../../src/modules/inbound/inbound.module.js';
import { InboundReceiver } from '../../src/modules/inbound/inbound.receiver.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { MetricsModule } from '../../src/modules/metrics/metrics.module.js';
import { MetricsService } from '../../src/modules/metrics/metrics.service.js';
import { SmsPolicy } from '../../src/modules/sending/channels/sms/sms.policy.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { BoundSessions, type BoundSession } from '../../src/modules/smpp-server/bound-sessions.registry.js';
import { SmppOutboxSender } from '../../src/modules/smpp-server/receipts/smpp-outbox.sender.js';
import { SmppReceiptListenerModule } from '../../src/modules/smpp-server/receipts/smpp-receipt-listener.module.js';
import { SmppReceiptStoreModule } from '../../src/modules/smpp-server/receipts/smpp-receipt-store.module.js';
import { SmppReceiptMetrics } from '../../src/modules/smpp-server/receipts/smpp-receipt.metrics.js';
import { SmppReceiptStore } from '../../src/modules/smpp-server/receipts/smpp-receipt.store.js';
import { SmppReceiptWriter } from '../../src/modules/smpp-server/receipts/smpp-receipt.writer.js';
import { REDIS, RedisModule } from '../../src/platform/redis/redis.module.js';
import { authOf, createTenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';
import { waitFor } from '../support/wait.js';

/**
 * The SMPP outbox on real MySQL and Redis: receipts written where states change, sent by the
 * process holding a receiver of the credential, kept while none is bound, retried on a temporary
 * error, dropped on a permanent one, and never sent twice at once by two processes.
 */

let ctx: ServiceContext;
let auth: AuthContext;
let credentialId = 900;

/** A receiver bound "here": answers each deliver_sm with what `answer` says. */
function receiver(
  credential: number,
  answer: (fields: Record<string, unknown>) => number | Promise<number>,
  got: Array<Record<string, unknown>>,
): BoundSession {
  return {
    id: `s-${Math.random()}`,
    systemId: `esme${credential}`,
    credentialId: credential,
    accountId: Number(auth.account.id),
    mode: 'live',
    bindType: 'transceiver',
    remoteAddress: '127.0.0.1',
    since: new Date(),
    deliverSm: async (fields) => {
      got.push(fields);
      return answer(fields);
    },
    close: async () => undefined,
  };
}

/** Accepts one SMS marked as submitted over SMPP by `credential`, and takes it to `final`. */
async function finish(
  credential: number,
  registered: number,
  final: 'DELIVERED' | 'UNDELIVERED',
): Promise<string> {
  const out = await ctx.get(SendService).send(new SmsPolicy(), auth, {
    sender: 'ACME',
    recipients: ['260971234567'],
    body: 'Hello from the SMPP tests',
  });
  const id = out.entries[0]!.messageId;
  await ctx.ds.query(
    'UPDATE messages SET smpp_credential_id = ?, smpp_registered_delivery = ? WHERE id = ?',
    [credential, registered, id],
  );
  const states = ctx.get(MessageStateService);
  await states.apply([{ id, status: 'SENT' }]);
  await states.apply([{ id, status: final }]);
  return id;
}

const waiting = async (credential: number) =>
  (await ctx.ds.query(
    'SELECT id, attempts, next_attempt_at > CURRENT_TIMESTAMP(3) AS later FROM smpp_receipts WHERE credential_id = ?',
    [credential],
  )) as Array<{ id: string; attempts: number; later: number }>;

const metric = async (name: string) =>
  (await ctx.get(MetricsService).registry.getSingleMetricAsString(name))
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');

beforeAll(async () => {
  ctx = await startServices(
    [
      AccountsModule,
      ApiKeysModule,
      BalanceModule,
      MessagesModule,
      MetricsModule,
      DeliveryMetricsModule,
      SendingModule,
      RedisModule,
      SmppReceiptStoreModule,
      SmppReceiptListenerModule,
      InboundModule,
    ],
    [
      MessageStateService,
      BoundSessions,
      SmppOutboxSender,
      { provide: STATE_CHANGE_LISTENER, useExisting: SmppReceiptWriter },
    ],
  );
  auth = authOf(await createTenant(ctx, { balances: { sms: '1000' }, prices: { sms: '1' } }));
});

afterAll(async () => {
  await ctx?.close();
});

beforeEach(() => {
  credentialId++;
});

describe('SMPP outbox', () => {
  it('keeps a receipt while no receiver is bound, and sends it when one binds', async () => {
    const id = await finish(credentialId, 1, 'DELIVERED');
    expect(await waiting(credentialId)).toHaveLength(1);
    const got: Array<Record<string, unknown>> = [];
    ctx.get(BoundSessions).add(receiver(credentialId, () => 0, got));
    await waitFor(async () => (await waiting(credentialId)).length === 0, 10_000);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      esm_class: 4,
      receipted_message_id: id,
      message_state: 2,
      destination_addr: 'ACME',
    });
    expect((got[0]!.short_message as Buffer).toString('ascii')).toMatch(
      new RegExp(
        `^id:${id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Hello from the SMPP $`,
      ),
    );
    expect(await metric('bulk_smpp_receipts_sent_total')).toContain('kind="receipt"');
  });

  it('writes no receipt of a delivered message when registered_delivery asks for failures only', async () => {
    await finish(credentialId, 2, 'DELIVERED');
    await finish(credentialId, 0, 'UNDELIVERED');
    expect(await waiting(credentialId)).toHaveLength(0);
    await finish(credentialId, 2, 'UNDELIVERED');
    expect(await waiting(credentialId)).toHaveLength(1);
  });

  it('tries a receipt again later after a temporary error, and drops one answered with a permanent error', async () => {
    await finish(credentialId, 1, 'UNDELIVERED');
    const got: Array<Record<string, unknown>> = [];
    ctx.get(BoundSessions).add(receiver(credentialId, () => 0x58, got));
    // Tried once, and put back with a later time (by the same write that releases its lease).
    await waitFor(async () => {
      const [row] = await waiting(credentialId);
      return row?.attempts === 1 && Number(row.later) === 1;
    }, 10_000);
    expect(got).toHaveLength(1);

    const permanent = credentialId + 1000;
    await finish(permanent, 1, 'DELIVERED');
    const refused: Array<Record<string, unknown>> = [];
    ctx.get(BoundSessions).add(receiver(permanent, () => 0x45, refused));
    await waitFor(async () => (await waiting(permanent)).length === 0, 10_000);
    expect(refused).toHaveLength(1);
    expect(await metric('bulk_smpp_receipts_dropped_total')).toContain('kind="receipt"} 1');
  });

  it('lets two processes with receivers of one credential share its receipts without sending one twice', async () => {
    for (let i = 0; i < 20; i++) await finish(credentialId, 1, 'DELIVERED');
    // A second sender, as another API process on the same database and Redis, with its own binds.
    const elsewhere = new BoundSessions();
    const other = new SmppOutboxSender(
      ctx.config,
      ctx.get(REDIS),
      elsewhere,
      ctx.get(SmppReceiptStore),
      ctx.get(SmppReceiptMetrics),
    );
    other.onApplicationBootstrap();
    const got: Array<Record<string, unknown>> = [];
    const slow = () => new Promise<number>((r) => setTimeout(() => r(0), 20));
    elsewhere.add(receiver(credentialId, slow, got));
    ctx.get(BoundSessions).add(receiver(credentialId, slow, got));
    try {
      await waitFor(async () => (await waiting(credentialId)).length === 0, 15_000);
    } finally {
      await other.onApplicationShutdown();
    }
    const ids = got.map((f) => f.receipted_message_id);
    expect(new Set(ids).size).toBe(20);
    expect(ids).toHaveLength(20);
  });

  it('drops what waited past SMPP_DLR_TTL_HOURS at the recovery round, and counts it', async () => {
    await finish(credentialId, 1, 'DELIVERED');
    await ctx.ds.query(
      'UPDATE smpp_receipts SET created_at = CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR WHERE credential_id = ?',
      [ctx.config.smppDlrTtlHours + 1, credentialId],
    );
    await ctx.get(SmppReceiptWriter).recover();
    expect(await waiting(credentialId)).toHaveLength(0);
    expect(await metric('bulk_smpp_receipts_expired_total')).toMatch(
      /bulk_smpp_receipts_expired_total [1-9]/,
    );
  });

  it('keeps an inbound SMS for every live credential of the account owning the number, sent as esm_class 0', async () => {
    const credential = async (systemId: string, extra = '') => {
      const res = (await ctx.ds.query(
        `INSERT INTO smpp_credentials (account_id, api_key_id, system_id, password_hash, mode, revoked_at)
         VALUES (?, ?, ?, 'x', ?, ${extra === 'revoked' ? 'CURRENT_TIMESTAMP(3)' : 'NULL'})`,
        [auth.account.id, auth.key.id, systemId, extra === 'test' ? 'test' : 'live'],
      )) as { insertId: number };
      return Number(res.insertId);
    };
    const tag = String(credentialId);
    const [a, b] = [await credential(`in-a-${tag}`), await credential(`in-b-${tag}`)];
    const [revoked, test] = [
      await credential(`in-r-${tag}`, 'revoked'),
      await credential(`in-t-${tag}`, 'test'),
    ];
    const number = `2609755${tag.padStart(5, '0')}`;
    await ctx.get(InboundNumberStore).add(auth.account.id, number, '');
    await ctx
      .get(InboundReceiver)
      .receive({ from: '260971112223', to: number, text: 'Привет, is it on?' }, 'simulate');
    expect((await waiting(a)).length + (await waiting(b)).length).toBe(2);
    expect((await waiting(revoked)).length + (await waiting(test)).length).toBe(0);

    const got: Array<Record<string, unknown>> = [];
    ctx.get(BoundSessions).add(receiver(a, () => 0, got));
    await waitFor(async () => (await waiting(a)).length === 0, 10_000);
    expect(got[0]).toMatchObject({
      esm_class: 0,
      data_coding: 8,
      source_addr: '260971112223',
      destination_addr: number,
    });
    expect(
      Buffer.from(got[0]!.short_message as Buffer)
        .swap16()
        .toString('utf16le'),
    ).toBe('Привет, is it on?');
    expect(await waiting(b)).toHaveLength(1);
  });

  it('owes a REJECTD receipt for a message the submit stored REJECTED, which no state change follows', async () => {
    const out = await ctx.get(SendService).send(new SmsPolicy(), auth, {
      sender: 'ACME',
      recipients: ['260971234567', '26097'],
      body: 'too short a number',
    });
    const entry = out.entries.find((e) => e.recipient.length < 8)!;
    expect(entry.status).toBe('REJECTED');
    await ctx
      .get(SmppReceiptWriter)
      .storedRejected([
        { messageId: entry.messageId, credentialId, registeredDelivery: 2, reason: entry.reason ?? null },
      ]);
    const got: Array<Record<string, unknown>> = [];
    ctx.get(BoundSessions).add(receiver(credentialId, () => 0, got));
    await waitFor(async () => got.length === 1, 10_000);
    expect(got[0]).toMatchObject({ receipted_message_id: entry.messageId, message_state: 8 });
    expect((got[0]!.short_message as Buffer).toString('ascii')).toMatch(
      / dlvrd:000 .* stat:REJECTD err:004 text:too short a number$/,
    );
  });
});
