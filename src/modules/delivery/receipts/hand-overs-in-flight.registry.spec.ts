import { describe, expect, it } from 'vitest';
import { HandOversInFlight } from './hand-overs-in-flight.registry.js';

const settledWithin = async (p: Promise<void> | undefined, ms: number) =>
  Promise.race([p?.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('HandOversInFlight', () => {
  it('makes a receipt for an accepted id wait until its hand-over is recorded, and no longer', async () => {
    const inFlight = new HandOversInFlight();
    expect(inFlight.busy).toBe(false);
    const handOver = inFlight.begin();
    expect(inFlight.busy).toBe(true);
    expect(inFlight.recorded('a1')).toBeUndefined();
    handOver.accepted(['a1', 'a2', '']);
    const waiting = inFlight.recorded('a2');
    expect(waiting).toBeDefined();
    expect(inFlight.recorded('')).toBeUndefined();
    expect(await settledWithin(waiting, 30)).toBe(false);
    handOver.end();
    expect(await settledWithin(waiting, 30)).toBe(true);
    expect(inFlight.recorded('a1')).toBeUndefined();
    expect(inFlight.busy).toBe(false);
  });

  it('lets receipts go after maxWaitMs when the record takes longer', async () => {
    const inFlight = new HandOversInFlight();
    inFlight.maxWaitMs = 50;
    const handOver = inFlight.begin();
    handOver.accepted(['slow-1']);
    expect(await settledWithin(inFlight.recorded('slow-1'), 500)).toBe(true);
    expect(inFlight.busy).toBe(false);
    handOver.end(); // the late end changes nothing
    expect(inFlight.busy).toBe(false);
  });

  it("keeps a later hand-over's id when an earlier one with the same id ends", async () => {
    const inFlight = new HandOversInFlight();
    const first = inFlight.begin();
    first.accepted(['same']);
    const second = inFlight.begin();
    second.accepted(['same']);
    first.end();
    const waiting = inFlight.recorded('same');
    expect(await settledWithin(waiting, 30)).toBe(false);
    second.end();
    expect(await settledWithin(waiting, 30)).toBe(true);
  });
});
