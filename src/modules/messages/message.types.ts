import type { Channel, MessageStatus } from './channel.js';

/** A request whose messages are to be queued (again): which queue, and with what priority. */
export interface QueuedRequest {
  id: string;
  channel: Channel;
  priority: 'high' | 'normal';
  /** 1 when made with a test key: its jobs go to the test queue. */
  test_mode: number;
}

/** A send_requests row as the send pipeline writes it. */
export interface NewSendRequest {
  id: string;
  accountId: string;
  apiKeyId: string;
  /** Made with a test key (see api-key.entity.ts). */
  testMode?: boolean;
  /** The STOP confirmation: sent to a number that has just been suppressed, and not stopped by it. */
  suppressionExempt?: boolean;
  channel: Channel;
  sender: string;
  subject: string | null;
  body: string;
  replyTo: string | null;
  source: string | null;
  callbackUrl: string | null;
  userReferenceId: string | null;
  requestHash: Buffer;
  recipientCount: number;
  acceptedCount: number;
  unitsPerRecipient: number;
  cost: string;
  currency: string;
  createdAt: Date;
  /** Scheduled sends: when, and (the same) while messages still wait for it; null for an immediate send. */
  sendAt: Date | null;
  dueAt: Date | null;
  validityPeriod: number;
  validUntil: Date;
  /**
   * Set at once for a scheduled send: it has nothing to queue until released (the release queues
   * it), so the recovery sweep's never-enqueued search does not walk every waiting schedule.
   */
  enqueuedAt: Date | null;
  priority?: 'high' | 'normal';
  /** A chat request's SMS fallback; sender and body null: the chat's own. */
  fallback?: { afterSeconds: number; sender: string | null; body: string | null } | null;
  /** The request's own send window (null or absent: it keeps the account's), kept for a reschedule. */
  sendWindow?: { from: string; to: string; days: string[] | null } | null;
}

export interface NewMessageRow {
  id: string;
  uuid: string;
  recipient: string;
  status: MessageStatus;
  reason: string | null;
  units: number;
  cost: string;
  /** The recipient's own text (personalised sends); null or absent: the request's. */
  body?: string | null;
  subject?: string | null;
  /** Its own release time, when its send window was closed at the request's; null or absent: the request's. */
  sendAt?: Date | null;
  /** A chat message with a fallback: when its SMS falls due (unless it is DELIVERED by then). */
  fallbackDueAt?: Date | null;
  /** A fallback SMS: the chat message it stands in for. */
  fallbackOf?: string | null;
  /** Submitted over the SMPP server: the credential, and the submit's registered_delivery & 0x03. */
  smppCredentialId?: number | null;
  smppRegisteredDelivery?: number | null;
}

/** A message waiting to be handed over; body and subject are null unless it was personalised. */
export interface WaitingMessage {
  id: string;
  uuid: string;
  recipient: string;
  body: string | null;
  subject: string | null;
  send_request_id: string;
}

/** The messages of one request: what they share, and each one's own columns. */
export interface MessageGroup {
  common: { sendRequestId: string; accountId: string; channel: Channel; createdAt: Date };
  rows: NewMessageRow[];
}

export interface ReplayRequest {
  id: string;
  request_hash: Buffer;
  accepted_count: number;
  units_per_recipient: number;
  cost: string;
  currency: string;
  created_at: Date;
  send_at: Date | null;
  priority: 'high' | 'normal';
}

export interface AcceptedAnswerRow {
  id: string;
  uuid: string;
  recipient: string;
  reason: string | null;
  units: number;
  /** Its own release time when a send window deferred it. */
  send_at: Date | null;
}

/** A message locked for a state change, with the request columns its callback needs. */
export interface LockedMessage {
  id: string;
  uuid: string;
  status: MessageStatus;
  account_id: string;
  channel: Channel;
  recipient: string;
  cost: string;
  send_request_id: string;
  callback_url: string | null;
  user_reference_id: string | null;
  /** The request's key, and whether it was a test key: a refund gives that key's daily room back. */
  api_key_id?: string | null;
  test_mode?: boolean;
  created_at: Date;
  /** Set while a worker hands the message over. */
  claimed_at: Date | null;
  /** Submitted over the SMPP server: the credential whose binds get its receipts; null otherwise. */
  smppCredentialId: number | null;
  /** The submit_sm's registered_delivery & 0x03 (1: every final state, 2: failures); null when not SMPP. */
  smppRegisteredDelivery: number | null;
}

/** One state change to write: the new status, and what comes with it. */
export interface StateWrite {
  id: string;
  status: MessageStatus;
  reason: string | null;
  providerMessageId: string | null;
  at: Date;
  /** The SMPP connector a message went out on (SENT). */
  connector?: string | null;
  /** A hand-over attempt ends here: the message counts it and keeps its time (SENT, REJECTED). */
  attempted?: boolean;
}

/** What a transport needs of a request. */
export interface DispatchRequest {
  account_id: string;
  sender: string;
  body: string;
  subject: string | null;
  reply_to: string | null;
  priority: 'high' | 'normal';
  /** Only when the request was made with a test key. */
  test_mode?: true;
  /** Only for a STOP confirmation (NewSendRequest.suppressionExempt). */
  suppression_exempt?: true;
}

/** A message as the status lookup shows it. */
export interface MessageView {
  id: string;
  uuid: string;
  channel: Channel;
  send_request_id: string;
  recipient: string;
  status: MessageStatus;
  reason: string | null;
  units: number;
  cost: string;
  currency: string;
  user_reference_id: string | null;
  created_at: Date;
  sent_at: Date | null;
  completed_at: Date | null;
  attempts: number;
  last_error: string | null;
  send_at: Date | null;
  valid_until: Date | null;
  connector: string | null;
  /** A chat message's fallback SMS, as "<uuid> <status>"; null when it has none. */
  fallback?: string | null;
  /** A fallback SMS: its chat message's UUID. */
  fallback_of?: string | null;
  /** Submitted over the SMPP server: the decimal id its client holds (the message's numeric id). */
  smpp_message_id?: string | null;
}

/**
 * What a send answered for one of its messages, read back from the row: a charged message
 * (units > 0) was ACKNOWLEDGED, or SCHEDULED when it waited for the request's send_at or its own
 * window; the others were REJECTED. (A message rejected later was charged: its row says so.)
 */
export function statusAtSend(
  m: Pick<AcceptedAnswerRow, 'units' | 'send_at'>,
  requestSendAt: Date | null,
): 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED' {
  if (Number(m.units) === 0) return 'REJECTED';
  return requestSendAt || m.send_at ? 'SCHEDULED' : 'ACKNOWLEDGED';
}
