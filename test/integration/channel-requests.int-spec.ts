import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import type { SendInput } from '../../src/modules/sending/channel-policy.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { SuppressionsService } from '../../src/modules/suppressions/suppressions.service.js';
import { createTenant, testAuthOf, type Tenant } from '../factories/account.factory.js';
import { CHANNEL_CASES, sendOn } from '../support/channel-cases.js';
import {
  balanceOf,
  messagesOfRequest,
  queuedForRequest,
  sendRequestCount,
  sendRequestFields,
} from '../support/probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/**
 * What the send pipeline decides about a request before and as it stores it, proven once for
 * every channel on real MySQL and Redis: repeats of a user_reference_id, the suppression list,
 * send_at and validity_period, the recipient cap. Each has one HTTP case, for SMS, in
 * test/e2e (money, scheduling, sms and inbound specs), where the status codes and envelopes are.
 */
const MAX_RECIPIENTS = 20;
let ctx: ServiceContext;
let sends: SendService;
// Shared by every test and channel (an account costs a password hash): each test names recipients
// and references of its own and looks at what its own requests changed.
let main: Tenant;
let other: Tenant;
/** Holds less than one recipient costs, on every channel. */
let poor: Tenant;
let testKey: AuthContext;

beforeAll(async () => {
  ctx = await startServices([AccountsModule, ApiKeysModule, SendingModule], [], {
    MAX_RECIPIENTS: String(MAX_RECIPIENTS),
  });
  sends = ctx.get(SendService);
  const prices = { sms: '1', email: '1', chat: '1' };
  main = await createTenant(ctx, { prices, test: true });
  other = await createTenant(ctx, { prices });
  poor = await createTenant(ctx, { prices, balances: { sms: '0.5', email: '0.5', chat: '0.5' } });
  testKey = testAuthOf(main);
});

afterAll(async () => {
  await ctx?.close();
});

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const plusSeconds = (iso: string, s: number) => new Date(Date.parse(iso) + s * 1000).toISOString();

describe.each(CHANNEL_CASES)('$channel sends', (c) => {
  const send = (who: Tenant | AuthContext, recipients: string[], over: Partial<SendInput> = {}) =>
    sendOn(sends, c, who, recipients, over);
  /** The main account's balance on the channel and its requests there, as numbers. */
  const state = async () => ({
    balance: Number(await balanceOf(ctx, main.account.id, c.channel)),
    requests: await sendRequestCount(ctx, main.account.id, c.channel),
  });
  const queued = (apiReference: string) =>
    queuedForRequest(ctx.get<Queue>(getQueueToken(c.channel)), apiReference);
  const suppress = (testMode: boolean, recipients: string[]) =>
    ctx.get(SuppressionsService).add({ accountId: main.account.id, testMode }, c.channel, recipients);

  describe('user_reference_id', () => {
    it('answers a repeat with the same body with the first answer, storing and charging once', async () => {
      const before = await state();
      const [a, b] = c.recipients(2);
      const first = await send(main, [a, c.invalid.recipient, b], { userReferenceId: 'order-42' });
      const again = await send(main, [a, c.invalid.recipient, b], { userReferenceId: 'order-42' });
      expect(again.replayed).toBe(true);
      expect(again.apiReference).toBe(first.apiReference);
      const shown = (o: typeof first) => o.entries.map((e) => [e.uuid, e.recipient, e.status, e.reason]);
      expect(shown(again)).toEqual(shown(first));
      expect(again.cost).toBe(first.cost);
      expect(await state()).toEqual({ balance: before.balance - 2, requests: before.requests + 1 });
    });

    it('refuses the same reference with a different body with DUPLICATE_REFERENCE (409), charging nothing more', async () => {
      const to = c.recipients(1);
      await send(main, to, { userReferenceId: 'order-43' });
      const before = await state();
      const err = await send(main, to, { userReferenceId: 'order-43', body: 'different' }).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'DUPLICATE_REFERENCE', status: 409 });
      expect(await state()).toEqual(before);
    });

    it('makes one request and one charge of five identical sends racing each other', async () => {
      const before = await state();
      const to = c.recipients(2);
      const outs = await Promise.all(
        Array.from({ length: 5 }, () => send(main, to, { userReferenceId: 'order-44' })),
      );
      expect(new Set(outs.map((o) => o.apiReference)).size).toBe(1);
      expect(outs.filter((o) => !o.replayed)).toHaveLength(1);
      expect(await state()).toEqual({ balance: before.balance - 2, requests: before.requests + 1 });
    });

    it('keeps the references of different accounts apart', async () => {
      const a = await send(main, c.recipients(1), { userReferenceId: 'order-45' });
      const b = await send(other, c.recipients(1), { userReferenceId: 'order-45', body: 'other account' });
      expect(b.replayed).toBe(false);
      expect(b.apiReference).not.toBe(a.apiReference);
    });
  });

  describe('suppressions', () => {
    it('answers a listed recipient REJECTED, SUPPRESSED: not charged, not queued, the others sent', async () => {
      const [listed, free] = c.recipients(2);
      await suppress(false, [listed]);
      const before = await state();
      const out = await send(main, [listed, free]);
      expect(out.entries.map((e) => [e.recipient, e.status, e.reason])).toEqual([
        [listed, 'REJECTED', 'SUPPRESSED'],
        [free, 'ACKNOWLEDGED', undefined],
      ]);
      const rows = await messagesOfRequest(ctx, out.apiReference);
      expect(rows.map((r) => [r.status, r.reason, r.units])).toEqual([
        ['REJECTED', 'SUPPRESSED', 0],
        ['ACKNOWLEDGED', null, 1],
      ]);
      expect((await state()).balance).toBe(before.balance - 1);
      expect(await queued(out.apiReference)).toEqual([rows[1].id]);
    });

    it("reads a test key's sends against the account's test list, and a live key's against its live list", async () => {
      const [listed] = c.recipients(1);
      await suppress(true, [listed]);
      const test = await send(testKey, [listed, ...c.recipients(1)]);
      expect(test.entries.map((e) => e.reason)).toEqual(['SUPPRESSED', undefined]);
      const live = await send(main, [listed]);
      expect(live.entries.map((e) => e.status)).toEqual(['ACKNOWLEDGED']);
    });

    it('refuses a request whose every recipient is listed with VALIDATION_ERROR naming each, storing nothing', async () => {
      const to = c.recipients(2);
      await suppress(false, to);
      const before = await state();
      await expect(send(main, to)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [
          { field: `${c.policy.recipientField}[0]`, message: 'SUPPRESSED' },
          { field: `${c.policy.recipientField}[1]`, message: 'SUPPRESSED' },
        ],
      });
      expect(await state()).toEqual(before);
    });
  });

  describe('send_at and validity_period', () => {
    const bad: Array<[string, Partial<SendInput>, string]> = [
      ['a send_at without Z or an offset', { sendAt: '2026-12-01T10:00:00' }, 'send_at'],
      ['a send_at that is not a date', { sendAt: 'tomorrow' }, 'send_at'],
      ['a send_at more than 35 days ahead', { sendAt: inSeconds(36 * 86400) }, 'send_at'],
      ['a validity_period under 60 s', { validityPeriod: 59 }, 'validity_period'],
      ['a validity_period over 7 days', { validityPeriod: 604801 }, 'validity_period'],
      ['a validity_period that is not a whole number', { validityPeriod: 90.5 }, 'validity_period'],
    ];

    it.each(bad)(
      'refuses %s with VALIDATION_ERROR naming the field, storing and charging nothing',
      async (_, over, field) => {
        const before = await state();
        const err = await send(main, c.recipients(1), over).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
        expect((err as { details: Array<{ field: string }> }).details.map((d) => d.field)).toContain(field);
        expect(await state()).toEqual(before);
      },
    );

    it('answers a send_at ahead with SCHEDULED entries, charges them at once and queues nothing; validity counts from send_at', async () => {
      const before = await state();
      const at = new Date(Date.now() + 10 * 86_400_000);
      at.setUTCMinutes(0, 0, 0);
      const sendAt = at.toISOString();
      // The same instant written two hours east of UTC.
      const written = `${new Date(at.getTime() + 7_200_000).toISOString().slice(0, 19)}+02:00`;
      const out = await send(main, [...c.recipients(2), c.invalid.recipient], {
        sendAt: written,
        validityPeriod: 600,
      });
      expect(out.sendAt).toBe(sendAt);
      expect(out.entries.map((e) => e.status)).toEqual(['SCHEDULED', 'SCHEDULED', 'REJECTED']);
      expect((await state()).balance).toBe(before.balance - 2);
      expect(await queued(out.apiReference)).toEqual([]);
      const row = await sendRequestFields(ctx, out.apiReference, 'valid_until', 'validity_period');
      expect(row.validity_period).toBe(600);
      expect(new Date(row.valid_until as Date).toISOString()).toBe(plusSeconds(sendAt, 600));
    });

    it.each<[string, number]>([
      ['in the past', -3600],
      ['under 5 s ahead', 3],
    ])('sends at once a send_at %s: ACKNOWLEDGED, without send_at, queued', async (_, seconds) => {
      const out = await send(main, c.recipients(1), { sendAt: inSeconds(seconds) });
      expect(out.sendAt).toBeNull();
      expect(out.entries.map((e) => e.status)).toEqual(['ACKNOWLEDGED']);
      expect(await queued(out.apiReference)).toEqual([out.entries[0].messageId]);
    });

    it('refuses a scheduled send the balance cannot pay now with INSUFFICIENT_BALANCE, storing nothing', async () => {
      await expect(send(poor, c.recipients(1), { sendAt: inSeconds(3600) })).rejects.toMatchObject({
        code: 'INSUFFICIENT_BALANCE',
      });
      expect(await sendRequestCount(ctx, poor.account.id, c.channel)).toBe(0);
      expect(await balanceOf(ctx, poor.account.id, c.channel)).toBe('0.500000');
    });
  });

  it('refuses more than MAX_RECIPIENTS recipients with TOO_MANY_RECIPIENTS naming the field, storing nothing', async () => {
    const before = await state();
    const err = await send(main, c.recipients(MAX_RECIPIENTS + 1)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'TOO_MANY_RECIPIENTS',
      status: 400,
      details: [{ field: c.policy.recipientField, message: `at most ${MAX_RECIPIENTS} recipients` }],
    });
    expect(await state()).toEqual(before);
  });
});
