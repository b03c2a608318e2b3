import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { onResponseDone, responseError } from './response-done.js';

const response = () => new EventEmitter() as unknown as ServerResponse;

describe('onResponseDone', () => {
  it('runs every hook once, in the order added, on close, with one close and one error listener', () => {
    const res = response();
    const calls: string[] = [];
    onResponseDone(res, () => calls.push('a'));
    onResponseDone(res, () => calls.push('b'));
    onResponseDone(res, () => calls.push('c'));
    expect(res.listenerCount('close')).toBe(1);
    expect(res.listenerCount('error')).toBe(1);
    expect(calls).toEqual([]);
    res.emit('close');
    res.emit('close');
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('keeps the first error the response emitted for the hooks, and an error never throws', () => {
    const res = response();
    let seen: Error | undefined;
    onResponseDone(res, () => (seen = responseError(res)));
    const first = new Error('write after end');
    expect(() => res.emit('error', first)).not.toThrow();
    res.emit('error', new Error('second'));
    res.emit('close');
    expect(seen).toBe(first);
    expect(responseError(response())).toBeUndefined();
  });
});
