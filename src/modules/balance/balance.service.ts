import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Channel } from '../messages/channel.js';
import type { AccountChannel } from '../accounts/account-channel.entity.js';
import { AccountChannelStore } from './account-channel.store.js';
import { Decimal } from 'decimal.js';
import type { Account } from '../accounts/account.entity.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { isPositive, money } from '../../platform/money/money.js';
import { SpendLimits } from './spend-limits.service.js';
import { TtlCache } from '../../platform/caching/ttl-cache.js';
import { LedgerStore, debitStatements, type Charge } from './ledger.store.js';
import { balanceResponse, type BalanceResponseDto } from './balance-response.dto.js';

export const PRICE_TTL_MS = 1000;

/**
 * Every movement of money goes through here: a ledger row and a balance change in one
 * transaction (their statements in LedgerStore).
 */
@Injectable()
export class BalanceService {
  private readonly prices = new TtlCache<string>(PRICE_TTL_MS, 50_000);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly spend: SpendLimits,
    private readonly store: AccountChannelStore,
    private readonly ledger: LedgerStore,
    private readonly accounts: AccountsService,
  ) {}

  /**
   * The channel's price per unit, remembered for a second so a send costs no extra query; a
   * price change (CLI) reaches every process within that second. The charge is always computed
   * from the one price read, so the debit and the messages' costs agree. A remembered price is
   * answered at once, without a promise (docs/performance.md#promises); else a promise of its read.
   */
  unitPrice(accountId: string, channel: Channel): string | Promise<string> {
    const key = `${accountId}:${channel}`;
    return (
      this.prices.peek(key) ??
      this.prices.get(key, () => this.channel(accountId, channel).then((c) => c.costPerUnit))
    );
  }

  /** Per-channel value, price and credits; total_value is their sum, computed exactly. */
  async report(account: Account): Promise<BalanceResponseDto> {
    return balanceResponse(account, await this.channels(account.id));
  }

  /** Each channel's balance and the price the account pays (a sub-account's parent's, until it has its own). */
  async channels(accountId: string): Promise<AccountChannel[]> {
    return this.store.channels(accountId);
  }

  async channelsOf(accountIds: string[]): Promise<AccountChannel[]> {
    return this.store.channelsOf(accountIds);
  }

  async channel(
    accountId: string,
    channel: Channel,
    em: EntityManager = this.ds.manager,
  ): Promise<AccountChannel> {
    return this.store.channel(accountId, channel, em);
  }

  /**
   * Takes each charge from its channel balance inside the caller's transaction (the statements
   * of `debitStatements`, LedgerStore.debit): when a balance cannot pay its total it throws
   * InsufficientBalance. Not async, so the send adds no step of its own to the store's statements.
   */
  debit(em: EntityManager, charges: Charge[]): Promise<void> {
    const statements = debitStatements(charges);
    return statements ? this.ledger.debit(em, statements) : Promise.resolve();
  }

  async topUp(accountId: string, channel: Channel, amount: string, note?: string): Promise<AccountChannel> {
    return this.ds.transaction(async (em) => {
      await this.ledger.credit(em, accountId, channel, amount);
      await this.ledger.record(em, {
        accountId,
        channel,
        kind: 'topup',
        amount,
        sendRequestId: null,
        messageId: null,
        note: note ?? null,
      });
      return this.channel(accountId, channel, em);
    });
  }

  async setPrice(accountId: string, channel: Channel, costPerUnit: string): Promise<AccountChannel> {
    await this.store.setPrice(accountId, channel, costPerUnit);
    this.prices.delete(`${accountId}:${channel}`);
    return this.channel(accountId, channel);
  }

  /**
   * Gives messages' charges back (and their room under the daily spend limits), in three
   * statements whatever their number, each message at most once: the refunds
   * already in the ledger are read (under the ledger's unique key), the rest inserted in one
   * multi-row INSERT, and each balance moved once by its total, in a fixed order. For the
   * caller's transaction, which holds the messages' rows (so no other refund of them can race).
   * Returns the ids refunded now.
   */
  async refundMessages(
    em: EntityManager,
    ms: Array<{
      id: string;
      accountId: string;
      channel: Channel;
      cost: string;
      sendRequestId: string;
      apiKeyId?: string | null;
      chargedAt?: Date;
    }>,
  ): Promise<string[]> {
    const paid = ms.filter((m) => isPositive(m.cost));
    if (paid.length === 0) return [];
    const done = await this.ledger.refundedAmong(
      em,
      paid.map((m) => m.id),
    );
    const todo = paid.filter((m) => !done.has(String(m.id)));
    if (todo.length === 0) return [];
    await this.ledger.recordRefunds(em, todo);
    const totals = new Map<string, { accountId: string; channel: Channel; total: Decimal }>();
    for (const m of todo) {
      const key = `${m.accountId.padStart(20, '0')}:${m.channel}`;
      const t = totals.get(key) ?? { accountId: m.accountId, channel: m.channel, total: new Decimal(0) };
      t.total = t.total.plus(m.cost);
      totals.set(key, t);
    }
    for (const key of [...totals.keys()].sort()) {
      const { accountId, channel, total } = totals.get(key)!;
      await this.ledger.credit(em, accountId, channel, money(total));
    }
    // The room under the daily spend limits, in one statement (a sub-account's parent's row too).
    const charged = todo.filter((m) => m.apiKeyId && m.chargedAt);
    if (charged.length) {
      const parents = await this.accounts.parentsOf(
        charged.map((m) => m.accountId),
        em,
      );
      await this.spend.giveBack(
        em,
        charged.map((m) => ({
          accountId: m.accountId,
          apiKeyId: m.apiKeyId!,
          parentId: parents.get(m.accountId) ?? null,
          amount: m.cost,
          chargedAt: m.chargedAt!,
        })),
      );
    }
    return todo.map((m) => String(m.id));
  }
}
