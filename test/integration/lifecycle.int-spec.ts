import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { BalanceModule } from '../../src/modules/balance/balance.module.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { DeliveryMetricsModule } from '../../src/modules/delivery/delivery-metrics.module.js';
import { MessageStateService } from '../../src/modules/delivery/lifecycle/message-state.service.js';
import {
  STATE_CHANGE_LISTENER,
  type CommittedChange,
  type StateChangeListener,
} from '../../src/modules/delivery/lifecycle/state-change.listener.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../src/modules/messages/channel.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { MetricsModule } from '../../src/modules/metrics/metrics.module.js';
import { SmsPolicy } from '../../src/modules/sending/channels/sms/sms.policy.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { authOf, createTenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/**
 * The life of a message after acceptance, on real MySQL: which state changes apply, what each
 * one writes, and that a message is refunded once at most, whatever repeats or races.
 */

/**
 * The rule, written out here on its own: a message moves forward only, FAILED only before it was
 * handed over, CANCELLED only before it was handed over, and a SCHEDULED message is released
 * (ACKNOWLEDGED), cancelled or expired.
 */
const ALLOWED: Record<MessageStatus, MessageStatus[]> = {
  SCHEDULED: ['ACKNOWLEDGED', 'EXPIRED', 'CANCELLED'],
  ACKNOWLEDGED: ['SENT', 'DELIVERED', 'UNDELIVERED', 'EXPIRED', 'REJECTED', 'FAILED', 'CANCELLED'],
  SENT: ['DELIVERED', 'UNDELIVERED', 'EXPIRED', 'REJECTED'],
  DELIVERED: [],
  UNDELIVERED: [],
  EXPIRED: [],
  REJECTED: [],
  FAILED: [],
  CANCELLED: [],
};

const told: CommittedChange[] = [];
const listener: StateChangeListener = {
  committed: async (changes) => void told.push(...changes),
  recover: async () => 0,
};

let ctx: ServiceContext;
let states: MessageStateService;
let balances: BalanceService;
let auth: AuthContext;

/** Accepts `n` SMS at a price of 1 each and answers their message ids. */
async function accept(n: number): Promise<string[]> {
  const recipients = Array.from({ length: n }, () =>
    `26097${randomBytes(4).readUInt32BE() % 10_000_000}`.padEnd(12, '0'),
  );
  const out = await ctx
    .get(SendService)
    .send(new SmsPolicy(), auth, { sender: 'ACME', recipients, body: 'hi' });
  return out.entries.filter((e) => e.status === 'ACKNOWLEDGED').map((e) => e.messageId);
}

async function force(id: string, status: MessageStatus): Promise<void> {
  await ctx.ds.query('UPDATE messages SET status = ? WHERE id = ?', [status, id]);
}

const statusOf = async (id: string): Promise<MessageStatus> =>
  (await ctx.ds.query('SELECT status FROM messages WHERE id = ?', [id]))[0].status;

const balance = async () =>
  (await balances.channels(auth.account.id)).find((c) => c.channel === 'sms')!.balance;

const refundsOf = async (id: string): Promise<number> =>
  Number(
    (
      await ctx.ds.query(
        "SELECT COUNT(*) AS n FROM ledger_entries WHERE kind = 'refund' AND message_id = ?",
        [id],
      )
    )[0].n,
  );

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
    ],
    [MessageStateService, { provide: STATE_CHANGE_LISTENER, useValue: listener }],
  );
  states = ctx.get(MessageStateService);
  balances = ctx.get(BalanceService);
  auth = authOf(await createTenant(ctx, { balances: { sms: '1000' }, prices: { sms: '1' } }));
});

afterAll(async () => {
  await ctx?.close();
});

beforeEach(() => {
  told.length = 0;
});

describe('MessageStateService: the transition table', () => {
  const pairs = MESSAGE_STATUSES.flatMap((from) => MESSAGE_STATUSES.map((to) => [from, to] as const));

  it('applies every allowed change and refuses every other one, leaving the message as it was', async () => {
    const ids = await accept(pairs.length);
    for (const [i, [from]] of pairs.entries()) if (from !== 'ACKNOWLEDGED') await force(ids[i], from);
    const outcomes: string[] = [];
    for (const [i, [from, to]] of pairs.entries()) {
      const applied = await states.apply([{ id: ids[i], status: to, reason: `to ${to}` }]);
      const now = await statusOf(ids[i]);
      outcomes.push(`${from}→${to}: ${applied.length ? 'applied' : 'refused'}, now ${now}`);
    }
    expect(outcomes).toEqual(
      pairs.map(([from, to]) =>
        ALLOWED[from].includes(to)
          ? `${from}→${to}: applied, now ${to}`
          : `${from}→${to}: refused, now ${from}`,
      ),
    );
  });

  it('records each applied change in message_events with its reason, and tells the listener after commit', async () => {
    const [id] = await accept(1);
    const at = new Date(Date.now() - 5000);
    await states.apply([{ id, status: 'SENT', providerMessageId: 'p-1', at }]);
    await states.apply([{ id, status: 'UNDELIVERED', reason: 'ABSENT_SUBSCRIBER' }]);
    await states.apply([{ id, status: 'DELIVERED' }]); // refused: UNDELIVERED is final
    const events = await ctx.ds.query(
      'SELECT status, reason FROM message_events WHERE message_id = ? ORDER BY id',
      [id],
    );
    // Acceptance itself is the message row's created_at, not an event.
    expect(events.map((e: { status: string; reason: string | null }) => [e.status, e.reason])).toEqual([
      ['SENT', null],
      ['UNDELIVERED', 'ABSENT_SUBSCRIBER'],
    ]);
    const [row] = await ctx.ds.query('SELECT provider_message_id FROM messages WHERE id = ?', [id]);
    expect(row.provider_message_id).toBe('p-1');
    expect(told.map((c) => [String(c.message.id), c.status, c.reason])).toEqual([
      [id, 'SENT', null],
      [id, 'UNDELIVERED', 'ABSENT_SUBSCRIBER'],
    ]);
    expect(told[0].at.getTime()).toBe(at.getTime());
  });

  it('stamps the changes of one batch that bring no time of their own with one time, written as one value', async () => {
    // A time per change would straddle milliseconds over a large batch (receipts come by the
    // thousand), and the UPDATE would then need a CASE over every id, searched once per row. Here
    // every clock reading is a millisecond later than the one before, so a time read per change
    // would show.
    const ids = await accept(200);
    const RealDate = Date;
    let tick = RealDate.now();
    class TickingDate extends RealDate {
      constructor(...args: ConstructorParameters<DateConstructor>) {
        if (args.length) super(...args);
        else super(tick++);
      }
      static override now(): number {
        return tick++;
      }
    }
    globalThis.Date = TickingDate as DateConstructor;
    let applied: Awaited<ReturnType<MessageStateService['apply']>>;
    try {
      applied = await states.apply(ids.map((id) => ({ id, status: 'SENT' as const })));
    } finally {
      globalThis.Date = RealDate;
    }
    expect(applied).toHaveLength(ids.length);
    expect(new Set(applied.map((t) => t.at?.getTime())).size).toBe(1);
    const [row] = await ctx.ds.query(
      'SELECT COUNT(DISTINCT sent_at) AS times, COUNT(*) AS n FROM messages WHERE id IN (?)',
      [ids],
    );
    expect({ times: Number(row.times), n: Number(row.n) }).toEqual({ times: 1, n: ids.length });
  });

  it('applies the allowed changes of a batch and skips the refused ones', async () => {
    const [a, b, c] = await accept(3);
    await force(b, 'DELIVERED');
    const applied = await states.apply([
      { id: c, status: 'SENT' },
      { id: b, status: 'SENT' },
      { id: a, status: 'FAILED' },
    ]);
    expect(applied.map((t) => t.id).sort()).toEqual([a, c].sort());
    expect([await statusOf(a), await statusOf(b), await statusOf(c)]).toEqual([
      'FAILED',
      'DELIVERED',
      'SENT',
    ]);
  });
});

describe('MessageStateService: refunds', () => {
  it.each(['FAILED', 'REJECTED', 'CANCELLED'] as const)(
    'refunds a message that ends %s, once',
    async (status) => {
      const [id] = await accept(1);
      const before = await balance();
      await states.apply([{ id, status }]);
      await states.apply([{ id, status }]);
      await states.apply([{ id, status: status === 'FAILED' ? 'REJECTED' : 'FAILED' }]);
      expect(await refundsOf(id)).toBe(1);
      expect(Number(await balance()) - Number(before)).toBe(1);
    },
  );

  it('refunds a message the provider refuses after it was SENT', async () => {
    const [id] = await accept(1);
    await states.apply([{ id, status: 'SENT' }]);
    const before = await balance();
    await states.apply([{ id, status: 'REJECTED', reason: 'PROVIDER_REFUSED' }]);
    expect(await refundsOf(id)).toBe(1);
    expect(Number(await balance()) - Number(before)).toBe(1);
  });

  it('refunds a message whose validity elapsed before hand-over (EXPIRED asked with a refund), once', async () => {
    const [id] = await accept(1);
    const before = await balance();
    const expire = { id, status: 'EXPIRED' as const, reason: 'VALIDITY_PERIOD_ELAPSED', refund: true };
    await Promise.all([states.apply([expire]), states.apply([expire])]);
    expect(await refundsOf(id)).toBe(1);
    expect(Number(await balance()) - Number(before)).toBe(1);
  });

  it('leaves a message a worker has claimed for hand-over to it: no cancel, no refund', async () => {
    const [id] = await accept(1);
    await ctx.ds.query('UPDATE messages SET claimed_at = ? WHERE id = ?', [new Date(), id]);
    const before = await balance();
    expect(await states.apply([{ id, status: 'CANCELLED', unlessHandingOver: true }])).toEqual([]);
    expect(await statusOf(id)).toBe('ACKNOWLEDGED');
    expect(await balance()).toBe(before);
  });

  it.each(['SENT', 'DELIVERED', 'UNDELIVERED', 'EXPIRED'] as const)(
    'does not refund a message that reaches %s',
    async (status) => {
      const [id] = await accept(1);
      const before = await balance();
      await states.apply([{ id, status }]);
      expect(await refundsOf(id)).toBe(0);
      expect(await balance()).toBe(before);
    },
  );

  it('refunds once when several callers end the same messages at the same time', async () => {
    const ids = await accept(10);
    const before = await balance();
    await Promise.all(
      Array.from({ length: 6 }, (_, k) =>
        states.apply(ids.map((id) => ({ id, status: k % 2 ? ('FAILED' as const) : ('REJECTED' as const) }))),
      ),
    );
    for (const id of ids) expect(await refundsOf(id)).toBe(1);
    expect(Number(await balance()) - Number(before)).toBe(10);
  });
});
