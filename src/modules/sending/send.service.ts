import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../api-keys/auth/auth-context.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { BalanceService } from '../balance/balance.service.js';
import { InsufficientBalance } from '../balance/ledger.store.js';
import { DispatchProducer, waitingChunks } from '../delivery/dispatch/dispatch.producer.js';
import { WebhookEvents } from '../callbacks/webhooks/webhook-events.service.js';
import type { ChannelPolicy, SendInput } from './channel-policy.js';
import { IdGenerator } from './id.generator.js';
import { DuplicateReference, SendAlreadyMade, SendCommitter, type AfterCommit } from './send.committer.js';
import type { Claim } from '../idempotency/idempotency.store.js';
import { SpendLimitExceeded } from '../balance/spend-limits.service.js';
import { isTestKey, spendLimitRefusal } from './send-mode.js';
import type { SendOutcome, SendPreview } from './send.types.js';
import { storedSend, type Alongside } from './stored-send.js';
import { refuseAccepted, storedRefusal } from './stored-refusals.js';
import { TestQuota } from './test-quota.service.js';
import { SendingMetrics } from './sending.metrics.js';
import { ShortLinks } from '../links/short-links.service.js';
import { familyRoot } from '../accounts/family.js';
import { SendPreparation } from './send-preparation.service.js';
import { SendReplay } from './send-replay.service.js';

/**
 * The one send pipeline for every channel: normalise recipients, price (SendPreparation), store
 * the request, its messages and the charge in ONE transaction, then enqueue dispatch jobs; a
 * repeat gets the first answer (SendReplay).
 */
@Injectable()
export class SendService {
  constructor(
    private readonly ids: IdGenerator,
    private readonly preparation: SendPreparation,
    private readonly replays: SendReplay,
    private readonly balances: BalanceService,
    private readonly dispatch: DispatchProducer,
    private readonly committer: SendCommitter,
    private readonly sendingMetrics: SendingMetrics,
    private readonly testQuota: TestQuota,
    private readonly webhooks: WebhookEvents,
    private readonly shortLinks: ShortLinks,
  ) {}

  /**
   * `claim`: the Idempotency-Key the request holds, if it came with one (IdempotencyGuard);
   * `alongside`: the caller's rows to write in the send's transaction; `afterCommit`: its read of
   * what the send left, sent with the COMMIT where it can be.
   */
  async send(
    policy: ChannelPolicy,
    auth: AuthContext,
    input: SendInput,
    claim?: Claim,
    alongside?: Alongside,
    afterCommit?: AfterCommit,
  ): Promise<SendOutcome> {
    const { channel } = policy;
    const p = await this.preparation.prepare(policy, auth, input);
    const priority = p.input.priority ?? auth.key.priority ?? 'normal';
    const apiReference = this.ids.next();
    const createdAt = new Date();
    // Test keys cost nothing, so their volume is capped per account and day instead.
    const quota = isTestKey(auth)
      ? await this.testQuota.take(familyRoot(auth.account), p.accepted.length)
      : null;
    const stored = () =>
      storedSend(
        p,
        auth,
        channel,
        {
          apiReference,
          createdAt,
          priority,
          suppressionExempt: input.ignoreSuppressions === true,
          idempotencyClaim: claim?.id ?? null,
          alongside,
          afterCommit,
        },
        this.shortLinks,
      );

    try {
      await this.committer.commit(stored()).catch(async (err: unknown) => {
        // A fallback SMS the balance or a limit refuses is stored REJECTED with that reason (an SMPP submit a limit refuses too).
        const refusal = storedRefusal(input, err);
        if (!refusal) throw err;
        refuseAccepted(p, refusal);
        await this.committer.commit(stored());
      });
    } catch (err) {
      if (quota) await this.testQuota.giveBack(quota);
      if (err instanceof DuplicateReference) {
        const first = await this.replays.ofReference(auth, channel, p.input.userReferenceId!, p.requestHash);
        return { ...first, replaced: p.plan.replaced };
      }
      // An earlier attempt under this Idempotency-Key made the send, and its answer was never kept.
      if (err instanceof SendAlreadyMade)
        return { ...(await this.replays.ofIdempotencyKey(claim!.id, channel)), replaced: p.plan.replaced };
      if (err instanceof InsufficientBalance) {
        throw new AppException(
          'INSUFFICIENT_BALANCE',
          `The ${channel} balance cannot pay for this request: it costs ${err.needed} ${auth.account.currency}, the balance is ${err.available}.`,
          [{ field: 'balance', message: `needed ${err.needed}, available ${err.available}` }],
        );
      }
      if (err instanceof SpendLimitExceeded) {
        this.sendingMetrics.spendLimitRefused(err.scope);
        throw spendLimitRefusal(err, p.priced.total, auth.account.currency);
      }
      throw err;
    }

    const { entries, accepted, plan, priced, schedule, deferred } = p;
    await this.webhooks.accepted({
      accountId: auth.account.id,
      test: isTestKey(auth),
      channel,
      apiReference,
      userReferenceId: p.input.userReferenceId ?? null,
      at: createdAt,
      entries,
    });
    const cost = priced.total;
    const unitsPerRecipient = priced.maxUnits;
    this.sendingMetrics.sendCommitted(channel, accepted.length, entries.length - accepted.length);
    if (isTestKey(auth)) this.sendingMetrics.testRequestAccepted(channel);
    if (deferred) this.sendingMetrics.windowDeferred(channel, deferred);
    if (accepted.length === 0) {
      // Nothing to send (a fallback SMS stored REJECTED).
    } else if (!schedule.sendAt && deferred === 0) {
      // Never rejects: jobs that do not reach Redis are left to the recovery sweep.
      const queued = this.dispatch.enqueue(
        channel,
        apiReference,
        accepted.map((e) => e.messageId),
        priority,
        isTestKey(auth),
      );
      if (!input.answerOnceStored) await queued;
    }
    // Some wait for their window: the others go now, in the chunks the due scanner and the
    // recovery sweep cut (by place among the request's accepted messages).
    else if (!schedule.sendAt && deferred < accepted.length)
      await this.dispatch.enqueueChunks(
        channel,
        apiReference,
        waitingChunks(accepted.map((e) => ({ id: e.messageId, status: e.status }))),
        priority,
        isTestKey(auth),
      );
    return {
      apiReference,
      channel,
      entries: entries.map(({ messageId, uuid, recipient, status, reason, sendAt }) => ({
        messageId,
        uuid,
        recipient,
        status,
        reason,
        sendAt,
      })),
      acceptedCount: accepted.length,
      unitsPerRecipient,
      cost,
      currency: auth.account.currency,
      createdAt,
      replayed: false,
      sendAt: schedule.sendAt?.toISOString() ?? null,
      priority,
      replaced: plan.replaced,
    };
  }

  /**
   * The send without its last steps: the same checks, texts and prices as `send`, then the
   * balance it would be paid from. Nothing is stored, charged or queued.
   */
  async preview(policy: ChannelPolicy, auth: AuthContext, input: SendInput): Promise<SendPreview> {
    const p = await this.preparation.prepare(policy, auth, input);
    const { balance } = await this.balances.channel(auth.account.id, policy.channel);
    return {
      entries: p.entries.map((e, i) => ({
        recipient: e.recipient,
        status: e.status,
        reason: e.reason,
        measure: p.plan.measures[i],
        cost: p.priced.costs[i] ?? '0',
        sendAt: e.status === 'SCHEDULED' ? (e.sendAt ?? p.schedule.sendAt ?? undefined) : undefined,
      })),
      acceptedCount: p.accepted.length,
      cost: p.priced.total,
      currency: auth.account.currency,
      balance,
      replaced: p.plan.replaced,
      nonGsmCharacters: p.plan.nonGsmCharacters,
    };
  }
}
