import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { balanceOf, messagesOfRequest } from '../support/probes.js';
import { allCallbackAttempts } from '../support/callback-probes.js';
import { setCallbackUrlDirectly } from '../support/direct-writes.js';

const SMS = '/api/v1/json/bulk/sms';

describe('callback targets that are IP literals', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;

  beforeAll(async () => {
    hooks = await startHttpPeer();
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '1500',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'false',
      CALLBACK_BACKOFF_BASE_MS: '50',
    });
    tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  it('refuses the IPv4-compatible spellings of loopback at request time, charging nothing', async () => {
    for (const url of [`http://[::127.0.0.1]:${hooks.port}/dlr`, `http://[::7f00:1]:${hooks.port}/dlr`]) {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: '260971234567', message: 'hi', callback_url: url });
      expect(res.status, url).toBe(400);
      expect(res.body.error.code).toBe('INVALID_CALLBACK_URL');
      // The answer names the switch a developer testing a local receiver needs.
      expect(res.body.message).toContain('CALLBACK_ALLOW_PRIVATE_NETWORKS=true');
    }
    expect(Number(await balanceOf(t, tenant.account.id))).toBe(100);
  });

  it('sends no POST to a stored literal loopback URL and records the attempt as refused', async () => {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260971234567', message: 'hi' });
    expect(res.status).toBe(200);
    const ref = res.body.api_reference;
    // As if stored while private targets were allowed (or imported, or edited by hand).
    await setCallbackUrlDirectly(t, ref, `http://127.0.0.1:${hooks.port}/dlr`);
    const [m] = await messagesOfRequest(t, ref);
    const attempts = await waitFor(
      async () => {
        const rows = await allCallbackAttempts(t, { messageId: m.id });
        return rows.length > 0 ? rows : null;
      },
      15_000,
      'a recorded callback attempt',
    );
    expect(attempts.every((a) => a.outcome === 'refused')).toBe(true);
    expect(attempts[0].error).toMatch(/non-public/);
    expect(hooks.requests).toEqual([]);
  });
});
