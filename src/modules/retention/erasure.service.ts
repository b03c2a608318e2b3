import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { normaliseEmail, normalisePhone } from '../messages/recipients.js';
import { ErasureStore, type ErasedRows, type ErasureScope } from './erasure.store.js';
import { eraseFromArchive } from './archive-erasure.js';
import { RetentionStore } from './retention.store.js';

/** What an erased number or address becomes in every row and archive line that held it. */
export const ERASED = 'erased';

/** How long an erasure waits for a prune that is writing the archive. */
const LOCK_WAIT_SECONDS = 10;

export interface ErasureResult {
  recipient: string;
  rows: ErasedRows & { archived_messages: number };
  total: number;
  /** Messages to the recipient not yet in a final state: left as they are, erase again once they end. */
  pending: number;
}

/**
 * Erases a recipient from an account's data: the number (or address) and the text of every
 * final message to it, the text of requests sent to it alone, the inbound messages it sent, and
 * its lines in the archive. Amounts, states and times stay (the ledger and the summaries still
 * add up); suppression entries stay, since they exist to keep the number from being messaged.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly store: ErasureStore,
    private readonly retention: RetentionStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async eraseRecipient(scope: ErasureScope, raw: string): Promise<ErasureResult> {
    const check = raw.includes('@') ? normaliseEmail(raw) : normalisePhone(raw);
    if (!check.ok)
      throw AppException.validation([{ field: 'recipient', message: 'a phone number or an e-mail address' }]);
    const recipient = check.value;
    // Archive lines carry no test flag: a test key's erasure stays on the test side of the tables.
    const archiveDir = scope.testMode ? undefined : this.config.retention.archiveDir;
    const work = async (): Promise<ErasureResult> => {
      const { ids, requestIds, pending } = await this.store.messagesTo(scope, recipient);
      const erased = await this.store.erase(ids, requestIds, ERASED);
      const inbound = await this.store.eraseInbound(scope, recipient, ERASED);
      const archived = archiveDir
        ? await eraseFromArchive(archiveDir, scope.accountId, recipient, ERASED)
        : 0;
      const rows = { ...erased, inbound_messages: inbound, archived_messages: archived };
      return { recipient, rows, total: Object.values(rows).reduce((a, b) => a + b, 0), pending };
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
