import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PeerRequest {
  method: string;
  /** Path with query string, as sent. */
  path: string;
  /** Lower-cased names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The raw body, byte for byte (UTF-8), for signature checks. */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** Date.now() when the body had been read. */
  at: number;
}

export interface PeerResponse {
  status: number;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
  headers?: OutgoingHttpHeaders;
  /** Wait this long before answering (to provoke client timeouts). */
  delayMs?: number;
}

export type PeerHandler = (req: PeerRequest) => PeerResponse | Promise<PeerResponse>;

export interface HttpPeer {
  port: number;
  /** http://127.0.0.1:<port> (no trailing slash). */
  url: string;
  requests: PeerRequest[];
  setHandler(fn?: PeerHandler): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (random port) that records every request and answers with
 * the handler's response; by default 200 `{ id: 'peer-<n>' }`, n counting requests from 1.
 */
export async function startHttpPeer(handler?: PeerHandler): Promise<HttpPeer> {
  const requests: PeerRequest[] = [];
  const defaultHandler: PeerHandler = () => ({ status: 200, body: { id: `peer-${requests.length}` } });
  let current: PeerHandler = handler ?? defaultHandler;
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      if (body.length > 0) {
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
      }
      const recorded: PeerRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        at: Date.now(),
      };
      requests.push(recorded);
      Promise.resolve()
        .then(() => current(recorded))
        .then(
          (answer) => {
            const respond = () => {
              if (res.destroyed) return;
              const headers: OutgoingHttpHeaders = { ...answer.headers };
              let payload: string | Buffer | undefined;
              if (answer.body === undefined) payload = undefined;
              else if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) payload = answer.body;
              else {
                payload = JSON.stringify(answer.body);
                headers['content-type'] ??= 'application/json';
              }
              res.writeHead(answer.status, headers);
              res.end(payload);
            };
            if (!answer.delayMs) return respond();
            const t = setTimeout(() => {
              timers.delete(t);
              respond();
            }, answer.delayMs);
            timers.add(t);
          },
          (err: unknown) => {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(`peer handler failed: ${String(err)}`);
          },
        );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler(fn?: PeerHandler) {
      current = fn ?? defaultHandler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        // Clients keep connections alive; without this close() would wait for them to time out.
        server.closeAllConnections();
      }),
  };
}
