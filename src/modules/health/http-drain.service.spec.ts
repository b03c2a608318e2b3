import { EventEmitter } from 'node:events';
import type { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../config/config.js';
import { HttpDrain } from './http-drain.service.js';
import { LifecycleState } from './lifecycle.state.js';

type FakeResponse = Response & { headersSent: boolean };

function drain() {
  const server = { listening: false, close: () => undefined, closeIdleConnections: () => undefined };
  const host = { httpAdapter: { getHttpServer: () => server } } as unknown as HttpAdapterHost;
  const d = new HttpDrain({ shutdownGraceMs: 10_000 } as AppConfig, new LifecycleState(), host);
  const middleware = d.middleware();
  /** A request through the drain's middleware; `done()` ends its response. */
  const request = () => {
    const res = Object.assign(new EventEmitter(), {
      headersSent: false,
      shouldKeepAlive: true,
      setHeader: () => undefined,
    }) as unknown as FakeResponse;
    middleware({ path: '/api/v1/balance' } as Request, res, () => undefined);
    return { res, done: () => res.emit('close') };
  };
  return { d, request };
}

describe('HttpDrain', () => {
  it('counts the requests in flight as they start and end', () => {
    const { d, request } = drain();
    const a = request();
    const b = request();
    expect(d.inFlightCount).toBe(2);
    a.done();
    expect(d.inFlightCount).toBe(1);
    b.done();
    expect(d.inFlightCount).toBe(0);
  });

  it('after many requests come and go, closes the keep-alive of exactly those in flight whose headers are not sent', () => {
    const { d, request } = drain();
    for (let i = 0; i < 1000; i++) request().done();
    const finished = request();
    const waiting = request();
    const answering = request();
    answering.res.headersSent = true;
    finished.done();
    const late = request(); // reuses the place the finished one had

    d.begin();

    expect(finished.res.shouldKeepAlive).toBe(true);
    expect(waiting.res.shouldKeepAlive).toBe(false);
    expect(late.res.shouldKeepAlive).toBe(false);
    expect(answering.res.shouldKeepAlive).toBe(true);
    expect(d.inFlightCount).toBe(3);
  });

  it('is idle once the last request in flight during the drain ends', async () => {
    const { d, request } = drain();
    const a = request();
    const b = request();
    const idle = d.beforeApplicationShutdown();
    a.done();
    b.done();
    await expect(idle).resolves.toBeUndefined();
    expect(d.inFlightCount).toBe(0);
  });
});
