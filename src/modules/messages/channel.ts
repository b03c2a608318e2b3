// The channel list belongs to accounts (an account is priced per channel); messages speak of it too.
export { CHANNELS, type Channel } from '../accounts/channel.js';

/** ACKNOWLEDGED → SENT → DELIVERED | UNDELIVERED | EXPIRED; FAILED and REJECTED end a message too. */
export const MESSAGE_STATUSES = [
  'ACKNOWLEDGED',
  'SENT',
  'DELIVERED',
  'UNDELIVERED',
  'EXPIRED',
  'FAILED',
  'REJECTED',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
