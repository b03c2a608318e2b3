import { describe, expect, it } from 'vitest';
import type { CommittedChange, StateChangeListener } from './state-change.listener.js';
import { StateChangeFanOut } from './state-change-listeners.module.js';

function recorder(caught: number, fail = false): StateChangeListener & { heard: CommittedChange[][] } {
  const heard: CommittedChange[][] = [];
  return {
    heard,
    committed: async (changes) => {
      heard.push(changes);
      if (fail) throw new Error('listener down');
    },
    recover: async () => {
      if (fail) throw new Error('listener down');
      return caught;
    },
  };
}

const change = { status: 'DELIVERED', reason: null, at: new Date() } as unknown as CommittedChange;

describe('state-change fan-out', () => {
  it('tells every listener of each change even when one of them fails, then reports the failure', async () => {
    const [a, b, c] = [recorder(0), recorder(0, true), recorder(0)];
    await expect(new StateChangeFanOut([a, b, c]).committed([change])).rejects.toThrow('listener down');
    expect([a.heard, b.heard, c.heard]).toEqual([[[change]], [[change]], [[change]]]);
  });

  it('asks every listener to recover and adds up what they caught up on', async () => {
    expect(await new StateChangeFanOut([recorder(2), recorder(3)]).recover()).toBe(5);
  });
});
