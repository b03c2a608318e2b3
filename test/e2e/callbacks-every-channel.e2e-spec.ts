import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { verifyCallback } from '../../src/modules/callbacks/signature.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { startHttpPeer, type HttpPeer, type PeerRequest } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { testEnv } from '../support/test-env.js';
import { waitFor } from '../support/wait.js';

interface Event {
  api_reference: string;
  message_id: string;
  channel: string;
  status: string;
  recipient: string;
}

/**
 * Delivery callbacks on every channel: a send's own callback_url on e-mail and chat as on SMS,
 * and the account's status-callback URL (`accounts webhook --status-url`) for sends that name
 * none, signed and recorded like any callback.
 */
describe('delivery callbacks on every channel', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;
  let env: Record<string, string>;

  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 204 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    env = testEnv(t.name, { CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true' });
    tenant = await createTenant(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const auth = () => ({ 'X-API-Key': tenant.key });
  const send = {
    sms: (extra: object = {}) =>
      t
        .http()
        .post('/api/v1/json/bulk/sms')
        .set(auth())
        .send({ from: 'ACME', to: '260971234567', message: 'Hi', ...extra }),
    email: (extra: object = {}) =>
      t
        .http()
        .post('/api/v1/json/bulk/email')
        .set(auth())
        .send({
          from: 'billing@acme.example',
          to: 'jane@example.com',
          subject: 'Hi',
          email_body: '<p>Hi</p>',
          ...extra,
        }),
    chat: (extra: object = {}) =>
      t
        .http()
        .post('/api/v1/json/bulk/chat')
        .set(auth())
        .send({
          username: tenant.username,
          password: tenant.password,
          senderid: '260971000000',
          recipient: ['260971234567'],
          message: 'Hi',
          ...extra,
        }),
  };
  const referenceOf = (body: { api_reference?: string; reference?: string }) =>
    String(body.api_reference ?? body.reference);
  const eventsOf = (ref: string, path: string) =>
    hooks.requests.filter((r) => r.path === path && (r.json as Event)?.api_reference === ref);
  const delivered = (ref: string, path: string) =>
    waitFor(
      async () => {
        const calls = eventsOf(ref, path);
        return calls.some((c) => (c.json as Event).status === 'DELIVERED') ? calls : null;
      },
      20_000,
      `DELIVERED callback of ${ref} at ${path}`,
    );
  const expectSigned = async (calls: PeerRequest[]) => {
    const secret = await t.app.get(AccountsService).callbackSecret(tenant.username);
    for (const c of calls) {
      expect(
        verifyCallback(
          secret,
          String(c.headers['x-signature-timestamp']),
          String(c.headers['x-signature']),
          c.body,
        ),
      ).toBe(true);
    }
  };

  it("posts e-mail and chat state changes, signed, to the send's own callback_url", async () => {
    const email = await send.email({ callback_url: `${hooks.url}/own` });
    const chat = await send.chat({ callback_url: `${hooks.url}/own` });
    expect([email.status, chat.status]).toEqual([200, 200]);
    const emailCalls = await delivered(referenceOf(email.body), '/own');
    const chatCalls = await delivered(referenceOf(chat.body), '/own');
    expect(emailCalls.map((c) => (c.json as Event).status).sort()).toEqual(['DELIVERED', 'SENT']);
    expect(emailCalls[0].json).toMatchObject({
      channel: 'email',
      recipient: 'jane@example.com',
      message_id: email.body.data[0].message_id,
    });
    expect(chatCalls[0].json).toMatchObject({ channel: 'chat', recipient: '260971234567' });
    await expectSigned([...emailCalls, ...chatCalls]);
  });

  it("posts every channel's state changes to the account's status-callback URL when a send names none; a send's own URL wins", async () => {
    const set = await runCli(env, [
      'accounts',
      'webhook',
      '--username',
      tenant.username,
      '--status-url',
      `${hooks.url}/account`,
      '--json',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ status_url: `${hooks.url}/account`, inbound_url: null });
    // The API reads the account through the key cache (1 s).
    await new Promise((r) => setTimeout(r, 1100));
    const sent = [await send.sms(), await send.email(), await send.chat()];
    const own = await send.sms({ callback_url: `${hooks.url}/own` });
    for (const res of [...sent, own]) expect(res.status).toBe(200);
    const calls = [];
    for (const res of sent) calls.push(...(await delivered(referenceOf(res.body), '/account')));
    expect(new Set(calls.map((c) => (c.json as Event).channel))).toEqual(new Set(['sms', 'email', 'chat']));
    await expectSigned(calls);
    await delivered(referenceOf(own.body), '/own');
    expect(eventsOf(referenceOf(own.body), '/account')).toEqual([]);

    const cleared = await runCli(env, [
      'accounts',
      'webhook',
      '--username',
      tenant.username,
      '--clear-status',
    ]);
    expect(cleared.code, cleared.stderr).toBe(0);
    const refused = await runCli(env, [
      'accounts',
      'webhook',
      '--username',
      tenant.username,
      '--status-url',
      'ftp://x.example',
    ]);
    expect(refused.code).toBe(2);
  });
});
