import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Server } from 'node:http';
import { sendError } from '../../platform/errors/error-body.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { LifecycleState } from './lifecycle.state.js';
import { onResponseDone } from '../../platform/http/response-done.js';

const PROBES = /^\/health(\/|$)/;

/**
 * Graceful HTTP shutdown. From the moment a termination signal arrives (api.ts calls
 * `begin()` at once; the shutdown hook does too, for `app.close()`):
 * - readiness answers 503 (LifecycleState);
 * - the server stops accepting connections and closes idle keep-alive ones;
 * - requests already in flight run to the end, on a database and queues still open (the
 *   hook holds the shutdown sequence, before any connection is closed, until they have), and
 *   their responses say `Connection: close`;
 * - a request that still arrives on a kept-alive connection is answered 503
 *   SERVICE_UNAVAILABLE with `Connection: close`; health probes still answer for themselves.
 */
@Injectable()
export class HttpDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  /**
   * The responses in flight, each in a slot of its own that is emptied when it is done and
   * reused by a later one. Not a Set: the old tables a long-lived Set leaves behind as its
   * entries come and go keep every response alive into the old generation
   * (docs/performance.md#garbage-that-lives-too-long).
   */
  private readonly slots: Array<Response | undefined> = [];
  private readonly freeSlots: number[] = [];
  private inFlight = 0;
  private draining = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lifecycle: LifecycleState,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  get isDraining(): boolean {
    return this.draining;
  }

  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Mounted first in the Express stack (configureApp). */
  middleware(): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      if (this.draining) {
        res.shouldKeepAlive = false;
        res.setHeader('Connection', 'close');
        if (!PROBES.test(req.path)) {
          sendError(
            req,
            res,
            503,
            'SERVICE_UNAVAILABLE',
            'The server is shutting down; retry the request.',
            [],
            { 'Retry-After': '1' },
          );
          return;
        }
      }
      const slot = this.freeSlots.pop() ?? this.slots.length;
      this.slots[slot] = res;
      this.inFlight++;
      onResponseDone(res, () => this.finished(slot));
      next();
    };
  }

  /** Idempotent; synchronous so that nothing else runs between the signal and the listener closing. */
  begin(): void {
    if (this.draining) return;
    this.draining = true;
    this.lifecycle.beginShutdown();
    for (const res of this.slots) if (res && !res.headersSent) res.shouldKeepAlive = false;
    const server = this.server();
    if (server?.listening) server.close();
    server?.closeIdleConnections();
    this.logger.log(`draining: no new connections; ${this.inFlight} request(s) in flight`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.begin();
    const limitMs = Math.max(1000, this.config.shutdownGraceMs - 5000);
    if (!(await this.idle(limitMs))) {
      this.logger.warn(
        `${this.inFlight} request(s) still in flight after ${limitMs} ms; shutting down anyway`,
      );
    } else {
      this.logger.log('HTTP drained: no request in flight');
    }
  }

  private finished(slot: number): void {
    this.slots[slot] = undefined;
    this.freeSlots.push(slot);
    this.inFlight--;
    if (!this.draining) return;
    // The connection that carried it is idle now: close it rather than wait for its keep-alive timeout.
    this.server()?.closeIdleConnections();
    if (this.inFlight === 0) {
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private idle(ms: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      timer.unref();
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private server(): Server | undefined {
    try {
      return this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    } catch {
      return undefined;
    }
  }
}
