import { describe, expect, it } from 'vitest';
import { FairQueue, LaneFull } from './fair-queue.js';

/** Tasks that finish when the test says, recording the order in which they started. */
function harness(queue: FairQueue) {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const add = (lane: string, name: string) =>
    queue.run(
      lane,
      () =>
        new Promise<string>((resolve) => {
          started.push(name);
          finish.set(name, () => resolve(name));
        }),
    );
  const done = async (name: string) => {
    finish.get(name)!();
    await new Promise((r) => setImmediate(r));
  };
  return { started, add, done };
}

describe('FairQueue', () => {
  it("serves lanes in turn: another lane's first task runs before the flooding lane's second", async () => {
    const h = harness(new FairQueue({ concurrency: 1, runningPerLane: 1, perLane: 10 }));
    const tasks = [h.add('a', 'a1'), h.add('a', 'a2'), h.add('a', 'a3'), h.add('b', 'b1'), h.add('c', 'c1')];
    expect(h.started).toEqual(['a1']);
    await h.done('a1');
    await h.done('b1');
    await h.done('c1');
    await h.done('a2');
    await h.done('a3');
    expect(h.started).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
    expect(await Promise.all(tasks)).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
  });

  it('keeps a free slot for other lanes while one lane is at its running cap', async () => {
    const h = harness(new FairQueue({ concurrency: 2, runningPerLane: 1, perLane: 10 }));
    void h.add('a', 'a1');
    void h.add('a', 'a2');
    void h.add('b', 'b1');
    expect(h.started).toEqual(['a1', 'b1']);
    await h.done('b1');
    // b has nothing left and a already runs its one: the free slot waits for a1.
    expect(h.started).toEqual(['a1', 'b1']);
    await h.done('a1');
    expect(h.started).toEqual(['a1', 'b1', 'a2']);
    await h.done('a2');
  });

  it('refuses a task beyond its lane bound at once, without running it, and other lanes still enter', async () => {
    const q = new FairQueue({ concurrency: 1, runningPerLane: 1, perLane: 2 });
    const h = harness(q);
    void h.add('a', 'a1');
    void h.add('a', 'a2');
    await expect(h.add('a', 'a3')).rejects.toBeInstanceOf(LaneFull);
    expect(q.size('a')).toBe(2);
    void h.add('b', 'b1');
    await h.done('a1');
    expect(h.started).toEqual(['a1', 'b1']);
    // Room in lane a again once a task of it has finished.
    void h.add('a', 'a4');
    await h.done('b1');
    await h.done('a2');
    await h.done('a4');
    expect(h.started).toEqual(['a1', 'b1', 'a2', 'a4']);
    expect(q.size('a')).toBe(0);
  });

  it('gives the slot back when a task fails, even one that throws before returning a promise', async () => {
    const q = new FairQueue({ concurrency: 1, runningPerLane: 1, perLane: 5 });
    await expect(
      q.run('a', () => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    await expect(q.run('a', () => Promise.reject(new Error('later')))).rejects.toThrow('later');
    expect(await q.run('b', () => Promise.resolve('ran'))).toBe('ran');
    expect(q.size('a')).toBe(0);
  });
});
