import type { Channel } from '../messages/channel.js';
import type { Schedule } from '../messages/schedule.js';
import type { SendInput, TextMeasure } from './channel-policy.js';
import type { PricedTexts } from './personalisation/entry-pricing.js';
import type { Replacement } from './personalisation/smart-encoding.js';
import type { TextPlan } from './personalisation/text-plan.js';
import type { SendWindow } from '../messages/windows/send-window.js';

/** The types of the send pipeline (send.service.ts), apart from it so its helpers need not import the service. */

export interface SendEntry {
  messageId: string;
  uuid: string;
  recipient: string;
  status: 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED';
  reason?: string;
  /** Its own release time, when a send window moved it past the request's (ISO in answers). */
  sendAt?: Date;
}

export interface SendOutcome {
  apiReference: string;
  channel: Channel;
  entries: SendEntry[];
  acceptedCount: number;
  unitsPerRecipient: number;
  cost: string;
  currency: string;
  createdAt: Date;
  replayed: boolean;
  /** A scheduled send's release time, ISO 8601 UTC with milliseconds; null when sent at once. */
  sendAt: string | null;
  /** The request's priority (its own, else its key's): which queue its jobs go to. */
  priority: 'high' | 'normal';
  /** SMS smart encoding's replacements; null when it was off. */
  replaced: Replacement[] | null;
}

/** What a send would do, recipient by recipient, and whether the balance would pay for it. */
export interface SendPreview {
  entries: Array<{
    recipient: string;
    status: SendEntry['status'];
    reason?: string;
    /** Absent for a refused recipient. */
    measure?: TextMeasure;
    cost: string;
    /** When a SCHEDULED recipient would go: its window's opening, else the request's send_at. */
    sendAt?: Date;
  }>;
  acceptedCount: number;
  cost: string;
  currency: string;
  balance: string;
  replaced: Replacement[] | null;
  nonGsmCharacters: string[];
}

/** A request's recipient with its place in the request. */
export type ListedRecipient = SendEntry & { index: number };

/** A request once checked, listed, planned and priced (SendService.prepare), ready to be stored. */
export interface CheckedRequest {
  /** The input as sent, or as its template completed it. */
  input: SendInput;
  /** Where status callbacks go: the request's URL, else the account's; null for none. */
  callbackUrl: string | null;
  /** Every recipient in request order, REJECTED ones included. */
  entries: ListedRecipient[];
  /** Those that will be sent (ACKNOWLEDGED or SCHEDULED). */
  accepted: ListedRecipient[];
  plan: TextPlan;
  priced: PricedTexts;
  requestHash: Buffer;
  schedule: Schedule;
  /** How many a closed send window moved to a later send_at. */
  deferred: number;
  /** The request's own send_window, stored with it (null: it keeps the account's). */
  ownWindow: SendWindow | null;
}
