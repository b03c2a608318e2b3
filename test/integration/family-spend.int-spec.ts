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
import { FallbackModule } from '../../src/modules/sending/fallback/fallback.module.js';
import { FallbackScanner } from '../../src/modules/sending/fallback/fallback.scanner.js';
import { SendService } from '../../src/modules/sending/send.service.js';
import { SendingModule } from '../../src/modules/sending/sending.module.js';
import { createSubaccount, createTenant, type Tenant } from '../factories/account.factory.js';
import { CHANNEL_CASES, sendOn } from '../support/channel-cases.js';
import { fallbackDueNow } from '../support/clock.js';
import { fallbacksOf } from '../support/message-probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/**
 * An operator's daily limit on a parent covers the family: a sub-account's charges add to the
 * parent's row of the day in the same transaction as to its own, through the one send pipeline
 * on real MySQL, many sends racing.
 */

const silent: StateChangeListener = { committed: async () => {}, recover: async () => 0 };
const [sms, , chat] = CHANNEL_CASES as [
  (typeof CHANNEL_CASES)[0],
  (typeof CHANNEL_CASES)[0],
  (typeof CHANNEL_CASES)[0],
];

let ctx: ServiceContext;
let sends: SendService;
let limits: SpendLimits;
let accounts: AccountsService;

type Member = Omit<Tenant, 'password'>;
/** The main database as the message probes take it. */
const db = () => ({ name: 'main', ds: ctx.ds });

/** A parent and two sub-accounts holding credit moved down, every price 1 a unit. */
async function family(): Promise<{ parent: Tenant; children: Member[] }> {
  const money = { sms: '100', email: '100', chat: '100' };
  const parent = await createTenant(ctx, { balances: money, prices: { sms: '1', email: '1', chat: '1' } });
  const down = { sms: '30', chat: '30' };
  const children = [
    await createSubaccount(ctx, parent, { transfers: down }),
    await createSubaccount(ctx, parent, { transfers: down }),
  ];
  return { parent, children };
}

/** What the auth guard finds for a member's key: its account, and a sub-account's parent, read now. */
async function authOf(m: Member): Promise<AuthContext> {
  const account = (await accounts.findById(m.account.id))!;
  const parent = account.parentId ? await accounts.findById(account.parentId) : null;
  return { account, key: m.apiKey, parent };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? String(err),
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
      FallbackModule,
    ],
    [MessageStateService, { provide: STATE_CHANGE_LISTENER, useValue: silent }],
    // Enough connections for the racing sends to wait on the rows, not on the pool.
    { DB_POOL_SIZE: '30', FALLBACK_POLL_MS: '60000' },
  );
  sends = ctx.get(SendService);
  limits = ctx.get(SpendLimits);
  accounts = ctx.get(AccountsService);
});

afterAll(async () => {
  await ctx?.close();
});

describe("a parent's account limit covers its family", () => {
  it('accepts exactly 5 of 20 racing sends from a parent and its two sub-accounts when the family has room for 5', async () => {
    const { parent, children } = await family();
    await accounts.setDailyLimit(parent.username, '5');
    const members = [parent, ...children];
    const auths = await Promise.all(members.map(authOf));
    // All at once, as concurrent requests come: the committer writes them in transactions that race for the rows.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        outcome(sendOn(sends, sms, auths[i % 3]!, sms.recipients(1), { priority: 'normal' })),
      ),
    );
    expect(answers.filter((a) => a === 'ok')).toHaveLength(5);
    expect(answers.filter((a) => a === 'SPEND_LIMIT_EXCEEDED')).toHaveLength(15);
    expect(await limits.spentToday('account', parent.account.id)).toBe('5.000000');
    const own = await Promise.all(children.map((c) => limits.spentToday('account', c.account.id)));
    // The parent's row is the family's: its own sends plus each sub-account's.
    const childSpent = own.reduce((a, b) => a + Number(b), 0);
    expect(childSpent).toBeLessThanOrEqual(5);
  });

  it("stops a sub-account at the parent's limit once credit moved down would spend past it, naming the parent's limit", async () => {
    const { parent, children } = await family();
    await accounts.setDailyLimit(parent.username, '3');
    await sendOn(sends, sms, await authOf(parent), sms.recipients(2));
    const child = await authOf(children[0]!);
    await sendOn(sends, sms, child, sms.recipients(1));
    const err = await sendOn(sends, sms, child, sms.recipients(1)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'SPEND_LIMIT_EXCEEDED',
      details: [{ field: 'daily_limit', message: 'remaining 0.000000 ZMW' }],
    });
    expect((err as Error).message).toContain(
      "the parent account's (covering its sub-accounts) daily spend limit",
    );
    expect(await limits.spentToday('account', parent.account.id)).toBe('3.000000');
    expect(await limits.spentToday('account', children[0]!.account.id)).toBe('1.000000');
  });

  it("keeps the sub-account's own limits: the tighter of its own and its parent's wins", async () => {
    const { parent, children } = await family();
    await accounts.setDailyLimit(parent.username, '10');
    await accounts.setDailyLimit(children[0]!.username, '2');
    const child = await authOf(children[0]!);
    await sendOn(sends, sms, child, sms.recipients(2));
    const own = await sendOn(sends, sms, child, sms.recipients(1)).catch((e: unknown) => e);
    expect(own).toMatchObject({ code: 'SPEND_LIMIT_EXCEEDED' });
    expect((own as Error).message).toContain("the account's daily spend limit of 2.000000");
    // A key limit of the sub-account's own applies as well.
    const { apiKey } = await ctx
      .get(ApiKeysService)
      .create({ username: children[1]!.username, name: 'capped', dailyLimit: '1' });
    const keyed = { ...(await authOf(children[1]!)), key: apiKey };
    await sendOn(sends, sms, keyed, sms.recipients(1));
    const byKey = await sendOn(sends, sms, keyed, sms.recipients(1)).catch((e: unknown) => e);
    expect((byKey as Error).message).toContain("this API key's daily spend limit");
    expect(await limits.spentToday('account', parent.account.id)).toBe('3.000000');
  });

  it('gives a refunded message of a sub-account its room back under both its own and its parent’s limit', async () => {
    const { parent, children } = await family();
    await accounts.setDailyLimit(parent.username, '1');
    await accounts.setDailyLimit(children[0]!.username, '1');
    const child = await authOf(children[0]!);
    const first = await sendOn(sends, sms, child, sms.recipients(1));
    await expect(sendOn(sends, sms, await authOf(parent), sms.recipients(1))).rejects.toMatchObject({
      code: 'SPEND_LIMIT_EXCEEDED',
    });
    // What a provider's refusal does to the message: REJECTED, refunded.
    await ctx
      .get(MessageStateService)
      .apply([{ id: first.entries[0]!.messageId, status: 'REJECTED', reason: 'PROVIDER_REJECTED' }]);
    expect(await limits.spentToday('account', parent.account.id)).toBe('0.000000');
    expect(await limits.spentToday('account', children[0]!.account.id)).toBe('0.000000');
    expect(await limits.spentToday('key', children[0]!.apiKey.id)).toBe('0.000000');
    await sendOn(sends, sms, child, sms.recipients(1));
    expect(await limits.spentToday('account', parent.account.id)).toBe('1.000000');
  });

  it("counts a sub-account's fallback SMS toward its parent's limit, and stores it REJECTED when the family has no room left", async () => {
    const { parent, children } = await family();
    const child = await authOf(children[0]!);
    const fallback = { afterSeconds: 3600, sender: null, body: 'by SMS' };
    const res = await sendOn(sends, chat, child, chat.recipients(2), { fallback });
    const [a, b] = res.entries.map((e) => e.messageId);
    // The chat cost 2; room for one SMS more.
    await accounts.setDailyLimit(parent.username, '3');
    await fallbackDueNow(db(), [a!]);
    await ctx.get(FallbackScanner).scan();
    const [made] = await fallbacksOf(db(), [a!]);
    expect(made).toMatchObject({ status: 'ACKNOWLEDGED' });
    expect(await limits.spentToday('account', parent.account.id)).toBe('3.000000');
    await fallbackDueNow(db(), [b!]);
    await ctx.get(FallbackScanner).scan();
    const [refused] = await fallbacksOf(db(), [b!]);
    expect(refused).toMatchObject({ status: 'REJECTED', reason: 'SPEND_LIMIT_EXCEEDED' });
    expect(await limits.spentToday('account', parent.account.id)).toBe('3.000000');
  });

  it('makes no fallback for a sub-account whose parent is suspended, and charges nothing', async () => {
    const { parent, children } = await family();
    const child = await authOf(children[1]!);
    const res = await sendOn(sends, chat, child, chat.recipients(1), {
      fallback: { afterSeconds: 3600, sender: null, body: null },
    });
    const id = res.entries[0]!.messageId;
    await accounts.setStatus(parent.username, 'suspended');
    const spent = await limits.spentToday('account', children[1]!.account.id);
    await fallbackDueNow(db(), [id]);
    await ctx.get(FallbackScanner).scan();
    expect(await fallbacksOf(db(), [id])).toEqual([]);
    expect(await limits.spentToday('account', children[1]!.account.id)).toBe(spent);
  });
});
