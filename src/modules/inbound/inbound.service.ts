import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { RepeatLimiter } from '../../platform/logging/repeat-limiter.js';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import type { Account } from '../accounts/account.entity.js';
import { AccountsService } from '../accounts/accounts.service.js';
import type { ApiKey } from '../api-keys/api-key.entity.js';
import { CallbackOutbox } from '../callbacks/callback.outbox.js';
import type { InboundSink, InboundSms } from '../delivery/transports/transport.js';
import { PumpingGuard, type Admitted } from '../fraud/pumping/pumping.guard.js';
import { SmsPolicy } from '../sending/channels/sms/sms.policy.js';
import { SendService } from '../sending/send.service.js';
import { InboundMetrics } from './inbound.metrics.js';
import { InboundReceiver, type InboundSource, type Received } from './inbound.receiver.js';
import { InboundStore, type InboundRow } from './inbound.store.js';

const REPLIES_PER_ROUND = 200;
/** Parts of a concatenated message whose other parts have not come within this long are dropped. */
const PART_TTL_MS = 24 * 3600_000;

/**
 * Inbound messages in a process with queues (an API with workers, a worker): the receiving path
 * (InboundReceiver), then at once the webhook events queued and the auto-replies sent. A round
 * every SWEEP_INTERVAL_MS sends the replies still pending after SWEEP_MIN_AGE_MS (stored by the
 * CLI, or by a process that stopped first); webhook events kept but not queued are the
 * callback sweep's.
 */
@Injectable()
export class InboundService implements InboundSink, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Inbound');
  private readonly warnings = new RepeatLimiter(this.logger);
  private readonly task: PeriodicTask;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accountsService: AccountsService,
    private readonly receiver: InboundReceiver,
    private readonly store: InboundStore,
    private readonly outbox: CallbackOutbox,
    private readonly sends: SendService,
    private readonly sms: SmsPolicy,
    @Inject(InboundMetrics) private readonly metrics: InboundMetrics,
    private readonly pumping: PumpingGuard,
  ) {
    this.task = new PeriodicTask({
      run: () => this.round(),
      everyMs: config.sweepIntervalMs,
      logger: this.logger,
      warnings: this.warnings,
      failure: 'inbound sweep failed',
      cause: 'sweep',
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** The transports' entry (SMPP deliver_sm): resolves once stored, so the SMSC is answered only then. */
  async receive(sms: InboundSms): Promise<void> {
    await this.handle(sms, 'smpp');
  }

  async handle(sms: InboundSms, source: InboundSource): Promise<Received> {
    const received = await this.receiver.receive(sms, source);
    for (const row of received.rows) this.metrics.received(row.keyword);
    if (received.webhooks.length) await this.outbox.queue(received.webhooks);
    if (received.rows.some((r) => r.reply_text))
      void this.reply(received.rows).catch((err: Error) =>
        this.warnings.warn(`auto-reply not sent yet (${err.message}); the sweep retries`, 'reply'),
      );
    return received;
  }

  async sweep(): Promise<void> {
    await this.task.run();
  }

  private async round(): Promise<void> {
    const pending = await this.store.pendingReplies(
      new Date(Date.now() - this.config.sweepMinAgeMs),
      REPLIES_PER_ROUND,
    );
    if (pending.length) await this.reply(pending);
    await this.store.dropStaleParts(new Date(Date.now() - PART_TTL_MS));
  }

  /**
   * Each auto-reply is an ordinary, charged SMS from the number written to. Its
   * user_reference_id is fixed per inbound message, so a reply sent twice (by this process and
   * the sweep) is stored and charged once.
   */
  private async reply(rows: InboundRow[]): Promise<void> {
    const done: string[] = [];
    const accounts = new Map<string, Account | null>();
    for (const row of rows) {
      if (!row.reply_text) continue;
      const accountId = String(row.account_id);
      if (!accounts.has(accountId)) accounts.set(accountId, await this.accountsService.findById(accountId));
      const account = accounts.get(accountId);
      if (!account || account.status !== 'active') {
        done.push(row.id);
        continue;
      }
      // Sent by the service itself, under no key of the account's: key id 0. A reply to a test
      // recipient is a test send (stored and answered, never reaching a provider or charged).
      const mode = row.test_mode ? 'test' : 'live';
      const key = { id: '0', accountId, name: 'auto-reply', mode } as ApiKey;
      let admitted: Admitted | null = null;
      try {
        // Auto-replies are what a pumping scheme can make an account send by writing to it.
        admitted = await this.pumping.admit({
          scope: { accountId, testMode: Boolean(row.test_mode) },
          number: row.sender,
          source: 'auto-reply',
        });
        const sent = await this.sends.send(
          this.sms,
          { account, key },
          {
            sender: row.recipient,
            recipients: [row.sender],
            body: row.reply_text,
            userReferenceId: `auto-reply-${row.uuid}`,
            // The reply answers a message the number has just sent, as decided when it was
            // stored: a STOP's confirmation goes to the number it suppressed, a HELP is answered
            // on a suppressed number (as carriers require), and a START's welcome still goes
            // when a later STOP got in before it.
            ignoreSuppressions: true,
          },
        );
        // A reply sent before (by the sweep or another process) was counted then.
        if (sent.replayed) await admitted.release();
        done.push(row.id);
      } catch (err) {
        await admitted?.release();
        // A refusal (no balance, a text too long) will not change by retrying; a database or Redis
        // that did not answer (503) will, so the sweep tries the reply again.
        if (!(err instanceof AppException) || err.code === 'SERVICE_UNAVAILABLE') throw err;
        this.warnings.warn(
          `auto-reply to ${row.sender} for account ${accountId} refused: ${err.code} ${err.message}`,
          `refused:${err.code}`,
        );
        done.push(row.id);
      }
    }
    await this.store.replyDone(done);
  }
}
