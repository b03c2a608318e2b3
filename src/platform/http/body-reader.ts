import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { TextDecoder } from 'node:util';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import { AppException } from '../errors/app.exception.js';
import { sendError } from '../errors/error-body.js';
import { bodyTooLarge } from '../errors/http-refusals.js';
import { bodyLimitOf, type BodyLimits } from '../../config/body-limits.js';
import { jsonDepth } from './json-depth.js';

/**
 * Request bodies, read late and never past their route's limit.
 *
 * Express's body parsers read every body before routing, whoever sends it, and read a body
 * over the limit to its end before answering 413. Here:
 * 1. `refuseOversizedBodies` (a middleware, before routing) refuses a body whose Content-Length
 *    is over its route's limit (config/body-limits.ts) with 413 before reading a byte of it;
 * 2. the body is read only once the guards have let the request through (`loadBody`, from the
 *    last global guard): a request without a valid key, or from a key over its rate limit, is
 *    answered without its body being read. The rate limit counts the body's bytes
 *    (`bodyBytes`) before it is read;
 * 3. a body without a Content-Length (chunked) is counted as it arrives, and reading stops at
 *    the limit with 413;
 * 4. an answer sent while the body is still unread or cut off carries `Connection: close` and
 *    the connection is closed: the rest is never read (beyond a short linger, see LINGER_MS).
 * A client that asks `Expect: 100-continue` gets its 100 only when its body is about to be
 * read, so a refused body is never sent at all.
 */

interface BodyState {
  limit: number;
  maxJsonDepth: number;
  /** The client asked `Expect: 100-continue` and has not been told to go on yet. */
  awaitingContinue: boolean;
  raw?: Promise<Buffer>;
  loaded?: Promise<void>;
}

const states = new WeakMap<IncomingMessage, BodyState>();
const EMPTY = Buffer.alloc(0);

/** True when the request announces a body that is not empty. */
export function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function declaredLength(req: IncomingMessage): number | undefined {
  const length = req.headers['content-length'];
  // Node's parser refuses a malformed or repeated Content-Length, and a chunked body has none.
  return length === undefined || req.headers['transfer-encoding'] !== undefined ? undefined : Number(length);
}

function tooLarge(limit: number, size?: number): AppException {
  const { message, details } = bodyTooLarge(limit, size);
  return new AppException('PAYLOAD_TOO_LARGE', message, details);
}

/**
 * How long, and how much, a connection closed with its body unread goes on being read (and
 * thrown away) after the answer. Node destroys the socket as soon as the answer is written; a
 * socket destroyed with bytes still coming in answers them with a reset, and a client still
 * writing its body then often loses the answer it was sent (the "lingering close" of HTTP
 * servers). A few hundred KB or two seconds, whichever comes first, let the client read it;
 * the rest of the body is never read.
 */
const LINGER_MS = 2000;
const LINGER_BYTES = 256 * 1024;

/**
 * Any answer written while the request's body has not fully arrived closes the connection:
 * otherwise Node would read (and throw away) the rest to keep the connection for the next
 * request. The close lingers a little (LINGER_MS, LINGER_BYTES).
 */
function closeIfUnread(req: IncomingMessage, res: ServerResponse): void {
  unreadBodies.set(res, req);
  // On the response's prototype (Express's app.response), once: an own property on every
  // response would change its shape, and with it every call site that reads a response.
  const proto = Object.getPrototypeOf(res) as ServerResponse;
  if (closingProtos.has(proto)) return;
  closingProtos.add(proto);
  const writeHead = proto.writeHead;
  proto.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    const unread = unreadBodies.get(this);
    if (unread && !unread.complete && !this.headersSent) {
      this.setHeader('Connection', 'close');
      // Runs after Node's own 'finish' listener, which ended the socket and set it to be destroyed.
      this.once('finish', () => lingerClose(unread));
    }
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

/** The requests whose answer must close the connection while their body is still unread. */
const unreadBodies = new WeakMap<ServerResponse, IncomingMessage>();
const closingProtos = new WeakSet<object>();

function lingerClose(req: IncomingMessage): void {
  const socket = req.socket;
  if (socket.destroyed) return;
  socket.removeListener('finish', socket.destroy);
  const stop = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(stop, LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) stop();
  });
  req.resume();
}

/**
 * The first middleware that knows about bodies: notes the route's limit and refuses a body
 * whose Content-Length is over it, unread. Mount it before routing and before anything reads.
 */
export function refuseOversizedBodies(limits: BodyLimits, maxJsonDepth: number): RequestHandler {
  return (req: Request, res: Response, next) => {
    if (!announcesBody(req)) return next();
    const limit = bodyLimitOf(req.path, limits);
    const awaitingContinue = states.get(req)?.awaitingContinue ?? false;
    states.set(req, { limit, maxJsonDepth, awaitingContinue });
    closeIfUnread(req, res);
    const declared = declaredLength(req);
    if (declared !== undefined && declared > limit) {
      const e = tooLarge(limit, declared);
      sendError(req, res, e.status, e.code, e.message, e.details);
      return;
    }
    next();
  };
}

/**
 * Lowers the request's body limit to its route's in `limits` (a caller that may send fewer
 * recipients, such as a test key, gets limits sized for those), before the body is read:
 * a Content-Length over it is refused with 413 unread, a chunked body is cut there.
 */
export function lowerBodyLimit(req: IncomingMessage & { path: string }, limits: BodyLimits): void {
  const state = states.get(req);
  if (!state || state.raw) return;
  state.limit = Math.min(state.limit, bodyLimitOf(req.path, limits));
  const declared = declaredLength(req);
  if (declared !== undefined && declared > state.limit) throw tooLarge(state.limit, declared);
}

/**
 * Hands a request that asks `Expect: 100-continue` to the app without Node's automatic
 * `100 Continue`: the body reader sends it when it starts reading, so a body the app refuses
 * (too large, no key, over the rate limit) is never sent.
 */
export function deferContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    states.set(req, { limit: 0, maxJsonDepth: 0, awaitingContinue: true });
    server.emit('request', req, res);
  });
}

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The bytes the rate limit counts for this request's body: its Content-Length when it has one
 * (known before reading), else what was read (a chunked or compressed body is read first, within
 * its limit). 0 without a body.
 */
export async function bodyBytes(req: IncomingMessage): Promise<number> {
  if (!states.has(req) || !announcesBody(req)) return 0;
  const declared = declaredLength(req);
  if (declared !== undefined && req.headers['content-encoding'] === undefined) return declared;
  return (await rawBody(req)).length;
}

/** The request's body as bytes, decompressed, read once and at most its route's limit. */
export function rawBody(req: IncomingMessage): Promise<Buffer> {
  const state = states.get(req);
  if (!state || !announcesBody(req)) return Promise.resolve(EMPTY);
  return (state.raw ??= read(req, state));
}

function read(req: IncomingMessage, state: BodyState): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let decoder: Transform | undefined;
  if (encoding !== 'identity') {
    const make = DECODERS[encoding];
    if (!make)
      return Promise.reject(
        new AppException('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported.', [
          { field: 'Content-Encoding', message: 'must be gzip, deflate, br or identity' },
        ]),
      );
    decoder = make();
  }
  if (state.awaitingContinue) {
    state.awaitingContinue = false;
    (req as Request).res?.writeContinue();
  }
  const { limit } = state;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let received = 0;
    let settled = false;
    const source: Readable = decoder ?? req;
    const settle = (err: Error | undefined, body?: Buffer) => {
      if (settled) return;
      settled = true;
      req.off('data', onWire);
      req.off('error', onCut);
      req.off('close', onClose);
      source.off('data', onData);
      source.off('end', onEnd);
      decoder?.off('error', onUndecodable);
      if (err) {
        // Stop reading: the answer closes the connection (closeIfUnread) instead of draining it.
        req.unpipe();
        req.pause();
        decoder?.destroy();
        reject(err);
      } else resolve(body!);
    };
    // Bytes on the wire: a compressed body is limited before and after inflating.
    const onWire = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) settle(tooLarge(limit));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(undefined, Buffer.concat(chunks, size));
    const onCut = () =>
      settle(
        new AppException('MALFORMED_BODY', 'The request body was cut short.', [
          { field: 'body', message: 'incomplete' },
        ]),
      );
    const onClose = () => {
      if (!req.complete) onCut();
    };
    const onUndecodable = () =>
      settle(
        new AppException('MALFORMED_BODY', `The request body is not valid ${encoding} data.`, [
          { field: 'Content-Encoding', message: `the body does not decode as ${encoding}` },
        ]),
      );
    req.on('data', onWire);
    req.on('error', onCut);
    req.on('close', onClose);
    source.on('data', onData);
    source.on('end', onEnd);
    if (decoder) {
      decoder.on('error', onUndecodable);
      req.pipe(decoder);
    }
  });
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

function decodeText(req: Request, raw: Buffer, json: boolean): string {
  const charset = (CHARSET.exec(req.headers['content-type'] ?? '')?.[1] ?? 'utf-8').toLowerCase();
  let decoder: TextDecoder | undefined;
  if (!json || charset.startsWith('utf-')) {
    try {
      decoder = new TextDecoder(charset);
    } catch {
      decoder = undefined;
    }
  }
  if (!decoder)
    throw new AppException('UNSUPPORTED_MEDIA_TYPE', 'The request body charset is not supported.', [
      { field: 'Content-Type', message: `charset ${charset} is not supported` },
    ]);
  // TextDecoder drops a leading byte-order mark.
  return decoder.decode(raw);
}

function parseJson(text: string, maxDepth: number): unknown {
  if (text.length === 0) return {};
  // Strict, as express.json was: a document is an object or an array.
  const first = /\S/.exec(text)?.[0];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppException('MALFORMED_BODY', 'The request body is not valid JSON.');
  }
  // JSON, but not a document a route reads (null, a number, a string).
  if (first !== '{' && first !== '[') throw AppException.bodyNotObject();
  // JSON.parse copes with any depth, but class-transformer, class-validator and
  // JSON.stringify overflow the stack at a few thousand levels: past maxDepth it is not a
  // document we read.
  if (value !== null && typeof value === 'object' && jsonDepth(value, maxDepth) > maxDepth) {
    throw new AppException('MALFORMED_BODY', `The JSON body is nested more than ${maxDepth} levels deep.`, [
      { field: 'body', message: `nested more than ${maxDepth} levels` },
    ]);
  }
  return value;
}

/**
 * Reads and decodes the body into `req.body`, once: on the XML endpoint as text (parsed by its
 * controller), on the others as JSON when it says it is JSON (the JSON routes refuse any other
 * type earlier, with 415). Without a body, `req.body` is left as it is.
 */
export function loadBody(req: Request): Promise<void> {
  const state = states.get(req);
  if (!state || !announcesBody(req)) return Promise.resolve();
  return (state.loaded ??= rawBody(req).then((raw) => {
    if (req.path.startsWith('/api/v1/xml/')) req.body = decodeText(req, raw, false);
    else if (req.is('application/json')) req.body = parseJson(decodeText(req, raw, true), state.maxJsonDepth);
  }));
}
