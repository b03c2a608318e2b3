import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccountsModule } from '../../src/modules/accounts/accounts.module.js';
import { ApiKeysModule } from '../../src/modules/api-keys/api-keys.module.js';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { DispatchProducer } from '../../src/modules/delivery/dispatch/dispatch.producer.js';
import { SmsPolicy } from '../../src/modules/sending/channels/sms/sms.policy.js';
import type { SendInput } from '../../src/modules/sending/channel-policy.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { AppException } from '../../src/platform/errors/app.exception.js';
import { authOf, createTenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';
import { queuedMessageIds } from '../support/test-app.js';
import { recordRunnerQueries } from '../support/runner-queries.js';

/**
 * The one send pipeline, called directly on real MySQL and Redis: what holds here holds for
 * every channel, since the channels differ only by their policy (SMS's here).
 */
let ctx: ServiceContext;
let sends: SendService;
let balances: BalanceService;
const sms = new SmsPolicy();

async function tenant(balance: string, price = '0.25'): Promise<AuthContext> {
  return authOf(
    await createTenant(ctx, { balances: balance === '0' ? {} : { sms: balance }, prices: { sms: price } }),
  );
}

const input = (over: Partial<SendInput> = {}): SendInput => ({
  sender: 'ACME',
  recipients: ['260971000001'],
  body: 'hello',
  ...over,
});

const balanceOf = async (auth: AuthContext) =>
  (await balances.channels(auth.account.id)).find((c) => c.channel === 'sms')!.balance;

const rowsOf = (ds: DataSource, apiReference: string) =>
  ds.query(
    'SELECT recipient, status, reason, units, cost FROM messages WHERE send_request_id = ? ORDER BY id',
    [apiReference],
  ) as Promise<
    Array<{ recipient: string; status: string; reason: string | null; units: number; cost: string }>
  >;

beforeAll(async () => {
  ctx = await startServices([AccountsModule, ApiKeysModule, SendingModule]);
  sends = ctx.get(SendService);
  balances = ctx.get(BalanceService);
});

afterAll(async () => {
  await ctx?.close();
});

describe('SendService', () => {
  it('stores the request, its messages and the charge together, and queues the accepted messages', async () => {
    const auth = await tenant('10');
    const out = await sends.send(sms, auth, input({ recipients: ['260971000001', '260971000002'] }));
    expect(out.replayed).toBe(false);
    expect(out.acceptedCount).toBe(2);
    expect(out.cost).toBe('0.500000');
    expect(await balanceOf(auth)).toBe('9.500000');
    const rows = await rowsOf(ctx.ds, out.apiReference);
    expect(rows.map((r) => [r.recipient, r.status])).toEqual([
      ['260971000001', 'ACKNOWLEDGED'],
      ['260971000002', 'ACKNOWLEDGED'],
    ]);
    const [debit] = await ctx.ds.query(
      "SELECT amount FROM ledger_entries WHERE send_request_id = ? AND kind = 'charge'",
      [out.apiReference],
    );
    expect(debit.amount).toBe('-0.500000');
    const queued = await queuedMessageIds(ctx.get<Queue>(getQueueToken('sms')));
    expect(queued).toEqual(expect.arrayContaining(out.entries.map((e) => e.messageId)));
  });

  it('answers a send marked answerOnceStored once it is stored, while its dispatch jobs have not reached Redis; one without the mark waits for them', async () => {
    const auth = await tenant('10');
    const dispatch = ctx.get(DispatchProducer);
    let release!: (ok: boolean) => void;
    const held = new Promise<boolean>((resolve) => (release = resolve));
    const enqueue = vi.spyOn(dispatch, 'enqueue').mockReturnValue(held);
    try {
      const out = await sends.send(sms, auth, input({ answerOnceStored: true }));
      expect((await rowsOf(ctx.ds, out.apiReference)).map((r) => r.status)).toEqual(['ACKNOWLEDGED']);
      let answered = false;
      const waiting = sends.send(sms, auth, input()).then(() => (answered = true));
      await vi.waitFor(() => expect(enqueue).toHaveBeenCalledTimes(2));
      await new Promise((r) => setImmediate(r));
      expect(answered).toBe(false);
      release(true);
      await waiting;
    } finally {
      enqueue.mockRestore();
    }
  });

  it('commits requests that arrive together in one transaction (group commit) of one round trip, each with its own charge', async () => {
    const auth = await tenant('100', '1');
    // The statements each query runner is given, runner by runner.
    const { runners: sent, restore } = recordRunnerQueries(ctx.ds);
    try {
      const outs = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          sends.send(sms, auth, input({ recipients: [`2609710010${10 + i}`] })),
        ),
      );
      expect(new Set(outs.map((o) => o.apiReference)).size).toBe(20);
    } finally {
      restore();
    }
    const batches = sent.filter((q) => q[0]?.startsWith('START TRANSACTION'));
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.length).toBeLessThan(20);
    for (const batch of batches) {
      expect(batch).toHaveLength(1);
      const statements = batch[0]!.split(';\n');
      expect(
        statements.map((q) => /^(START TRANSACTION|COMMIT|BEGIN NOT ATOMIC|\w+ (INTO )?\w+)/.exec(q)?.[0]),
      ).toEqual([
        'START TRANSACTION',
        'INSERT INTO send_requests',
        'INSERT INTO messages',
        'UPDATE account_channels',
        // The debit must have changed its row, or the query stops here.
        'BEGIN NOT ATOMIC',
        'INSERT INTO ledger_entries',
        'INSERT INTO daily_spend',
        'COMMIT',
      ]);
    }
    expect(await balanceOf(auth)).toBe('80.000000');
  });

  it('writes a batch in which one balance cannot pay request by request: the others stored and charged, that one refused', async () => {
    const rich = await tenant('100', '1');
    const poor = await tenant('0.5', '1');
    const outcomes = await Promise.allSettled([
      sends.send(sms, rich, input({ recipients: ['260971002001'] })),
      sends.send(sms, poor, input({ recipients: ['260971002002'] })),
      sends.send(sms, rich, input({ recipients: ['260971002003'] })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((outcomes[1] as PromiseRejectedResult).reason as AppException).code).toBe('INSUFFICIENT_BALANCE');
    expect(await balanceOf(rich)).toBe('98.000000');
    expect(await balanceOf(poor)).toBe('0.500000');
    const [{ n }] = await ctx.ds.query('SELECT COUNT(*) AS n FROM send_requests WHERE account_id = ?', [
      poor.account.id,
    ]);
    expect(Number(n)).toBe(0);
  });

  it('refuses a request without one valid recipient, storing nothing', async () => {
    const auth = await tenant('10');
    await expect(sends.send(sms, auth, input({ recipients: ['nope'] }))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    const [n] = await ctx.ds.query('SELECT COUNT(*) AS n FROM send_requests WHERE account_id = ?', [
      auth.account.id,
    ]);
    expect(Number(n.n)).toBe(0);
  });

  // What holds for every channel (charging only the accepted, a balance that cannot pay, repeats
  // of a user_reference_id) is proven over the three in channel-money and channel-requests.int-spec.ts.
});
