import { Injectable } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import type { EntityManager } from 'typeorm';
import { isPositive, money } from '../../platform/money/money.js';
import { utcDay } from './daily-limit.js';
import { withFields } from '../../platform/objects/with-fields.js';
import type { Statement } from '../../database/statement.js';
import { DailySpendStore, addSpentStatement, type SpendOwner, type SpendScope } from './daily-spend.store.js';

/** What one live send adds to its account's and its key's spend of the day, and their limits. */
export interface SpendCharge {
  accountId: string;
  apiKeyId: string;
  amount: string;
  /** When the request was accepted: its UTC day is the one charged. */
  at: Date;
  /** The limits as the request's key and account were read (null: none). */
  accountLimit: string | null;
  keyLimit: string | null;
  /**
   * A sub-account's parent, and the parent's account limit as it was read: the parent's row
   * counts its whole family's spend, so that limit covers the sub-accounts' sends too.
   */
  parentId?: string | null;
  parentLimit?: string | null;
}

/** Whose limit refused a charge: the key's, its account's, or (for a sub-account) its parent's. */
export type LimitScope = SpendScope | 'parent';

export class SpendLimitExceeded extends Error {
  constructor(
    readonly scope: LimitScope,
    readonly limit: string,
    /** What is left of the tighter limit today (never negative). */
    readonly remaining: string,
  ) {
    super('spend limit exceeded');
  }
}

const ownerKey = (o: SpendOwner) => `${o.scope}:${o.ownerId.padStart(20, '0')}:${o.day}`;
/** Whether any of the charges has a daily limit to check (else the spend is only added up). */
export function hasLimit(charges: SpendCharge[]): boolean {
  return charges.some(
    (c) =>
      isPositive(c.amount) &&
      (c.accountLimit !== null || c.keyLimit !== null || (!!c.parentId && (c.parentLimit ?? null) !== null)),
  );
}

/**
 * The rows of the charge's day it adds to, with their limits: its account's and its key's, and
 * for a sub-account its parent's (the family's total, which the parent's limit is checked on).
 */
function chargedOwners(c: SpendCharge) {
  const day = utcDay(c.at);
  const owners: Array<SpendOwner & { role: LimitScope; limit: string | null }> = [
    { scope: 'account', role: 'account', ownerId: c.accountId, day, limit: c.accountLimit },
    { scope: 'key', role: 'key', ownerId: c.apiKeyId, day, limit: c.keyLimit },
  ];
  if (c.parentId)
    owners.push({ scope: 'account', role: 'parent', ownerId: c.parentId, day, limit: c.parentLimit ?? null });
  return owners;
}

/** The paid charges, and every row they touch once, in primary-key order (the order rows are locked in). */
function ownersOf(charges: SpendCharge[]) {
  const paid = charges.filter((c) => isPositive(c.amount));
  const owners = new Map<string, SpendOwner & { spent: Decimal; added: Decimal }>();
  for (const c of paid)
    for (const o of chargedOwners(c))
      if (!owners.has(ownerKey(o)))
        owners.set(ownerKey(o), {
          scope: o.scope,
          ownerId: o.ownerId,
          day: o.day,
          spent: new Decimal(0),
          added: new Decimal(0),
        });
  const sorted = [...owners.keys()].sort().map((k) => owners.get(k)!);
  return { paid, owners, sorted };
}

/**
 * The rows charges none of which has a limit touch, each with what they add, in primary-key
 * order; null when nothing is charged.
 */
function unlimitedTotals(charges: SpendCharge[]) {
  const { paid, owners, sorted } = ownersOf(charges);
  if (paid.length === 0) return null;
  for (const c of paid) {
    for (const o of chargedOwners(c)) {
      const row = owners.get(ownerKey(o))!;
      row.added = row.added.plus(c.amount);
    }
  }
  return sorted;
}

/** Bounds the memory of which rows exist: a day's rows for many owners are cheap to re-check. */
const MAX_KNOWN_ROWS = 100_000;

/**
 * Daily spend per account and per key, kept in `daily_spend` (one row per owner and UTC day,
 * net of refunds); a parent account's row counts its sub-accounts' charges too, so an operator's
 * limit on a parent covers the family. The send transaction locks the rows it charges (SELECT …
 * FOR UPDATE, in primary-key order, after the balance row as every money transaction does: a
 * parent's row before its sub-account's, whose id is higher), checks each
 * request against the limits in arrival order, and adds the totals: however many transactions
 * race, none sees a total that another has not committed, so no limit is ever crossed.
 * The rows are created before the transaction (INSERT IGNORE, remembered per process), so the
 * locking read never meets a missing row (two first sends of a day would otherwise deadlock on
 * the gap where the row goes).
 */
@Injectable()
export class SpendLimits {
  private readonly known = new Set<string>();

  constructor(private readonly store: DailySpendStore) {}

  /**
   * Whether prepare has rows to create: false once this process knows the day's rows exist, so
   * a send does not wait on prepare for nothing.
   */
  needsPrepare(charge: SpendCharge | null | undefined): boolean {
    return this.missingOwners(charge).length > 0;
  }

  /** Outside any transaction: makes sure the day's rows of the charge's account and key exist. */
  async prepare(charge: SpendCharge | null | undefined): Promise<void> {
    const owners = this.missingOwners(charge);
    if (owners.length === 0) return;
    await this.store.createRows(owners);
    if (this.known.size > MAX_KNOWN_ROWS) this.known.clear();
    for (const o of owners) this.known.add(ownerKey(o));
  }

  /**
   * The day's rows of the charge's account and key not yet known to exist, in primary-key order:
   * the INSERT IGNORE that makes them share-locks each row already there, one after another, and
   * a send racing it locks the same rows in that order. In any other order (a sub-account's row
   * before its parent's) the two wait on each other: 1 in 6 runs of 20 racing family sends
   * deadlocked.
   */
  private missingOwners(charge: SpendCharge | null | undefined) {
    if (!charge || !isPositive(charge.amount)) return [];
    return chargedOwners(charge)
      .map(({ scope, ownerId, day }) => ({ scope, ownerId, day }))
      .filter((o) => !this.known.has(ownerKey(o)))
      .sort((a, b) => (ownerKey(a) < ownerKey(b) ? -1 : 1));
  }

  /**
   * In the send transaction: adds each charge to its account's and key's spend of the day, or
   * throws SpendLimitExceeded (rolling the whole transaction back) for the first charge that
   * would cross a limit.
   */
  async charge(em: EntityManager, charges: SpendCharge[]): Promise<void> {
    if (!hasLimit(charges)) {
      const totals = unlimitedTotals(charges);
      if (totals) await this.store.addSpent(em, totals);
      return;
    }
    const { paid, owners, sorted } = ownersOf(charges);
    const rows = await this.store.lock(em, sorted);
    for (const r of rows) {
      const o = owners.get(ownerKey({ scope: r.scope, ownerId: String(r.owner_id), day: r.day }));
      if (o) o.spent = new Decimal(r.spent);
    }
    for (const c of paid) {
      const mine = chargedOwners(c).map((o) => withFields(o, { row: owners.get(ownerKey(o))! }));
      const limited = mine.filter((o) => o.limit !== null);
      const left = limited.map((o) => ({
        o,
        remaining: Decimal.max(0, new Decimal(o.limit!).minus(o.row.spent).minus(o.row.added)),
      }));
      const over = left.find((l) => l.remaining.lessThan(c.amount));
      if (over) {
        const tightest = left.reduce((a, b) => (b.remaining.lessThan(a.remaining) ? b : a));
        throw new SpendLimitExceeded(over.o.role, money(over.o.limit!), money(tightest.remaining));
      }
      for (const o of mine) o.row.added = o.row.added.plus(c.amount);
    }
    await this.store.addSpent(em, sorted);
  }

  /**
   * What `charge` runs for charges none of which has a limit: nothing to check, one upsert that
   * adds the totals (locking the same rows, in the same order, as a limited batch racing it,
   * which waits on them). Null when nothing is charged. Only for charges without a limit.
   */
  unlimitedCharge(charges: SpendCharge[]): Statement | null {
    const totals = unlimitedTotals(charges);
    return totals && addSpentStatement(totals);
  }

  /**
   * In a refund's transaction: gives each refunded amount back to the day it was charged on,
   * on the rows the charge added to (its account's, its key's and, for a sub-account, its
   * parent's), in one statement that locks them in primary-key order as a send does.
   */
  async giveBack(
    em: EntityManager,
    refunds: Array<{
      accountId: string;
      apiKeyId: string;
      parentId?: string | null;
      amount: string;
      chargedAt: Date;
    }>,
  ): Promise<void> {
    const rows = new Map<string, SpendOwner & { amount: Decimal }>();
    for (const r of refunds) {
      if (!isPositive(r.amount)) continue;
      const day = utcDay(r.chargedAt);
      const owners: SpendOwner[] = [
        { scope: 'account', ownerId: r.accountId, day },
        { scope: 'key', ownerId: r.apiKeyId, day },
      ];
      if (r.parentId) owners.push({ scope: 'account', ownerId: r.parentId, day });
      for (const o of owners) {
        const row = rows.get(ownerKey(o)) ?? { ...o, amount: new Decimal(0) };
        row.amount = row.amount.plus(r.amount);
        rows.set(ownerKey(o), row);
      }
    }
    if (rows.size === 0) return;
    await this.store.giveBack(
      em,
      [...rows.keys()].sort().map((k) => {
        const { amount, ...o } = rows.get(k)!;
        return { ...o, amount: money(amount) };
      }),
    );
  }

  /** What several accounts have spent today (UTC) together, net of refunds: a parent's sub-accounts. */
  async spentTodayTogether(accountIds: string[], now = new Date()): Promise<string> {
    return money(await this.store.spentTogether('account', accountIds, utcDay(now)));
  }

  /**
   * What an account or key has spent today (UTC), net of refunds. A parent account's row holds
   * its sub-accounts' spend too: the family's.
   */
  async spentToday(scope: SpendScope, ownerId: string, now = new Date()): Promise<string> {
    return money((await this.store.spent({ scope, ownerId, day: utcDay(now) })) ?? 0);
  }
}
