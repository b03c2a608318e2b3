import type { Logger } from '@nestjs/common';
import smpp from 'smpp';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import type { SmppCredential } from '../credentials/smpp-credential.store.js';
import type { BindType } from '../bound-sessions.registry.js';
import type { BindChecker } from '../binds/bind-check.service.js';
import type { SubmitBucket } from '../binds/submit-bucket.service.js';
import type { SmppSubmitHandler } from '../submit/smpp-submit.handler.js';
import type { SmppSubmitMetrics } from '../submit/smpp-submit.metrics.js';

/** How often a bound session reads its sender's standing again while it submits. */
const STANDING_MS = 5000;

/** What the answerer uses of the server: the session's own deps (SessionDeps extends these). */
export interface SubmitDeps {
  checker: BindChecker;
  bucket: SubmitBucket;
  submits: SmppSubmitHandler;
  metrics: SmppSubmitMetrics;
  logger: Logger;
}

export interface SessionBind {
  credential: SmppCredential;
  auth: AuthContext;
  type: BindType;
}

/** What the answerer needs of its session. */
export interface SubmitSession {
  /** The bind, undefined once given up. */
  bind(): SessionBind | undefined;
  /** The bind's standing was read again: its credential and auth as they are now. */
  renewed(credential: SmppCredential, auth: AuthContext): void;
  /** The bind is no longer in good standing (why): the session unbinds. */
  lost(why: string): void;
  /** `<system_id> from <address>`, for the log. */
  who(): string;
}

/**
 * A bound session's submit_sm and data_sm answered: a receiver may not submit, a bind no longer
 * in good standing is refused, then the credential's throughput bucket, then the submit.
 */
export class SubmitAnswerer {
  /** When the bind's standing (account, parent, credential, key) was last read, and a read under way. */
  private standingAt = 0;
  private standingRead?: Promise<boolean>;

  constructor(
    private readonly deps: SubmitDeps,
    private readonly session: SubmitSession,
  ) {}

  /** The bind's standing was read at the bind. */
  bound(): void {
    this.standingAt = Date.now();
  }

  async answer(pdu: smpp.PDU): Promise<smpp.PDU> {
    if (this.session.bind()!.type === 'receiver')
      return pdu.response({ command_status: smpp.ESME_RINVBNDSTS });
    if (!(await this.stillStanding())) {
      this.deps.metrics.count('refused');
      return pdu.response({ command_status: smpp.errors.ESME_RSUBMITFAIL!, message_id: '' });
    }
    const { credential, auth } = this.session.bind()!;
    if (!(await this.deps.bucket.take(credential.id, credential.tps))) {
      this.deps.metrics.count('throttled');
      return pdu.response({ command_status: smpp.ESME_RTHROTTLED, message_id: '' });
    }
    const result = await this.deps.submits.submit(credential, auth, pdu);
    this.deps.metrics.count(
      result.status !== 0 ? 'refused' : 'rejected' in result && result.rejected ? 'rejected' : 'accepted',
    );
    return pdu.response({ command_status: result.status, message_id: result.messageId ?? '' });
  }

  /**
   * A suspension, a revocation or a parent's new limit reaches a bind already made within
   * STANDING_MS: the bind's sender is read again at most that often (one read shared by the
   * submits that wait for it). A bind no longer in good standing has its submit refused and is
   * unbound; a new bind is then refused with the bind's own code.
   */
  private stillStanding(): Promise<boolean> {
    if (Date.now() - this.standingAt < STANDING_MS) return Promise.resolve(true);
    this.standingRead ??= this.deps.checker
      .standingOf(this.session.bind()!.credential.id)
      .then((now) => {
        if (!now.ok) {
          this.deps.logger.log(`unbinding ${this.session.who()}: ${now.why}`);
          setImmediate(() => this.session.lost(now.why));
          return false;
        }
        this.session.renewed(now.credential, now.auth);
        this.standingAt = Date.now();
        return true;
      })
      .finally(() => (this.standingRead = undefined));
    return this.standingRead;
  }
}
