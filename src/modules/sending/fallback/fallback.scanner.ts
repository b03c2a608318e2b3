import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { PeriodicJob } from '../../../platform/periodic/periodic-job.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import type { ApiKey } from '../../api-keys/api-key.entity.js';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import { SmsPolicy } from '../channels/sms/sms.policy.js';
import { SendService } from '../send.service.js';
import { SendingMetrics } from '../sending.metrics.js';
import { FallbackStore, type FallbackSource } from './fallback.store.js';

/** Fallbacks claimed per transaction, and batches per tick (the next tick goes on). */
const PER_BATCH = 500;
const BATCHES_PER_TICK = 20;
/** A claimed fallback not finished by then (its worker died) falls due again. */
export const FALLBACK_LEASE_MS = 60_000;

/**
 * Makes the SMS of chat messages not delivered in time. MySQL is the truth: a chat message's
 * fallback_due_at says when its SMS is due (moved to now when the chat message fails), and each
 * worker asks MySQL every FALLBACK_POLL_MS for those due (and wakes at the due time of one due
 * before the next poll), so a Redis loss or a restart delays a fallback but never loses it.
 * Each is claimed before it is made (SKIP LOCKED and a lease), and made through the one send
 * pipeline as an ordinary SMS under a fixed user_reference_id, so several workers, or a retry
 * after a crash, never make it twice: a repeat answers the first answer, and the SMS's
 * fallback_of is unique.
 */
@Injectable()
export class FallbackScanner extends PeriodicJob<number> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly keys: ApiKeysService,
    private readonly store: FallbackStore,
    private readonly sends: SendService,
    private readonly sms: SmsPolicy,
    private readonly metrics: SendingMetrics,
  ) {
    super(FallbackScanner.name, {
      everyMs: config.fallbackPollMs,
      // A fallback due before the next poll is made when it falls due, not up to a poll late.
      nextDueAt: async () => (await store.nextDue())?.getTime() ?? null,
      failure: 'fallback scan failed',
    });
  }

  /** Makes the fallbacks due now; returns how many chat messages were settled (made or not needed). */
  async scan(): Promise<number> {
    return (await this.runNow()) ?? 0;
  }

  protected async round(stop: AbortSignal): Promise<number> {
    let settled = 0;
    const auths = new Map<string, Promise<AuthContext | null>>();
    for (let batch = 0; batch < BATCHES_PER_TICK && !stop.aborted; batch++) {
      const ids = await this.store.claimDue(new Date(), FALLBACK_LEASE_MS, PER_BATCH);
      if (ids.length === 0) break;
      const rows = await this.store.sources(ids);
      const done: string[] = [];
      // Together, so the send committer writes them in shared transactions.
      await Promise.all(
        rows.map(async (row) => {
          if (await this.fallFor(row, auths)) done.push(String(row.id));
        }),
      );
      await this.store.finish(done);
      settled += done.length;
    }
    return settled;
  }

  /** True when the chat message needs nothing more: its SMS made (or refused for good), or none needed. */
  private async fallFor(
    row: FallbackSource,
    auths: Map<string, Promise<AuthContext | null>>,
  ): Promise<boolean> {
    if (Number(row.made) || row.status === 'DELIVERED' || row.status === 'CANCELLED') return true;
    const test = Boolean(Number(row.test_mode));
    const authKey = `${row.api_key_id}:${test}`;
    if (!auths.has(authKey)) auths.set(authKey, this.authOf(row, test));
    const auth = await auths.get(authKey)!;
    // An account suspended (or its parent) or gone sends nothing more.
    if (!auth) return true;
    try {
      const out = await this.sends.send(this.sms, auth, {
        sender: row.fallback_sender ?? row.sender,
        recipients: [row.recipient],
        body: row.fallback_body ?? row.body,
        callbackUrl: row.callback_url,
        userReferenceId: `fallback-${row.uuid}`,
        priority: row.priority,
        fallbackOf: String(row.id),
      });
      if (!out.replayed) this.metrics.fallbackCreated(out.entries[0]?.status ?? 'REJECTED', 1);
      return true;
    } catch (err) {
      // Made already (another worker's, its answer lost): nothing to do.
      if ((err as Error).message?.includes('uq_messages_fallback_of')) return true;
      // A refusal that retrying will not change (a personalised text too long for SMS).
      if (err instanceof AppException) {
        this.warnings.warn(
          `fallback for chat message ${row.id} refused: ${err.code} ${err.message}`,
          err.code,
        );
        return true;
      }
      this.warnings.warn(`fallback for chat message ${row.id} not made now: ${(err as Error).message}`);
      return false;
    }
  }

  private async authOf(row: FallbackSource, test: boolean): Promise<AuthContext | null> {
    const account = await this.accounts.findById(String(row.account_id));
    if (!account || account.status !== 'active') return null;
    // A suspended parent suspends its sub-accounts: their fallbacks are not made (nor charged) either.
    const parent = account.parentId ? await this.accounts.findById(account.parentId) : null;
    if (parent && parent.status !== 'active') return null;
    const found = await this.keys.get(String(row.api_key_id)).catch(() => null);
    // The chat's own key, for its daily limit and priority; its side (live or test) as the chat's.
    const key = found ?? ({ id: String(row.api_key_id), accountId: account.id, name: 'fallback' } as ApiKey);
    key.mode = test ? 'test' : 'live';
    // The parent too: its daily limit covers the sub-account's fallback SMS as any send.
    return { account, key, parent };
  }
}
