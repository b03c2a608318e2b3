import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer.js';
import { startMailChatApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

describe('personalised messages reach the provider with their own text', () => {
  let t: TestApp;
  let tenant: Tenant;
  let smtp: SmtpPeer;
  let chatApi: HttpPeer;

  beforeAll(async () => {
    smtp = await startSmtpPeer();
    chatApi = await startHttpPeer(() => ({ status: 202, body: { id: `chat-${Date.now()}` } }));
    t = await startMailChatApp(smtp.url, `${chatApi.url}/send`, { CHAT_API_TOKEN: 'chat-token' });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await chatApi?.close();
  });

  it('sends each e-mail recipient its own subject and HTML-escaped body', async () => {
    const res = await t
      .http()
      .post('/api/v1/json/bulk/email')
      .set('X-API-Key', tenant.key)
      .send({
        from: 'news@acme.example',
        to: ['ann@example.com', 'bob@example.com'],
        subject: 'Hello {{name}}',
        email_body: '<p>Dear {{name}}</p>',
        variables: { 'ann@example.com': { name: 'Ann' }, 'bob@example.com': { name: 'Bob <b>' } },
      });
    expect(res.status).toBe(200);
    const ann = await waitFor(
      async () => smtp.messages.find((m) => m.to.includes('ann@example.com')),
      10_000,
      'ann',
    );
    const bob = await waitFor(
      async () => smtp.messages.find((m) => m.to.includes('bob@example.com')),
      10_000,
      'bob',
    );
    expect([ann.subject, ann.html]).toEqual(['Hello Ann', '<p>Dear Ann</p>']);
    expect([bob.subject, bob.html]).toEqual(['Hello Bob <b>', '<p>Dear Bob &lt;b&gt;</p>']);
  });

  it('posts each chat recipient its own text', async () => {
    const res = await t
      .http()
      .post('/api/v1/json/bulk/chat')
      .set('X-API-Key', tenant.key)
      .send({
        username: tenant.username,
        password: tenant.password,
        senderid: '260970000001',
        message: 'Order {{id}} is on its way',
        recipient: ['260971230001', '260971230002'],
        variables: { '260971230001': { id: 'A-1' }, '260971230002': { id: 'B-2' } },
      });
    expect(res.status).toBe(200);
    const texts = await waitFor(
      async () => {
        const calls = chatApi.requests.map((r) => r.json as { to: string; text: string });
        return calls.length >= 2 ? Object.fromEntries(calls.map((c) => [c.to, c.text])) : null;
      },
      10_000,
      'two chat posts',
    );
    expect(texts).toEqual({
      '260971230001': 'Order A-1 is on its way',
      '260971230002': 'Order B-2 is on its way',
    });
  });
});
