import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { MicroBatcher, type ItemOutcome } from '../../platform/batching/micro-batcher.js';
import { BalanceService } from '../balance/balance.service.js';
import { debitStatements } from '../balance/ledger.store.js';
import { SpendLimits, hasLimit, type SpendCharge } from '../balance/spend-limits.service.js';
import type { Statement } from '../../database/statement.js';
import { MessageStore, type MessageGroup, type NewSendRequest } from '../messages/message.store.js';
import { messagesInserts, requestsInsert } from '../messages/message-inserts.js';
import type { Channel } from '../messages/channel.js';
import { IdempotencyStore, linkSendStatement } from '../idempotency/idempotency.store.js';
import { SendBatchStore, type BatchStatement } from './send-batch.store.js';
import { ShortLinkStore, shortLinksInserts, type NewShortLink } from '../links/short-link.store.js';

/** Everything one accepted send writes, computed before the transaction. */
export interface PreparedSend {
  request: NewSendRequest;
  messages: MessageGroup;
  /** The short links of its messages (shorten_links), written with them. */
  links?: NewShortLink[];
  charge: { accountId: string; channel: Channel; amount: string; sendRequestId: string };
  /** What counts toward the daily spend limits; null for a test request (it counts toward none). */
  spend?: SpendCharge | null;
  /** The Idempotency-Key's claim id, tied to the send in its transaction; null without the header. */
  idempotencyClaim?: string | null;
  /** Rows of the caller's own tables that stand or fall with the send (a verification's), written in its transaction. */
  alongside?: Statement[];
  /** The caller's read of what the send left, sent with its COMMIT when it can be (AfterCommit). */
  afterCommit?: AfterCommit;
}

/**
 * A read of the caller's own tables that must see the send committed (a verification's older
 * pending ones to its number): sent in the COMMIT's round trip when the send is written with
 * others at once, and `read` handed its rows. A send written another way (alone, statement by
 * statement) never runs it, and `read` is not called: the caller reads for itself then.
 */
export interface AfterCommit {
  statement: Statement;
  read(rows: unknown[]): void;
}

export class DuplicateReference extends Error {}
/** The request's Idempotency-Key is already tied to a send (made by an earlier attempt): this one is not stored. */
export class SendAlreadyMade extends Error {}
class AlreadyStored extends Error {}

const MYSQL_DUP = 1062;
/** Requests with more messages than this are written alone: they already amortise their round trips. */
const ALONE_ABOVE = 200;
const MAX_BATCH = 100;

/**
 * Group commit for sends. Requests that arrive while a commit is in flight are written
 * together in ONE transaction: one multi-row INSERT of requests, one of messages, one
 * conditional debit per account and channel, one multi-row INSERT of ledger rows. Under load
 * this divides round trips and commits, and the hot balance row is locked once per batch
 * rather than once per request. If anything in a batch fails (a balance that cannot pay, a
 * repeated user_reference_id), each of its requests is written again on its own, so one
 * request's problem never becomes another's and each gets its own exact answer.
 *
 * A batch whose messages fit one INSERT and whose charges have no daily limit to check (the
 * common case) is written in one round trip: START TRANSACTION, every statement and COMMIT in
 * one multi-statement query, where a debit that does not change its row (or a tie to an
 * Idempotency-Key already taken) stops the query before its COMMIT (SendBatchStore; the
 * requests are then written one by one as above): under load each round trip also waits for
 * the event loop (docs/performance.md#round-trips).
 */
@Injectable()
export class SendCommitter {
  private readonly batcher = new MicroBatcher<PreparedSend>({
    maxBatch: MAX_BATCH,
    flush: (sends) => this.writeBatch(sends),
  });

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly balances: BalanceService,
    private readonly store: MessageStore,
    private readonly spend: SpendLimits,
    private readonly idempotency: IdempotencyStore,
    private readonly batches: SendBatchStore,
    private readonly shortLinks: ShortLinkStore,
  ) {}

  /** Not async: most sends go straight to the batch, with no promise of their own (docs/performance.md#promises). */
  commit(send: PreparedSend): Promise<void> {
    if (this.spend.needsPrepare(send.spend))
      return this.spend.prepare(send.spend).then(() => this.enqueue(send));
    return this.enqueue(send);
  }

  /** Large sends are written alone; the rest join the next batch. */
  private enqueue(send: PreparedSend): Promise<void> {
    if (send.messages.rows.length > ALONE_ABOVE) return this.write([send]);
    return this.batcher.push(send);
  }

  private async writeBatch(batch: PreparedSend[]): Promise<ItemOutcome<void>[] | void> {
    let plain = false;
    try {
      // Null when the batch cannot be written at once: nothing was written, nothing to wait for.
      const atOnce = this.writeAtOnce(batch);
      if (atOnce) {
        await atOnce;
        return;
      }
      plain = true;
      await this.write(batch);
    } catch (err) {
      // A request alone that failed statement by statement has its exact error already.
      if (plain && batch.length === 1) throw err;
      return Promise.allSettled(
        batch.map((send) =>
          this.write([send]).catch((e) => {
            if (!(e instanceof AlreadyStored)) throw e;
          }),
        ),
      );
    }
  }

  /**
   * The batch in one round trip, when it can be (else null, and nothing was written): one
   * INSERT of messages at most, and no daily limit to check. Each debit and each tie to an
   * Idempotency-Key must change its one row, or nothing is committed. Its promise rejects when
   * the transaction did not commit (a balance that cannot pay, a key already tied to a send: each
   * request written again alone finds out which), or when its answer was lost.
   */
  private writeAtOnce(sends: PreparedSend[]): Promise<void> | null {
    const spend = sends.flatMap((s) => (s.spend ? [s.spend] : []));
    if (hasLimit(spend)) return null;
    const messages = messagesInserts(sends.map((s) => s.messages));
    const first = messages.next();
    if (first.done || !messages.next().done) return null;
    const debit = debitStatements(sends.map((s) => s.charge));
    const upsert = this.spend.unlimitedCharge(spend);
    const statements: BatchStatement[] = [
      requestsInsert(sends.map((s) => s.request)),
      first.value,
      ...shortLinksInserts(linksOf(sends)),
    ];
    for (const s of sends)
      if (s.idempotencyClaim)
        statements.push({ ...linkSendStatement(s.idempotencyClaim, s.request.id), oneRow: true });
    for (const s of sends) if (s.alongside) for (const a of s.alongside) statements.push(a);
    if (debit) {
      for (const d of debit.debits) statements.push({ ...d, oneRow: true });
      statements.push(debit.ledger);
    }
    if (upsert) statements.push(upsert);
    const reads: AfterCommit[] = [];
    for (const s of sends) if (s.afterCommit) reads.push(s.afterCommit);
    return this.batches
      .commitAtOnce(
        statements,
        reads.map((r) => r.statement),
      )
      .then((rows) => {
        for (let i = 0; i < reads.length; i++) reads[i]!.read(rows[i] ?? []);
      });
  }

  /** Ties the send to its Idempotency-Key, unless an earlier attempt under the key made one. */
  private async link(em: EntityManager, claimId: string, sendRequestId: string): Promise<void> {
    if (!(await this.idempotency.linkSend(em, claimId, sendRequestId))) throw new SendAlreadyMade();
  }

  private async write(sends: PreparedSend[]): Promise<void> {
    await this.ds.transaction(async (em) => {
      // The request rows go first: a racing duplicate of user_reference_id waits on its unique key here.
      try {
        await this.store.insertRequests(
          em,
          sends.map((s) => s.request),
        );
      } catch (err) {
        if ((err as { errno?: number }).errno === MYSQL_DUP) {
          // Our own new id already there: the batch this request was in did commit, but the COMMIT's
          // acknowledgement was lost (connection dropped). It is stored in full: not a duplicate reference.
          if (/for key '(?:\w+\.)?PRIMARY'/.test((err as Error).message)) throw new AlreadyStored();
          throw new DuplicateReference();
        }
        throw err;
      }
      for (const s of sends) if (s.idempotencyClaim) await this.link(em, s.idempotencyClaim, s.request.id);
      await this.store.insertMessages(
        em,
        sends.map((s) => s.messages),
      );
      await this.shortLinks.insert(em, linksOf(sends));
      for (const s of sends) if (s.alongside) await this.batches.runEach(em, s.alongside);
      // The debit comes last so the hot balance row stays locked for as short a time as possible.
      await this.balances.debit(
        em,
        sends.map((s) => s.charge),
      );
      await this.spend.charge(
        em,
        sends.flatMap((s) => (s.spend ? [s.spend] : [])),
      );
    });
  }
}

/** The short links of a batch's sends, in one list (most sends have none). */
function linksOf(sends: PreparedSend[]): NewShortLink[] {
  const out: NewShortLink[] = [];
  for (const s of sends) if (s.links) for (const l of s.links) out.push(l);
  return out;
}
