import { describe, expect, it } from 'vitest';
import { circuitOf, TargetGate, targetOf, targetOfCircuit } from './target-gate.js';

describe('TargetGate', () => {
  const gate = (clock: { now: number }) =>
    new TargetGate({ perTarget: 2, failuresToOpen: 3, openMs: 1000 }, () => clock.now);

  it('lets at most perTarget calls in flight to one target, and others through meanwhile', () => {
    const g = gate({ now: 0 });
    const a1 = g.enter('https://a');
    const a2 = g.enter('https://a');
    expect([a1.ok, a2.ok]).toEqual([true, true]);
    expect(g.enter('https://a')).toMatchObject({ ok: false, reason: 'busy' });
    expect(g.enter('https://b').ok).toBe(true);
    if (a1.ok) a1.release(true);
    expect(g.enter('https://a').ok).toBe(true);
  });

  it('opens after failuresToOpen failures in a row, lets one probe through when the time is up, and closes on its success', () => {
    const clock = { now: 0 };
    const g = gate(clock);
    for (let i = 0; i < 3; i++) {
      const a = g.enter('https://a');
      if (a.ok) a.release(false);
    }
    expect(g.enter('https://a')).toEqual({ ok: false, reason: 'open', retryInMs: 1000 });
    clock.now = 1000;
    const probe = g.enter('https://a');
    expect(probe.ok).toBe(true);
    expect(g.enter('https://a')).toMatchObject({ ok: false, reason: 'busy' }); // one probe at a time
    if (probe.ok) probe.release(false);
    expect(g.isOpen('https://a')).toBe(true); // a failed probe opens it again
    clock.now = 2000;
    const second = g.enter('https://a');
    if (second.ok) second.release(true);
    expect(g.isOpen('https://a')).toBe(false);
    expect([g.enter('https://a').ok, g.enter('https://a').ok]).toEqual([true, true]);
  });

  it('names as failing a target whose circuit opened, while open and while probing, until a success', () => {
    const clock = { now: 0 };
    const g = gate(clock);
    const call = (target: string, ok: boolean) => {
      const a = g.enter(target);
      if (a.ok) a.release(ok);
    };
    call('https://a', false);
    call('https://a', false);
    call('https://b', false);
    expect(g.failing()).toEqual([]);
    call('https://a', false);
    expect(g.failing()).toEqual(['https://a']);
    clock.now = 1000;
    const probe = g.enter('https://a');
    expect(g.failing()).toEqual(['https://a']);
    if (probe.ok) probe.release(true);
    expect(g.failing()).toEqual([]);
  });

  it('a success resets the count of failures in a row', () => {
    const g = gate({ now: 0 });
    for (const ok of [false, false, true, false, false]) {
      const a = g.enter('https://a');
      if (a.ok) a.release(ok);
    }
    expect(g.isOpen('https://a')).toBe(false);
  });

  it('lifts the limit for a target whose calls are quick, and puts it back once they slow down', () => {
    const clock = { now: 0 };
    const g = gate(clock);
    const first = g.enter('https://a');
    clock.now = 20;
    if (first.ok) first.release(true); // 20 ms: fast
    const many = Array.from({ length: 10 }, () => g.enter('https://a'));
    expect(many.every((a) => a.ok)).toBe(true);
    clock.now = 20 + 5000; // every one of them took 5 s
    for (const a of many) if (a.ok) a.release(true);
    expect([g.enter('https://a').ok, g.enter('https://a').ok, g.enter('https://a').ok]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('names a target by scheme, host and port', () => {
    expect(targetOf('https://Hooks.Example.com/a?b=1')).toBe('https://hooks.example.com');
    expect(targetOf('http://127.0.0.1:8080/x')).toBe('http://127.0.0.1:8080');
    expect(targetOf('https://hooks.example.com/a')).not.toBe(targetOf('https://hooks.example.com:8443/a'));
    // One circuit per account and target: two tenants of one receiver are apart.
    expect(circuitOf('1', 'https://hooks.example.com/a')).not.toBe(
      circuitOf('2', 'https://hooks.example.com/b'),
    );
    expect(targetOfCircuit(circuitOf('1', 'https://hooks.example.com/a'))).toBe('https://hooks.example.com');
  });
});
