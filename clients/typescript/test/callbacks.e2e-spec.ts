import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../../src/modules/accounts/accounts.service.js';
import { startHttpPeer, type HttpPeer } from '../../../test/support/http-peer.js';
import { waitFor } from '../../../test/support/wait.js';
import { createClient, verifySignature } from '../src/index.js';
import { startService, type RunningService } from './service.js';

describe("verifySignature on the service's real callbacks", () => {
  let s: RunningService;
  let hooks: HttpPeer;

  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 204 }));
    s = await startService({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
  });
  afterAll(async () => {
    await s?.close();
    await hooks?.close();
  });

  it("accepts every callback of a send with the account's secret, and refuses them with another", async () => {
    const api = createClient({ baseUrl: s.url, apiKey: s.tenant.key });
    const sent = await api.sendSms({
      from: 'ACME',
      to: '260971234567',
      message: 'Hi',
      callback_url: `${hooks.url}/dlr`,
    });
    const calls = await waitFor(
      async () => {
        const mine = hooks.requests.filter(
          (r) => (r.json as { api_reference?: string } | undefined)?.api_reference === sent.api_reference,
        );
        return mine.some((r) => (r.json as { status: string }).status === 'DELIVERED') ? mine : null;
      },
      20_000,
      'the DELIVERED callback',
    );
    const secret = await s.t.app.get(AccountsService).callbackSecret(s.tenant.username);
    for (const call of calls) {
      const signed = {
        timestamp: call.headers['x-signature-timestamp'] as string,
        signature: call.headers['x-signature'] as string,
        rawBody: call.body,
      };
      expect(verifySignature({ secret, ...signed })).toBe(true);
      expect(verifySignature({ secret: `${secret}-other`, ...signed })).toBe(false);
    }
  });
});
