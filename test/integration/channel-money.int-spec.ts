import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { BalanceModule } from '../../src/modules/balance/balance.module.js';
import { SpendLimits } from '../../src/modules/balance/spend-limits.service.js';
import { DeliveryMetricsModule } from '../../src/modules/delivery/delivery-metrics.module.js';
import { MessageStateService } from '../../src/modules/delivery/lifecycle/message-state.service.js';
import {
  STATE_CHANGE_LISTENER,
  type StateChangeListener,
} from '../../src/modules/delivery/lifecycle/state-change.listener.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { MetricsModule } from '../../src/modules/metrics/metrics.module.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { CHANNEL_CASES, sendOn } from '../support/channel-cases.js';
import {
  balanceOf,
  ledgerAmounts,
  ledgerSum,
  messageCount,
  messagesOfRequest,
  queuedForRequest,
  sendRequestCount,
} from '../support/probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/**
 * The money rules of a send, proven once for every channel through the one send pipeline on
 * real MySQL and Redis: what a send is charged, that no race overdraws a balance, and the daily
 * spend limits. The HTTP answers of a refusal (402 and its envelope) are proven over HTTP once,
 * for SMS, in test/e2e/money.e2e-spec.ts and test/e2e/spend-limits.e2e-spec.ts.
 */

/** The callbacks' side of a state change, which these rules do not look at. */
const silent: StateChangeListener = { committed: async () => {}, recover: async () => 0 };

let ctx: ServiceContext;
let sends: SendService;
let limits: SpendLimits;
/**
 * Accounts shared by every test and channel (an account costs a password hash), each with the
 * same balance and price on the three channels: a test names recipients of its own and looks at
 * what its own sends changed, or at a balance only refusals touch.
 */
const t = {} as {
  /** 1000 at 0.333333. */
  payer: Tenant;
  /** 0.5 at 0.25: less than 3 recipients cost. */
  short: Tenant;
  /** 12.5 at 0.25: exactly 50 recipients, for the race that empties it. */
  fifty: Tenant;
  /** 5 at 1: runs dry after 5 sends. */
  five: Tenant;
  /** 1000 at 0.5: its keys are made with their own limits. */
  limited: Tenant;
  /** 1000 at 1: its account limit is set for each test to what it has spent plus some room. */
  bound: Tenant;
};
const everyChannel = (amount: string) => ({ sms: amount, email: amount, chat: amount });

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
    [MessageStateService, { provide: STATE_CHANGE_LISTENER, useValue: silent }],
    // Enough connections for the racing sends below to wait on the rows, not on the pool.
    { DB_POOL_SIZE: '30' },
  );
  sends = ctx.get(SendService);
  limits = ctx.get(SpendLimits);
  const tenant = (balance: string, price: string) =>
    createTenant(ctx, { balances: everyChannel(balance), prices: everyChannel(price) });
  t.payer = await tenant('1000', '0.333333');
  t.short = await tenant('0.5', '0.25');
  t.fifty = await tenant('12.5', '0.25');
  t.five = await tenant('5', '1');
  t.limited = await tenant('1000', '0.5');
  t.bound = await tenant('1000', '1');
});

afterAll(async () => {
  await ctx?.close();
});

describe.each(CHANNEL_CASES)('$channel sends', (c) => {
  const send = (who: Tenant | AuthContext, recipients: string[]) => sendOn(sends, c, who, recipients);
  const balance = (who: Tenant) => balanceOf(ctx, who.account.id, c.channel);
  const requests = (who: Tenant) => sendRequestCount(ctx, who.account.id, c.channel);
  const queue = () => ctx.get<Queue>(getQueueToken(c.channel));
  /** Settles every send, answering 'ok' or the refusal's code. */
  const outcomes = async (all: Array<Promise<unknown>>) =>
    (await Promise.allSettled(all)).map((o) =>
      o.status === 'fulfilled' ? 'ok' : (o.reason as { code?: string }).code,
    );
  /** A new key of the `limited` account with its own daily limit, as the auth guard would find it. */
  const limitedKey = async (dailyLimit: string): Promise<AuthContext> => {
    const { apiKey } = await ctx
      .get(ApiKeysService)
      .create({ username: t.limited.username, name: 'limited', dailyLimit });
    return { account: t.limited.account, key: apiKey };
  };
  /** Limits the `bound` account to what it has spent today plus `room`; answers the limit and the account. */
  const leaveRoom = async (room: number) => {
    const spent = Number(await limits.spentToday('account', t.bound.account.id));
    const limit = (spent + room).toFixed(6);
    return { limit, account: await ctx.get(AccountsService).setDailyLimit(t.bound.username, limit) };
  };

  describe('charging', () => {
    it('charges units × price for the accepted recipients only, in one ledger row, and queues only them', async () => {
      const before = Number(await balance(t.payer));
      const out = await send(t.payer, [...c.recipients(3), c.invalid.recipient]);
      expect([out.acceptedCount, out.cost]).toEqual([3, '0.999999']);
      expect(Number(await balance(t.payer))).toBeCloseTo(before - 0.999999, 6);
      expect(await ledgerAmounts(ctx, out.apiReference, 'charge')).toEqual(['-0.999999']);
      expect(await ledgerSum(ctx, t.payer.account.id, c.channel)).toBe(await balance(t.payer));
      const rows = await messagesOfRequest(ctx, out.apiReference);
      expect(rows.map((r) => [r.status, r.reason, r.units, r.cost])).toEqual([
        ['ACKNOWLEDGED', null, 1, '0.333333'],
        ['ACKNOWLEDGED', null, 1, '0.333333'],
        ['ACKNOWLEDGED', null, 1, '0.333333'],
        ['REJECTED', c.invalid.reason, 0, '0.000000'],
      ]);
      expect((await queuedForRequest(queue(), out.apiReference)).sort()).toEqual(
        rows
          .slice(0, 3)
          .map((r) => r.id)
          .sort(),
      );
    });

    it('refuses a send the balance cannot pay with INSUFFICIENT_BALANCE (402) naming both sums, storing, charging and queuing nothing', async () => {
      const queuedBefore = (await queue().getJobCounts()).waiting;
      const err = await send(t.short, c.recipients(3)).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 402 });
      expect((err as Error).message).toMatch(/0\.75.*0\.5/);
      expect(await requests(t.short)).toBe(0);
      expect(await messageCount(ctx, t.short.account.id)).toBe(0);
      expect(await balance(t.short)).toBe('0.500000');
      expect((await queue().getJobCounts()).waiting).toBe(queuedBefore);
    });

    it('accepts exactly 50 of 200 concurrent sends when the balance pays exactly 50, leaving exactly 0', async () => {
      const answers = await outcomes(c.recipients(200).map((r) => send(t.fifty, [r])));
      expect(answers.filter((a) => a === 'ok')).toHaveLength(50);
      expect(answers.filter((a) => a === 'INSUFFICIENT_BALANCE')).toHaveLength(150);
      expect(await balance(t.fifty)).toBe('0.000000');
      expect(await ledgerSum(ctx, t.fifty.account.id, c.channel)).toBe('0.000000');
      expect(await requests(t.fifty)).toBe(50);
    });

    it('gives each of many concurrent sends from two accounts its own exact answer when one runs dry', async () => {
      const [rich, poor] = [t.payer, t.five];
      const richBefore = { balance: Number(await balance(rich)), requests: await requests(rich) };
      const answers = await outcomes(c.recipients(60).map((r, i) => send(i % 2 ? poor : rich, [r])));
      expect(answers.filter((_, i) => i % 2 === 0).every((a) => a === 'ok')).toBe(true);
      const poorAnswers = answers.filter((_, i) => i % 2 === 1);
      expect(poorAnswers.filter((a) => a === 'ok')).toHaveLength(5);
      expect(poorAnswers.filter((a) => a === 'INSUFFICIENT_BALANCE')).toHaveLength(25);
      expect(Number(await balance(rich))).toBeCloseTo(richBefore.balance - 30 * 0.333333, 6);
      expect(await balance(poor)).toBe('0.000000');
      for (const who of [rich, poor])
        expect(await ledgerSum(ctx, who.account.id, c.channel)).toBe(await balance(who));
      expect([await requests(rich), await requests(poor)]).toEqual([richBefore.requests + 30, 5]);
    });
  });

  describe('daily spend limits', () => {
    it("refuses a send that would cross the key's limit with SPEND_LIMIT_EXCEEDED (402) naming what remains, storing and charging nothing; what still fits goes", async () => {
      const auth = await limitedKey('2.00');
      await send(auth, c.recipients(3));
      const before = [await balance(t.limited), await requests(t.limited)];
      const err = await send(auth, c.recipients(2)).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'SPEND_LIMIT_EXCEEDED',
        status: 402,
        details: [{ field: 'daily_limit', message: 'remaining 0.500000 ZMW' }],
      });
      expect((err as Error).message).toMatch(/this API key's daily spend limit of 2\.000000 ZMW/);
      expect([await balance(t.limited), await requests(t.limited)]).toEqual(before);
      // The limit is reached exactly, not refused early.
      await send(auth, c.recipients(1));
      expect(await limits.spentToday('key', auth.key.id)).toBe('2.000000');
    });

    it('accepts exactly 5 of 20 concurrent sends when the key limit pays for 5, and spends exactly the limit', async () => {
      const auth = await limitedKey('2.50');
      const before = { balance: Number(await balance(t.limited)), requests: await requests(t.limited) };
      const answers = await outcomes(c.recipients(20).map((r) => send(auth, [r])));
      expect(answers.filter((a) => a === 'ok')).toHaveLength(5);
      expect(answers.filter((a) => a === 'SPEND_LIMIT_EXCEEDED')).toHaveLength(15);
      expect(await limits.spentToday('key', auth.key.id)).toBe('2.500000');
      expect({ balance: Number(await balance(t.limited)), requests: await requests(t.limited) }).toEqual({
        balance: before.balance - 2.5,
        requests: before.requests + 5,
      });
    });

    it('gives the room back when a charged message is refunded', async () => {
      const auth = await limitedKey('0.5');
      const accountBefore = await limits.spentToday('account', t.limited.account.id);
      const first = await send(auth, c.recipients(1));
      await expect(send(auth, c.recipients(1))).rejects.toMatchObject({ code: 'SPEND_LIMIT_EXCEEDED' });
      // What a provider's refusal does to the message: REJECTED, refunded.
      await ctx
        .get(MessageStateService)
        .apply([{ id: first.entries[0].messageId, status: 'REJECTED', reason: 'PROVIDER_REJECTED' }]);
      expect(await limits.spentToday('key', auth.key.id)).toBe('0.000000');
      expect(await limits.spentToday('account', t.limited.account.id)).toBe(accountBefore);
      await send(auth, c.recipients(1));
      expect(await limits.spentToday('key', auth.key.id)).toBe('0.500000');
    });

    it("binds all the account's keys together under the account's limit", async () => {
      const { apiKey: second } = await ctx
        .get(ApiKeysService)
        .create({ username: t.bound.username, name: 'two' });
      const { limit, account } = await leaveRoom(2);
      await send({ account, key: t.bound.apiKey }, c.recipients(1));
      await send({ account, key: second }, c.recipients(1));
      const err = await send({ account, key: second }, c.recipients(1)).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'SPEND_LIMIT_EXCEEDED',
        details: [{ field: 'daily_limit', message: 'remaining 0.000000 ZMW' }],
      });
      expect((err as Error).message).toContain(`the account's daily spend limit of ${limit} ZMW`);
      expect(await limits.spentToday('account', t.bound.account.id)).toBe(limit);
    });

    it('counts nothing from a test key toward any limit, nor refuses it', async () => {
      const { limit, account } = await leaveRoom(0);
      const { apiKey: testKey } = await ctx
        .get(ApiKeysService)
        .create({ username: t.bound.username, name: 'sandbox', mode: 'test', dailyLimit: '0' });
      await send({ account, key: testKey }, c.recipients(2));
      await expect(send({ account, key: t.bound.apiKey }, c.recipients(1))).rejects.toMatchObject({
        code: 'SPEND_LIMIT_EXCEEDED',
      });
      expect(await limits.spentToday('key', testKey.id)).toBe('0.000000');
      expect(await limits.spentToday('account', t.bound.account.id)).toBe(limit);
    });
  });
});
