import { Injectable } from '@nestjs/common';
import { AppException } from '../../platform/errors/app.exception.js';
import { decodeIdCursor, encodeIdCursor } from '../../platform/http/id-cursor.js';
import { money, toNumber } from '../../platform/money/money.js';
import type { Account } from '../accounts/account.entity.js';
import { AccountError, AccountsService, UsernameTaken } from '../accounts/accounts.service.js';
import { ApiKeyError, ApiKeysService, RateLimitAboveParent } from '../api-keys/api-keys.service.js';
import { keyView, withSecret } from '../api-keys/key-view.js';
import { BalanceService } from '../balance/balance.service.js';
import { channelBalances } from '../balance/balance-response.dto.js';
import { TransferNotCovered, TransferStore } from '../balance/transfer.store.js';
import { CHANNELS, type Channel } from '../messages/channel.js';
import { checkKey, checkNewSubaccount, checkTransfer } from './subaccount-input.js';

/** A key's fields as a body gives them (SubaccountKeyDto), checked by checkKey. */
type KeyInput = Parameters<typeof checkKey>[0];
import { SubaccountMetrics } from './subaccounts.metrics.js';
import { SubaccountStore, type ChannelUsage, type SubaccountRow } from './subaccount.store.js';
import { TtlCache } from '../../platform/caching/ttl-cache.js';

export const MAX_PAGE = 1000;
/** How old the usage figures of the sub-account overview may be. */
export const USAGE_TTL_MS = 60_000;
const DEFAULT_PAGE = 100;

function notFound(username: string): AppException {
  return new AppException('NOT_FOUND', `No sub-account ${JSON.stringify(username)} of this account.`, [
    { field: 'username', message: 'no such sub-account' },
  ]);
}

/** The first instant of the current UTC month. */
export function monthStart(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/**
 * A parent account's sub-accounts: creation, the overview (balances, prices paid, this month's
 * usage), transfers of credit both ways, and their API keys. A sub-account exists for its
 * parent only: any other account is answered 404, as for a name that does not exist.
 */
/** A key as the API answers it: its daily limit a number, as every amount the API gives. */
function answered<T extends { daily_limit: string | null }>(view: T) {
  return { ...view, daily_limit: view.daily_limit === null ? null : Number(view.daily_limit) };
}

@Injectable()
export class SubaccountsService {
  private readonly usage = new TtlCache<ChannelUsage[]>(USAGE_TTL_MS, 100_000);

  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalanceService,
    private readonly transfers: TransferStore,
    private readonly keys: ApiKeysService,
    private readonly store: SubaccountStore,
    private readonly metrics: SubaccountMetrics,
  ) {}

  async create(parent: Account, raw: { username?: unknown; name?: unknown }) {
    if (parent.parentId)
      throw new AppException('FORBIDDEN', 'A sub-account cannot have sub-accounts of its own.');
    const input = checkNewSubaccount(raw);
    let child: Account;
    try {
      child = await this.accounts.create({
        username: input.username,
        name: input.name,
        parent: parent.username,
      });
    } catch (err) {
      // Usernames are one namespace (they sign in on the chat and balance routes): a taken one
      // cannot be given, but the answer never says whose it is, not even when it is this parent's.
      if (err instanceof UsernameTaken)
        throw new AppException(
          'DUPLICATE_USERNAME',
          `The username ${JSON.stringify(input.username)} is not available; choose another.`,
          [{ field: 'username', message: 'not available' }],
        );
      if (err instanceof AccountError)
        throw AppException.validation([{ field: 'username', message: err.message }]);
      throw err;
    }
    return {
      username: child.username,
      parent: parent.username,
      name: child.name,
      status: child.status,
      created_at: child.createdAt.toISOString(),
    };
  }

  async list(parent: Account, q: { cursor?: string; limit?: string }) {
    const limit = q.limit === undefined ? DEFAULT_PAGE : Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
      throw AppException.validation([
        { field: 'limit', message: `limit must be a whole number from 1 to ${MAX_PAGE}` },
      ]);
    const after = q.cursor === undefined ? null : decodeIdCursor(q.cursor);
    const rows = await this.store.page(parent.id, after, limit + 1);
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    return {
      subaccounts: await this.views(parent, page),
      next_cursor: more ? encodeIdCursor(page[page.length - 1]!.id) : null,
    };
  }

  async show(parent: Account, username: string) {
    const child = await this.child(parent, username);
    const [view] = await this.views(parent, [child]);
    return view;
  }

  /** Moves credit between the parent and one of its sub-accounts; 402 names whose balance is short. */
  async transfer(parent: Account, username: string, raw: { channel?: unknown; amount?: unknown }) {
    const { channel, amount } = checkTransfer(raw);
    const child = await this.child(parent, username);
    try {
      const done = await this.transfers.transfer(parent.id, child.id, channel, amount);
      this.metrics.transfer(channel, !amount.startsWith('-'), true);
      return {
        transfer_id: done.transferId,
        channel,
        amount: toNumber(amount),
        parent_balance: toNumber(done.parentBalance),
        subaccount_balance: toNumber(done.subaccountBalance),
        currency: parent.currency,
      };
    } catch (err) {
      if (!(err instanceof TransferNotCovered)) throw err;
      this.metrics.transfer(channel, !amount.startsWith('-'), false);
      const whose =
        err.payer === 'parent'
          ? `the parent account ${parent.username}`
          : `the sub-account ${child.username}`;
      throw new AppException(
        'INSUFFICIENT_BALANCE',
        `The ${channel} balance of ${whose} (${err.available} ${parent.currency}) cannot pay this transfer (${err.needed} ${parent.currency}).`,
        [{ field: 'amount', message: `${err.payer} balance ${err.available} ${parent.currency}` }],
      );
    }
  }

  /** A new key for the sub-account, shown once. */
  async createKey(parent: Account, username: string, raw: KeyInput) {
    const input = checkKey(raw);
    const child = await this.child(parent, username);
    try {
      const { apiKey, secret } = await this.keys.create({
        username: child.username,
        name: input.name,
        mode: input.mode,
        dailyLimit: input.dailyLimit,
        rateLimit: input.rateLimit,
      });
      return answered(withSecret(keyView({ ...apiKey, username: child.username }), secret));
    } catch (err) {
      if (err instanceof RateLimitAboveParent)
        throw AppException.validation(
          [{ field: 'rate_limit', message: `${err.message}` }],
          "The key's rate_limit is above what this account's own keys allow.",
        );
      if (err instanceof ApiKeyError) throw new AppException('FORBIDDEN', `${err.message}.`);
      throw err;
    }
  }

  async revokeKey(parent: Account, username: string, keyId: string) {
    const child = await this.child(parent, username);
    const key = /^\d{1,19}$/.test(keyId) ? await this.keys.get(keyId).catch(() => null) : null;
    if (!key || String(key.accountId) !== String(child.id))
      throw new AppException(
        'NOT_FOUND',
        `No key ${JSON.stringify(keyId)} of the sub-account ${child.username}.`,
        [{ field: 'key_id', message: 'no such key' }],
      );
    const revoked = await this.keys.revoke(keyId);
    return answered(keyView({ ...revoked, username: child.username }));
  }

  private async child(parent: Account, username: string): Promise<SubaccountRow> {
    const child = await this.accounts.findSubaccount(parent.id, username);
    if (!child) throw notFound(username);
    return {
      id: String(child.id),
      username: child.username,
      name: child.name,
      status: child.status,
      currency: child.currency,
      created_at: child.createdAt,
    };
  }

  /**
   * This month's usage of each sub-account, remembered for USAGE_TTL_MS: summing a month of
   * messages is a scan of every one of them, which a parent listing its sub-accounts in a loop
   * would otherwise have MySQL run on every call. Those not remembered are read in one query.
   */
  private async usageSince(ids: string[], from: Date): Promise<ChannelUsage[]> {
    const month = from.toISOString().slice(0, 7);
    const keyOf = (id: string) => `${id}:${month}`;
    const known = new Map(ids.map((id) => [id, this.usage.peek(keyOf(id))]));
    const missing = ids.filter((id) => known.get(id) === undefined);
    if (missing.length) {
      const read = await this.store.usageSince(missing, from);
      for (const id of missing) {
        const mine = read.filter((u) => u.account_id === id);
        known.set(id, mine);
        void this.usage.get(keyOf(id), () => Promise.resolve(mine));
      }
    }
    return ids.flatMap((id) => known.get(id) ?? []);
  }

  private async views(parent: Account, rows: SubaccountRow[]) {
    const ids = rows.map((r) => r.id);
    const from = monthStart();
    const [channels, usage] = await Promise.all([this.balances.channelsOf(ids), this.usageSince(ids, from)]);
    return rows.map((r) => {
      const spent: Record<string, { units: number; cost: number }> = {};
      for (const ch of CHANNELS as readonly Channel[]) {
        const u = usage.find((x) => x.account_id === r.id && x.channel === ch);
        spent[ch] = { units: Number(u?.units ?? 0), cost: toNumber(money(u?.cost ?? 0)) };
      }
      return {
        username: r.username,
        parent: parent.username,
        name: r.name,
        status: r.status,
        currency: r.currency,
        created_at: new Date(r.created_at).toISOString(),
        balances: channelBalances(channels.filter((c) => c.accountId === r.id)),
        usage: { month: from.toISOString().slice(0, 7), ...spent },
      };
    });
  }
}
