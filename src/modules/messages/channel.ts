export const CHANNELS = ['sms', 'email', 'chat'] as const;
export type Channel = (typeof CHANNELS)[number];

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
