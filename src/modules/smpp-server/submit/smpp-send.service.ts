import { Injectable, Logger } from '@nestjs/common';
import smpp from 'smpp';
import { AppException } from '../../../platform/errors/app.exception.js';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import { SmsPolicy } from '../../sending/channels/sms/sms.policy.js';
import { SendService } from '../../sending/send.service.js';
import type { SmppCredential } from '../credentials/smpp-credential.store.js';

/** One text to one number, as a submit_sm (or the parts of one, put together) asks. */
export interface SmppText {
  from: string;
  to: string;
  text: string;
  registeredDelivery: number;
  /** Makes a second send of the same parts (another process, the sweep) find the first. */
  userReferenceId?: string;
  /** From schedule_delivery_time and validity_period (smpp-time.ts); absent: at once, the default validity. */
  sendAt?: string;
  validityPeriod?: number;
}

export type SmppSendResult =
  | { status: 0; messageId: string; rejected: string | null }
  | { status: number; messageId?: undefined; why: string };

/** A message stored REJECTED at acceptance, for whoever tells the client (a receipt). */
export interface RejectedAtAcceptance {
  messageId: string;
  credentialId: number;
  registeredDelivery: number;
  reason: string;
}

/** The submit_sm_resp status for a send the pipeline refused as a whole. */
export function refusalStatus(err: unknown): number {
  if (!(err instanceof AppException)) return smpp.ESME_RSYSERR;
  switch (err.code) {
    case 'MESSAGE_TOO_LONG':
      return smpp.errors.ESME_RINVMSGLEN!;
    case 'INSUFFICIENT_BALANCE':
    case 'SPEND_LIMIT_EXCEEDED':
      return smpp.errors.ESME_RSUBMITFAIL!;
    case 'VALIDATION_ERROR': {
      const field = err.details[0]?.field ?? '';
      if (field === 'from') return smpp.errors.ESME_RINVSRCADR!;
      if (field.startsWith('to')) return smpp.errors.ESME_RINVDSTADR!;
      if (field === 'message') return smpp.errors.ESME_RINVMSGLEN!;
      if (field === 'send_at') return smpp.errors.ESME_RINVSCHED!;
      if (field === 'validity_period') return smpp.errors.ESME_RINVEXPIRY!;
      return smpp.errors.ESME_RSUBMITFAIL!;
    }
    default:
      // A refusal the client cannot cure by sending again.
      return err.status < 500 ? smpp.errors.ESME_RSUBMITFAIL! : smpp.ESME_RSYSERR;
  }
}

/**
 * An SMPP text through the one send pipeline, with the credential's key and account (money,
 * suppressions, routing, windows, spend limits, test mode as over HTTP), answered as a
 * submit_sm_resp status: 0 with the stored message's id (ACKNOWLEDGED, or REJECTED for what
 * HTTP also stores REJECTED), else why it was refused; 0x08 for what may pass when sent again.
 */
@Injectable()
export class SmppSend {
  private readonly logger = new Logger('SmppServer');
  private readonly rejectedListeners: Array<(r: RejectedAtAcceptance) => void> = [];

  constructor(
    private readonly sends: SendService,
    private readonly policy: SmsPolicy,
  ) {}

  /** Hears of each SMPP message stored REJECTED at acceptance (no state change follows for it). */
  onRejectedAtAcceptance(listener: (r: RejectedAtAcceptance) => void): void {
    this.rejectedListeners.push(listener);
  }

  async send(credential: SmppCredential, auth: AuthContext, t: SmppText): Promise<SmppSendResult> {
    try {
      const out = await this.sends.send(this.policy, auth, {
        sender: t.from,
        recipients: [t.to],
        body: t.text,
        userReferenceId: t.userReferenceId ?? null,
        sendAt: t.sendAt ?? null,
        validityPeriod: t.validityPeriod ?? null,
        smpp: { credentialId: credential.id, registeredDelivery: t.registeredDelivery },
        // The client's window of submits turns over as fast as they are answered.
        answerOnceStored: true,
      });
      const entry = out.entries[0]!;
      const rejected = entry.status === 'REJECTED' ? (entry.reason ?? 'REJECTED') : null;
      if (rejected && !out.replayed)
        for (const l of this.rejectedListeners)
          l({
            messageId: entry.messageId,
            credentialId: credential.id,
            registeredDelivery: t.registeredDelivery,
            reason: rejected,
          });
      return { status: 0, messageId: entry.messageId, rejected };
    } catch (err) {
      const status = refusalStatus(err);
      if (status === smpp.ESME_RSYSERR)
        this.logger.warn(`submit of ${credential.systemId} not stored: ${(err as Error).message}`);
      return { status, why: (err as Error).message };
    }
  }
}
