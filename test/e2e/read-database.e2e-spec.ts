import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { balanceOf } from '../support/probes.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startTestApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * DATABASE_READ_URL: here a relay in front of the same server, so the test can take the read
 * side away and see which requests need it. Search and request summaries read through it;
 * sends, charges and state changes never do.
 */
describe('DATABASE_READ_URL (lag-tolerant reads elsewhere)', () => {
  const name = uniqueName();
  let relay: TcpProxy;
  let t: TestApp;
  let tenant: Tenant;
  const sms = (to: string) =>
    t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'hi' });
  const search = () =>
    t.http().get('/api/v1/json/messages?channel=sms&limit=10').set('X-API-Key', tenant.key);

  beforeAll(async () => {
    relay = await startTcpProxy({ host: '127.0.0.1', port: 3306 });
    t = await startTestApp({ DATABASE_READ_URL: `mysql://root@127.0.0.1:${relay.port}/${name}` }, name);
    tenant = await createTenant(t, { balances: { sms: '10' }, prices: { sms: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    await relay?.close();
  });

  it('search reads through DATABASE_READ_URL; sends are stored and charged without it', async () => {
    expect((await sms('260971000001')).status).toBe(200);
    const found = await waitFor(
      async () => {
        const res = await search();
        return res.status === 200 && res.body.data?.length === 1 ? res : undefined;
      },
      10_000,
      'the message found by search',
    );
    expect(found.body.data[0]).toMatchObject({ recipient: '260971000001' });

    await relay.close();
    try {
      const down = await search();
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('SERVICE_UNAVAILABLE');
      // The send path (idempotency, money, state) is on the main database only.
      expect((await sms('260971000002')).status).toBe(200);
      expect(Number(await balanceOf(t, tenant.account.id, 'sms'))).toBe(8);
    } finally {
      await relay.reopen();
    }
    await waitFor(
      async () => (await search()).body.data?.length === 2,
      15_000,
      'search back with both messages',
    );
  });
});
