import http from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON when the answer says it is JSON and parses, else undefined. */
  json: unknown;
}

export interface RawRequest {
  method: 'GET' | 'POST' | 'OPTIONS' | 'HEAD';
  path: string;
  headers?: Record<string, string | undefined>;
  body?: Buffer | string;
}

/** Listens once on a loopback port (supertest would listen anew for every request). */
export async function listen(server: Server): Promise<number> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export class RequestTimedOut extends Error {}

/**
 * One request with exactly the headers given (no Content-Type of its own, unlike supertest)
 * and a raw body. Fails with RequestTimedOut when no complete answer arrives within
 * `timeoutMs`: a hang is a finding, not a stuck test.
 */
export function rawRequest(port: number, req: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers ?? {})) if (v !== undefined) headers[k] = v;
    const body =
      req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    if (body !== undefined) headers['Content-Length'] = String(body.length);

    let settled = false;
    let timedOut = false;
    let finish: (() => void) | undefined;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    };

    const r = http.request(
      { host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        finish = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          if (/json/.test(String(res.headers['content-type'] ?? ''))) {
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        };
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish?.());
        // An early answer (413 before the body was read) may be followed by a reset while the
        // client is still writing: the answer already received is what counts.
        res.on('error', () => (timedOut ? undefined : finish?.()));
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      const err = new RequestTimedOut(
        `${req.method} ${req.path.slice(0, 80)}: no complete answer within ${timeoutMs} ms`,
      );
      fail(err);
      r.destroy(err);
    }, timeoutMs);
    r.on('error', (err) => (finish && !timedOut ? finish() : fail(err)));
    r.end(body);
  });
}
