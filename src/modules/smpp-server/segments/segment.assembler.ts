import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import smpp from 'smpp';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import { IdGenerator } from '../../sending/id.generator.js';
import { MAX_SMS_SEGMENTS } from '../../sending/channels/sms/sms.policy.js';
import { BindChecker } from '../binds/bind-check.service.js';
import type { SmppCredential } from '../credentials/smpp-credential.store.js';
import { SmppSend, type SmppSendResult } from '../submit/smpp-send.service.js';
import { SegmentStore, type SegmentGroup, type SegmentRow } from './segment.store.js';

/** A text whose parts are not all in by then is given up. */
export const SEGMENT_WAIT_MS = 60_000;
/** A complete text still open this long after its first part (its process died before sending it) is sent by the sweep. */
const SWEEP_COMPLETE_AFTER_MS = 5_000;
const SWEEP_EVERY_MS = 5_000;

export interface SegmentPart {
  from: string;
  to: string;
  text: string;
  registeredDelivery: number;
  ref: number;
  total: number;
  seq: number;
  /** What this part's submit_sm asked for; the text goes with its first part's. */
  sendAt?: string;
  validityPeriod?: number;
}

/**
 * Long texts sent over SMPP as several submit_sm: each part is kept in MySQL (so parts may
 * arrive on different binds and processes, and a crash loses none whose answer went out) and
 * answered with an id of its own; the part that completes the text sends it as one message.
 * Two processes completing the same text at once send it under the same user_reference_id,
 * so it is stored once. Texts not complete within SEGMENT_WAIT_MS are closed `incomplete`, and
 * their parts handed to the listeners (the client's receipts say REJECTD, INCOMPLETE_MESSAGE).
 */
@Injectable()
export class SegmentAssembler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SmppServer');
  private readonly incompleteListeners: Array<(parts: SegmentRow[]) => void> = [];
  private readonly sweep = new PeriodicTask({
    run: () => this.sweepNow(),
    everyMs: SWEEP_EVERY_MS,
    logger: this.logger,
    failure: 'SMPP segment sweep failed',
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: SegmentStore,
    private readonly ids: IdGenerator,
    private readonly sender: SmppSend,
    private readonly binds: BindChecker,
  ) {}

  onApplicationBootstrap(): void {
    // A process without the listener receives no parts; those that listen sweep.
    if (this.config.smppServer.port !== 0) this.sweep.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweep.stop();
  }

  /** Hears of the parts of each text given up as incomplete (one process hears of each). */
  onIncomplete(listener: (parts: SegmentRow[]) => void): void {
    this.incompleteListeners.push(listener);
  }

  /** Keeps the part; sends the text when it completes it. The answer carries the part's own id. */
  async add(credential: SmppCredential, auth: AuthContext, part: SegmentPart): Promise<SmppSendResult> {
    if (part.total > MAX_SMS_SEGMENTS)
      return { status: smpp.errors.ESME_RINVMSGLEN!, why: `more than ${MAX_SMS_SEGMENTS} segments` };
    if (part.seq < 1 || part.seq > part.total)
      return { status: smpp.errors.ESME_RINVMSGLEN!, why: 'segment number outside the total' };
    const group: SegmentGroup = {
      credentialId: credential.id,
      source: part.from.slice(0, 21),
      destination: part.to.slice(0, 21),
      ref: part.ref,
      total: part.total,
    };
    let id: string;
    try {
      id = await this.store.insert({
        ...group,
        id: this.ids.next(),
        seqnum: part.seq,
        registeredDelivery: part.registeredDelivery,
        text: part.text,
        sendAt: part.sendAt ? new Date(part.sendAt) : null,
        validityPeriod: part.validityPeriod ?? null,
      });
    } catch (err) {
      return { status: smpp.ESME_RSYSERR, why: (err as Error).message };
    }
    const parts = await this.store.openParts(group).catch(() => null);
    if (parts && parts.length === part.total) {
      const sent = await this.complete(credential, auth, group, parts);
      // The text is refused as a whole: the part that completed it carries the refusal.
      if (sent.status !== 0 && sent.status !== smpp.ESME_RSYSERR) return sent;
    }
    return { status: 0, messageId: id, rejected: null };
  }

  /** Sends the whole text once; a refusal closes it, a passing failure leaves it for the sweep. */
  private async complete(
    credential: SmppCredential,
    auth: AuthContext,
    group: SegmentGroup,
    parts: SegmentRow[],
  ): Promise<SmppSendResult> {
    const first = parts.reduce((a, b) => (a.id < b.id ? a : b));
    const sent = await this.sender.send(credential, auth, {
      from: group.source,
      to: group.destination,
      text: parts.map((p) => p.text).join(''),
      registeredDelivery: first.registeredDelivery,
      userReferenceId: `smpp-parts-${first.id}`,
      ...(first.sendAt ? { sendAt: first.sendAt.toISOString() } : {}),
      ...(first.validityPeriod !== null ? { validityPeriod: first.validityPeriod } : {}),
    });
    if (sent.messageId !== undefined) await this.store.close(group, 'stored', sent.messageId);
    else if (sent.status !== smpp.ESME_RSYSERR) await this.store.close(group, 'refused', null);
    return sent;
  }

  /**
   * Sends the complete texts their process left (it died before sending), gives up those not
   * complete in time. Every few seconds on its own; tests call it.
   */
  async sweepNow(): Promise<void> {
    const now = Date.now();
    for (const g of await this.store.openGroups(new Date(now - SWEEP_COMPLETE_AFTER_MS), 500)) {
      const parts = await this.store.openParts(g);
      if (parts.length === g.total) {
        const who = await this.binds.authFor(g.credentialId);
        if (who) await this.complete(who.credential, who.auth, g, parts);
        else await this.store.close(g, 'refused', null);
      } else if (
        parts.length &&
        Math.min(...parts.map((p) => p.createdAt.getTime())) < now - SEGMENT_WAIT_MS
      ) {
        if (await this.store.close(g, 'incomplete', null))
          for (const l of this.incompleteListeners) l(parts.map((p) => ({ ...p, state: 'incomplete' })));
      }
    }
  }
}
