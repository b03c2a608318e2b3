import { describe, expect, it } from 'vitest';
import { DISPATCH_CHUNK } from './dispatch.constants.js';
import { shareJobs, shareKey, type PendingJobs } from './shared-jobs.js';

function single(id: string, key = shareKey('sms', 'normal')): PendingJobs {
  return {
    sendRequestId: id,
    jobs: [{ name: 'send', data: { sendRequestId: id, messageIds: [`m${id}`] }, opts: { jobId: `${id}-0` } }],
    shareKey: key,
  };
}

function bulk(id: string, messages: number): PendingJobs {
  const messageIds = Array.from({ length: messages }, (_, i) => `m${id}.${i}`);
  return {
    sendRequestId: id,
    jobs: [{ name: 'send', data: { sendRequestId: id, messageIds }, opts: { jobId: `${id}-0` } }],
  };
}

describe('shareJobs', () => {
  it('puts the single messages of a tick in one job under the first request, with pointers to it', () => {
    const { jobs, pointers } = shareJobs([single('1'), single('2'), single('3')]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].opts.jobId).toBe('1-0');
    expect(jobs[0].data).toEqual({
      sendRequestId: '1',
      messageIds: ['m1', 'm2', 'm3'],
      requestIds: ['1', '2', '3'],
    });
    expect(pointers).toEqual([
      ['2', '1-0'],
      ['3', '1-0'],
    ]);
  });

  it('leaves a lone single message as its own job, and never changes the items it was given', () => {
    const alone = single('1');
    const { jobs, pointers } = shareJobs([alone, bulk('2', 3)]);
    expect(jobs.map((j) => j.data.requestIds)).toEqual([undefined, undefined]);
    expect(pointers).toEqual([]);
    const [first] = shareJobs([alone, single('3')]).jobs;
    expect(first.data.messageIds).toEqual(['m1', 'm3']);
    expect(alone.jobs[0].data).toEqual({ sendRequestId: '1', messageIds: ['m1'] });
  });

  it('keeps arrival order, one job per channel and priority, and at most a chunk per job', () => {
    const high = shareKey('sms', 'high');
    const batch = [single('1'), bulk('2', 5), single('3', high), single('4'), single('5', high)];
    const { jobs } = shareJobs(batch);
    expect(jobs.map((j) => j.opts.jobId)).toEqual(['1-0', '2-0', '3-0']);
    expect(jobs[0].data.requestIds).toEqual(['1', '4']);
    expect(jobs[2].data.requestIds).toEqual(['3', '5']);

    const many = Array.from({ length: DISPATCH_CHUNK + 1 }, (_, i) => single(String(i + 1)));
    const cut = shareJobs(many).jobs;
    expect(cut.map((j) => j.data.messageIds.length)).toEqual([DISPATCH_CHUNK, 1]);
    expect(cut[1].opts.jobId).toBe(`${DISPATCH_CHUNK + 1}-0`);
  });
});
