import type { Job, Queue } from 'bull';
import type { Channel } from '../../messages/channel.js';
import { DISPATCH_CHUNK, type DispatchJob } from './dispatch.constants.js';

/**
 * Shared dispatch jobs. A single-message send (an SMPP submit_sm, a one-recipient HTTP send) is a
 * request of its own; one job each cost the worker several milliseconds per message (Bull's
 * take and finish, and a claim, a send and a record of one message). Those that reach the
 * producer in the same tick (the sends of one group commit) go in one job instead, up to
 * DISPATCH_CHUNK messages, in arrival order: one take, one claim, one hand-over and one record for
 * them all.
 *
 * A shared job's id is its first request's own first-chunk id, so that request is found as any
 * other. Each further request gets a pointer, `<prefix>:<queue>:shared:<request id>` → job id,
 * written before the job: the recovery sweep follows it to tell a request waiting in a live shared
 * job from one whose job is lost. A pointer and its job live in the same Redis, so a Redis that
 * lost the job lost the pointer too, and the request is queued again. The worker deletes a job's
 * pointers once it has handed its messages over.
 */

/**
 * A pointer outlives any message it can point for: a message waits at most its validity (7 days at
 * most), then ends EXPIRED. The worker deletes them sooner; this only bounds a leak.
 */
export const SHARED_POINTER_TTL_S = 8 * 24 * 3600;

type BullJob = { name: string; data: DispatchJob; opts: { jobId: string } & Record<string, unknown> };

/** What one request asks the producer to add. */
export interface PendingJobs {
  sendRequestId: string;
  jobs: BullJob[];
  /** Set for a single-message request that may share a job: what jobs of the same key may hold. */
  shareKey?: string;
}

export function sharedPointerKey(queue: Queue, sendRequestId: string): string {
  return queue.toKey(`shared:${sendRequestId}`);
}

/**
 * The jobs of a tick's requests, with single-message ones of the same share key (channel and
 * priority) merged, each shared job at the place of its first request; and the pointers to write
 * first, one per request after the first of a shared job.
 */
export function shareJobs(batch: PendingJobs[]): { jobs: BullJob[]; pointers: Array<[string, string]> } {
  const jobs: BullJob[] = [];
  const pointers: Array<[string, string]> = [];
  const open = new Map<string, BullJob>();
  for (const p of batch) {
    if (!p.shareKey) {
      jobs.push(...p.jobs);
      continue;
    }
    const [own] = p.jobs;
    const shared = open.get(p.shareKey);
    if (!shared) {
      const first = { ...own, data: { ...own.data, messageIds: [...own.data.messageIds] } };
      jobs.push(first);
      open.set(p.shareKey, first);
      continue;
    }
    shared.data.messageIds.push(...own.data.messageIds);
    shared.data.requestIds = [...(shared.data.requestIds ?? [shared.data.sendRequestId]), p.sendRequestId];
    pointers.push([p.sendRequestId, shared.opts.jobId]);
    if (shared.data.messageIds.length >= DISPATCH_CHUNK) open.delete(p.shareKey);
  }
  return { jobs, pointers };
}

/** The share key of a single-message request: one channel, one priority per shared job. */
export function shareKey(channel: Channel, priority: 'high' | 'normal'): string {
  return `${channel}:${priority}`;
}

/** Writes the pointers of a tick's shared jobs, in one round trip. */
export async function writePointers(queue: Queue, pointers: Array<[string, string]>): Promise<void> {
  if (pointers.length === 0) return;
  const multi = queue.client.pipeline();
  for (const [requestId, jobId] of pointers)
    multi.set(sharedPointerKey(queue, requestId), jobId, 'EX', SHARED_POINTER_TTL_S);
  const results = await multi.exec();
  const failed = results?.find(([err]) => err);
  if (failed) throw failed[0]!;
}

/** Deletes a finished shared job's pointers; a failure only leaves them to their expiry. */
export async function deletePointers(queue: Queue, job: Job<DispatchJob>): Promise<void> {
  const others = (job.data.requestIds ?? []).slice(1);
  if (others.length === 0) return;
  await queue.client.del(...others.map((id) => sharedPointerKey(queue, id))).catch(() => undefined);
}

/**
 * The job that holds the request's chunk: its own (by id), or, for a request that shared a job,
 * the shared job its pointer names. Null when neither is in Redis.
 */
export async function jobOfChunk(
  queue: Queue<DispatchJob>,
  sendRequestId: string,
  index: number,
  ownId: string,
): Promise<{ job: Job<DispatchJob>; own: boolean } | null> {
  const job = await queue.getJob(ownId);
  if (job) return { job, own: true };
  if (index !== 0) return null;
  const sharedId = await queue.client.get(sharedPointerKey(queue, sendRequestId));
  const shared = sharedId ? await queue.getJob(sharedId) : null;
  return shared ? { job: shared, own: false } : null;
}
