import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { normaliseEmail, normalisePhone } from '../messages/recipients.js';
import { ErasureStore, type ErasedRows, type ErasureScope } from './erasure.store.js';
import { eraseFromArchive } from './archive-erasure.js';
import { RetentionStore } from './retention.store.js';
import { ShortLinkStore } from '../links/short-link.store.js';
import { FairQueue, LaneFull } from '../../platform/queueing/fair-queue.js';
import { holdRefusal } from '../api-keys/auth/auth-throttle.service.js';

/** What an erased number or address becomes in every row and archive line that held it. */
export const ERASED = 'erased';

/** The number or address as a send stores it; undefined when it is neither. */
function normaliseRecipient(raw: string): string | undefined {
  const check = raw.includes('@') ? normaliseEmail(raw) : normalisePhone(raw);
  return check.ok ? check.value : undefined;
}

/** A URL path segment as written before encoding (itself when it is not valid percent-encoding). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** How long an erasure waits for a prune that is writing the archive. */
const LOCK_WAIT_SECONDS = 10;

/**
 * Erasures a process runs at once, one per tenant (a parent and its sub-accounts together), and
 * how many of one tenant's may run or wait before the next is refused with 429.
 */
export const ERASURE_LIMITS = { concurrency: 2, runningPerLane: 1, perLane: 10 } as const;

export interface ErasureResult {
  recipient: string;
  /** Rows changed per table, and archived message lines rewritten. */
  rows: ErasedRows & { archived_messages: number };
  /** Archive files rewritten (each replaced whole, its index entry recomputed). */
  archive_files: number;
  /** Every row and archived line changed. */
  total: number;
  /**
   * Messages to the recipient not yet in a final state, and its verifications still pending: left
   * as they are, erase again once they end.
   */
  pending: number;
}

/**
 * Erases a recipient from an account's data: the number (or address) and the text of every
 * final message to it, the text of requests sent to it alone, the inbound messages it sent,
 * its closed verifications, the callback events about them not yet delivered, the webhook
 * delivery log's envelopes about them, the kept answers of idempotent requests,
 * request log paths that name it, the short links of those messages, and its lines in the archive. Amounts, states and times stay
 * (the ledger and the summaries still add up); suppression entries stay, since they exist to keep
 * the number from being messaged.
 */
@Injectable()
export class ErasureService {
  /**
   * A tenant's erasures, one at a time in turn with other tenants'. An erasure is some ten
   * statements and the archive's files: ten of one tenant's at once took another tenant's send
   * p50 from 40 to 177 ms (bench B11); in turn, the tenant's own wait in line instead.
   */
  private readonly queue = new FairQueue(ERASURE_LIMITS);

  constructor(
    private readonly store: ErasureStore,
    private readonly retention: RetentionStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly links: ShortLinkStore,
  ) {}

  /**
   * An erasure asked for over HTTP: run in `tenant`'s turn (ERASURE_LIMITS); 429 when the
   * tenant already has as many running or waiting as it may.
   */
  async eraseInTurn(tenant: string, scope: ErasureScope, raw: string): Promise<ErasureResult> {
    try {
      return await this.queue.run(tenant, () => this.eraseRecipient(scope, raw));
    } catch (err) {
      if (!(err instanceof LaneFull)) throw err;
      await holdRefusal(this.config.authThrottle.refusalDelayMs);
      throw new AppException(
        'RATE_LIMITED',
        `Too many erasures of this account are under way (${ERASURE_LIMITS.perLane} at most); retry after 1 s.`,
        [],
        { 'Retry-After': '1' },
      );
    }
  }

  async eraseRecipient(scope: ErasureScope, raw: string): Promise<ErasureResult> {
    const recipient = normaliseRecipient(raw);
    if (recipient === undefined)
      throw AppException.validation([{ field: 'recipient', message: 'a phone number or an e-mail address' }]);
    const names = (segment: string) => normaliseRecipient(decodeSegment(segment)) === recipient;
    // Archive lines carry no test flag: a test key's erasure stays on the test side of the tables.
    const archiveDir = scope.testMode ? undefined : this.config.retention.archiveDir;
    const work = async (): Promise<ErasureResult> => {
      const { ids, requestIds, pending, pendingIds } = await this.store.messagesTo(scope, recipient);
      const erased = await this.store.erase(ids, requestIds, ERASED);
      const inbound = await this.store.eraseInbound(scope, recipient, ERASED);
      const verifications = await this.store.eraseVerifications(scope, recipient, ERASED);
      // Events about messages still under way are left as the messages are.
      const stillPending = new Set(pendingIds);
      const outbox = await this.store.eraseOutbox(
        scope,
        recipient,
        { messages: new Set(ids), inbound: new Set(inbound), pending: stillPending },
        ERASED,
      );
      const deliveries = await this.store.eraseWebhookDeliveries(scope, {
        recipient,
        replacement: ERASED,
        pending: stillPending,
      });
      const archive = archiveDir
        ? await eraseFromArchive(archiveDir, { accountId: scope.accountId, recipient, replacement: ERASED })
        : { lines: {}, files: 0 };
      const rows = {
        ...erased,
        inbound_messages: inbound.length,
        verifications: verifications.verifications,
        callback_outbox: outbox,
        webhook_deliveries: deliveries,
        idempotency_keys: await this.store.eraseKeptAnswers(scope, recipient, ERASED),
        request_logs: await this.store.eraseRequestLogs(scope, recipient, names, ERASED),
        // The short links of those messages: they answer 404 from then on.
        short_links: await this.links.removeOfMessages(ids),
        archived_messages: archive.lines.messages ?? 0,
      };
      const total = Object.values(rows).reduce((a, b) => a + b, 0);
      return {
        recipient,
        rows,
        archive_files: archive.files,
        total,
        pending: pending + verifications.pending,
      };
    };
    if (!archiveDir) return work();
    // A prune holding rows it read before the erasure would archive the number again: wait for it.
    const result = await this.retention.exclusively(this.retention.lockName(), work, LOCK_WAIT_SECONDS);
    if (!result)
      throw new AppException(
        'SERVICE_UNAVAILABLE',
        'A prune is writing the archive; nothing was erased. Retry in a minute.',
        [],
        { 'Retry-After': '60' },
      );
    return result;
  }
}
