import type { Channel } from '../messages/channel.js';

export const QUEUE_NAMES: Record<Channel, string> = { sms: 'sms', email: 'email', chat: 'chat' };

/** Message ids per dispatch job: one Redis write per chunk, not per recipient. */
export const DISPATCH_CHUNK = 200;

export interface DispatchJob {
  sendRequestId: string;
  messageIds: string[];
}
