import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { inSequence } from './in-sequence.js';

const req = {} as Request;
const res = {} as Response;

function run(handlers: RequestHandler[]): Promise<unknown[]> {
  return new Promise((resolve) => {
    const calls: unknown[] = [];
    const seen = handlers.map(
      (h, n): RequestHandler =>
        (rq, rs, next) => (calls.push(n), h(rq, rs, next)),
    );
    inSequence(seen)(req, res, ((err?: unknown) => resolve([...calls, ['next', err]])) as NextFunction);
    setTimeout(() => resolve(calls), 20);
  });
}

describe('inSequence', () => {
  it('runs every handler in order, then the next layer', async () => {
    const pass: RequestHandler = (_q, _s, next) => next();
    expect(await run([pass, pass, pass])).toEqual([0, 1, 2, ['next', undefined]]);
  });

  it('stops at a handler that answers without calling next', async () => {
    const pass: RequestHandler = (_q, _s, next) => next();
    const answer: RequestHandler = () => undefined;
    expect(await run([pass, answer, pass])).toEqual([0, 1]);
  });

  it('hands an error passed to next, thrown, or rejected to the error handlers and runs nothing after it', async () => {
    const pass: RequestHandler = (_q, _s, next) => next();
    const boom = new Error('boom');
    expect(await run([(_q, _s, next) => next(boom), pass])).toEqual([0, ['next', boom]]);
    expect(
      await run([
        () => {
          throw boom;
        },
        pass,
      ]),
    ).toEqual([0, ['next', boom]]);
    expect(await run([() => Promise.reject(boom) as never, pass])).toEqual([0, ['next', boom]]);
  });

  it('continues after a handler that calls next later', async () => {
    const later: RequestHandler = (_q, _s, next) => void setTimeout(() => next(), 1);
    expect(await run([later, later])).toEqual([0, 1, ['next', undefined]]);
  });
});
