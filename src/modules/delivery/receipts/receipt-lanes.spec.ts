import { describe, expect, it } from 'vitest';
import { laneOf, ReceiptLanes } from './receipt-lanes.js';

const tick = () => new Promise((r) => setImmediate(r));

/** Two provider ids that fall in different lanes of two. */
function idsApart(): [string, string] {
  const first = 'a1';
  for (let i = 0; ; i++) if (laneOf(`b${i}`, 2) !== laneOf(first, 2)) return [first, `b${i}`];
}

describe('ReceiptLanes', () => {
  it("applies a provider id's later receipt only once the batch with its earlier one has committed", async () => {
    const [id, other] = idsApart();
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const lanes = new ReceiptLanes<string>({
      lanes: 2,
      maxBatch: 100,
      flush: async (batch) => {
        events.push(`start ${batch.join(',')}`);
        if (batch.includes('DELIVRD')) await held;
        events.push(`end ${batch.join(',')}`);
      },
    });
    const first = lanes.push(id, 'DELIVRD');
    await tick();
    await tick();
    // The first batch is under way: a resend naming another state, and another id's receipt.
    const resend = lanes.push(`00${id.toUpperCase()}`, 'UNDELIV');
    const elsewhere = lanes.push(other, 'OTHER');
    await elsewhere;
    expect(events).toEqual(['start DELIVRD', 'start OTHER', 'end OTHER']);
    release();
    await Promise.all([first, resend]);
    expect(events.slice(3)).toEqual(['end DELIVRD', 'start UNDELIV', 'end UNDELIV']);
  });

  it('spreads ids over the lanes and gives an id the same lane whatever its leading zeros and case', () => {
    const counts = [0, 0];
    for (let i = 0; i < 1000; i++) counts[laneOf((123_456 + i).toString(16), 2)]++;
    expect(Math.min(...counts)).toBeGreaterThan(400);
    expect(laneOf('00AbC', 3)).toBe(laneOf('abc', 3));
    expect(laneOf('0', 2)).toBe(laneOf('000', 2));
    expect(() => new ReceiptLanes({ lanes: 0, maxBatch: 1, flush: async () => undefined })).toThrow(
      RangeError,
    );
  });
});
