// The channel list belongs to accounts (an account is priced per channel); messages speak of it too.
export { CHANNELS, type Channel } from '../accounts/channel.js';

/**
 * (SCHEDULED →) ACKNOWLEDGED → SENT → DELIVERED | UNDELIVERED | EXPIRED; FAILED, REJECTED and
 * CANCELLED end a message too. The order is the database enum's: new values go at the end.
 */
export const MESSAGE_STATUSES = [
  'ACKNOWLEDGED',
  'SENT',
  'DELIVERED',
  'UNDELIVERED',
  'EXPIRED',
  'FAILED',
  'REJECTED',
  'SCHEDULED',
  'CANCELLED',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
