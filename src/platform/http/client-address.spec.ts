import express from 'express';
import { describe, expect, it } from 'vitest';
import { pinClientAddress } from './client-address.js';

describe('pinClientAddress', () => {
  it("keeps express's req.ip for the rest of the request, read once", async () => {
    const app = express();
    app.set('trust proxy', ['loopback']);
    let reads = 0;
    app.use((req, _res, next) => {
      let proto = Object.getPrototypeOf(req) as object;
      while (!Object.getOwnPropertyDescriptor(proto, 'ip')) proto = Object.getPrototypeOf(proto) as object;
      const getter = Object.getOwnPropertyDescriptor(proto, 'ip')!.get!;
      Object.defineProperty(req, 'ip', {
        configurable: true,
        get() {
          reads++;
          return getter.call(this) as string;
        },
      });
      next();
    });
    app.use(pinClientAddress);
    app.get('/', (req, res) => {
      res.json([req.ip, req.ip, req.ip]);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'X-Forwarded-For': '203.0.113.7' } });
      expect(await res.json()).toEqual(['203.0.113.7', '203.0.113.7', '203.0.113.7']);
      expect(reads).toBe(1);
    } finally {
      server.close();
    }
  });
});
