import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay on 127.0.0.1 in front of a real server (MySQL, an SMSC), so a test can make
 * that dependency hang or disappear while the app keeps its configuration:
 * - `hang()`: connections stay open but no byte passes either way (new ones are accepted and
 *   left waiting) until `resume()`;
 * - `close()`: stops listening and cuts every connection (ECONNREFUSED from then on) until
 *   `reopen()`, on the same port.
 */
export interface TcpProxy {
  port: number;
  hang(): void;
  resume(): void;
  close(): Promise<void>;
  reopen(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let hanging = false;
  let server: Server;

  const wire = (p: { client: Socket; upstream: Socket }) => {
    p.client.pipe(p.upstream);
    p.upstream.pipe(p.client);
  };
  const unwire = (p: { client: Socket; upstream: Socket }) => {
    p.client.unpipe(p.upstream);
    p.upstream.unpipe(p.client);
    p.client.pause();
    p.upstream.pause();
  };

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target);
        const pair = { client, upstream };
        pairs.add(pair);
        const drop = () => {
          pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
        if (hanging) unwire(pair);
        else wire(pair);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });

  const port = await listen(0);
  return {
    port,
    hang() {
      hanging = true;
      for (const p of pairs) unwire(p);
    },
    resume() {
      hanging = false;
      for (const p of pairs) wire(p);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
        pairs.clear();
      }),
    reopen: async () => {
      hanging = false;
      await listen(port);
    },
  };
}

/** A listener that accepts connections and never says a word: a hung provider. */
export async function startSilentListener(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined).on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
