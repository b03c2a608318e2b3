import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefusedTarget, safePost } from './safe-post.js';

// A real listener on loopback: a refused target must never see a connection, let alone a POST.
describe('safePost with an IP-literal host', () => {
  let server: Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume();
      res.writeHead(204).end();
    });
    server.on('connection', () => hits++);
    await new Promise<void>((r) => server.listen(0, '::', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((r) => server.close(() => r())));

  const post = (url: string, allowPrivate: boolean) =>
    safePost(url, '{}', {}, { timeoutMs: 2000, allowPrivate, httpsOnly: false });

  it('refuses literal loopback addresses before connecting when private networks are not allowed', async () => {
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::7f00:1]']) {
      await expect(post(`http://${host}:${port}/hook`, false), host).rejects.toBeInstanceOf(RefusedTarget);
    }
    expect(hits).toBe(0);
  });

  it('posts to the same literal address when private networks are allowed', async () => {
    await expect(post(`http://127.0.0.1:${port}/hook`, true)).resolves.toEqual({ status: 204 });
    expect(hits).toBeGreaterThan(0);
  });
});
