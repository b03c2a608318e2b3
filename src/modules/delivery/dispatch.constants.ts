import type { Channel } from '../messages/channel.js';

export const QUEUE_NAMES: Record<Channel, string> = { sms: 'sms', email: 'email', chat: 'chat' };

/**
 * Requests made with test keys, every channel: a queue of their own, worked with little
 * concurrency (TEST_CONCURRENCY), so live messages never wait behind test ones and test traffic
 * takes at most that share of a worker.
 */
export const TEST_QUEUE = 'test';

/** Every dispatch queue: one per channel, and the test queue. */
export const DISPATCH_QUEUES: readonly string[] = [...Object.values(QUEUE_NAMES), TEST_QUEUE];

/** Message ids per dispatch job: one Redis write per chunk, not per recipient. */
export const DISPATCH_CHUNK = 200;

export interface DispatchJob {
  sendRequestId: string;
  messageIds: string[];
  /** On the test queue only, which serves every channel. */
  channel?: Channel;
}
