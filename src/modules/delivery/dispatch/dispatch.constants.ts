import type { Channel } from '../../messages/channel.js';

export const QUEUE_NAMES: Record<Channel, string> = { sms: 'sms', email: 'email', chat: 'chat' };

/**
 * Requests made with test keys, every channel: a queue of their own, worked with little
 * concurrency (TEST_CONCURRENCY), so live messages never wait behind test ones and test traffic
 * takes at most that share of a worker.
 */
export const TEST_QUEUE = 'test';

/**
 * Live requests sent with priority high, every channel: a queue of their own, worked beside the
 * channels' queues (PRIORITY_CONCURRENCY), so such a message never waits for a job of normal ones
 * to end and free a place. At the SMSC they go before waiting normal submits too.
 */
export const PRIORITY_QUEUE = 'priority';

/** Every dispatch queue: one per channel, the priority queue and the test queue. */
export const DISPATCH_QUEUES: readonly string[] = [...Object.values(QUEUE_NAMES), PRIORITY_QUEUE, TEST_QUEUE];

/** Message ids per dispatch job: one Redis write per chunk, not per recipient. */
export const DISPATCH_CHUNK = 200;

export interface DispatchJob {
  sendRequestId: string;
  messageIds: string[];
  /** On the test and priority queues only, which serve every channel. */
  channel?: Channel;
  /**
   * A shared job (shared-jobs.ts): the single-message requests whose messages it holds, the first
   * being sendRequestId. Absent: every message is of sendRequestId.
   */
  requestIds?: string[];
}
