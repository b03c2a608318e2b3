import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';

type Key = string | symbol;

/**
 * Properties that every request (or response) gets, given to an object as own properties holding
 * what each reads at that moment: absent reads undefined, an inherited default (a response's
 * statusCode of 200) is copied.
 */
class FieldSet {
  private readonly keys = new Set<Key>();

  constructor(keys: Key[]) {
    for (const k of keys) this.keys.add(k);
  }

  add(key: Key): void {
    this.keys.add(key);
  }

  list(): Key[] {
    return [...this.keys];
  }

  own(target: object): void {
    const t = target as Record<Key, unknown>;
    for (const k of this.keys) t[k] = t[k];
  }
}

/**
 * The properties the app's layers give every request and every response after Node made them:
 * Express, its router and the body parsers, then this app's middlewares and guards (each adds
 * its own with `declareRequestFields` / `declareResponseFields` where it is defined).
 */
const requestFields = new FieldSet([
  'res',
  'next',
  'baseUrl',
  'originalUrl',
  '_parsedUrl',
  'params',
  'route',
  'body',
  // Inherited (0) until a stream listener is added; then own.
  '_eventsCount',
]);
const responseFields = new FieldSet(['locals', 'statusCode', 'statusMessage']);

/**
 * The symbol under which Express's router notes the matched route on each request. It is not
 * exported, so it is read from the router's own module, found from Express; if that ever
 * fails, requests simply get it later, as they would anyway.
 */
function routerMatchedRoute(): symbol | undefined {
  try {
    const fromExpress = createRequire(createRequire(import.meta.url).resolve('express'));
    const fromRouter = createRequire(fromExpress.resolve('router'));
    const { matchedRoute } = fromRouter('./lib/symbols.js') as { matchedRoute?: unknown };
    return typeof matchedRoute === 'symbol' ? matchedRoute : undefined;
  } catch {
    return undefined;
  }
}
const matched = routerMatchedRoute();
if (matched) requestFields.add(matched);

/** Declares a property that some layer adds to every request (see ShapedRequest). */
export function declareRequestFields(...keys: Key[]): void {
  for (const k of keys) requestFields.add(k);
}

/** Declares a property that some layer adds to every response (see ShapedRequest). */
export function declareResponseFields(...keys: Key[]): void {
  for (const k of keys) responseFields.add(k);
}

export function declaredFields(): { request: Key[]; response: Key[] } {
  return { request: requestFields.list(), response: responseFields.list() };
}

/**
 * A request that has, from its construction, every property the app's layers will give it, so
 * that Express's change of its prototype costs no new hidden class per property added later
 * (docs/performance.md#hidden-classes). What a property reads is unchanged; only `in` and
 * own-key listings see it earlier.
 */
export class ShapedRequest extends IncomingMessage {
  constructor(socket: Socket) {
    super(socket);
    requestFields.own(this);
  }
}

export class ShapedResponse<Req extends IncomingMessage = IncomingMessage> extends ServerResponse<Req> {
  /** `options`: what Node's server passes (highWaterMark, rejectNonStandardBodyWrites), typed or not. */
  constructor(req: Req, options?: object) {
    // @ts-expect-error Node's ServerResponse takes the server's options as a second argument.
    super(req, options);
    responseFields.own(this);
  }
}

/** Nest's Express adapter on a server that makes ShapedRequest and ShapedResponse objects. */
export class ShapedExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    // Nest's own server for what this app never asks for (TLS, Nest's closing and connection tracking).
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    const server: Server = createServer(
      { IncomingMessage: ShapedRequest, ServerResponse: ShapedResponse },
      this.getInstance(),
    );
    this.setHttpServer(server);
  }
}
