import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLICED_ABOVE } from '../../src/platform/http/json-slices.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { requestLogs } from '../support/account-probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';

describe('the api_reference of a request-log row', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ MAX_RECIPIENTS: String(SLICED_ABOVE + 1) });
    tenant = await createTenant(t, { balances: { sms: '100000' } });
  });
  afterAll(async () => t?.close());

  const loggedReference = (requestId: string) =>
    waitFor(
      async () => {
        const [row] = await requestLogs(t, { requestId }, 'api_reference');
        return row;
      },
      5000,
      `the row of ${requestId}`,
    );

  it('is the answer’s, for a single send and for one whose answer is written in slices', async () => {
    const to = Array.from({ length: SLICED_ABOVE + 1 }, (_, i) => String(260_970_000_000 + i));
    for (const [id, recipients] of [
      ['ref-single', to[0]],
      ['ref-sliced', to],
    ] as const) {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .set('X-Request-Id', id)
        .send({ from: 'ACME', to: recipients, message: 'hi' });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(Array.isArray(recipients) ? recipients.length : 1);
      expect((await loggedReference(id)).api_reference).toBe(String(res.body.api_reference));
    }
  });
});
