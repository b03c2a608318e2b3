import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkClicks } from '../../src/modules/link-redirects/link-clicks.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

interface Envelope {
  event_id: string;
  type: string;
  test: boolean;
  data: Record<string, unknown>;
}

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/**
 * The events other features hand to webhook endpoints: a verification's outcome
 * (verification.approved, verification.failed) and a followed short link (link.clicked), each
 * to the endpoints of the side (live or test) its key belongs to.
 */
describe('verification and short-link events to webhook endpoints', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;

  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 204 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      SHORT_LINK_BASE_URL: 'https://s.acme.example/l',
    });
    tenant = await createTenant(t, { test: true, prices: { sms: '0.25' } });
    const testKey = tenant.test!.key;
    for (const [key, path] of [
      [testKey, '/test-side'],
      [tenant.key, '/live-side'],
    ] as const) {
      const made = await t
        .http()
        .post('/api/v1/json/webhooks')
        .set('X-API-Key', key)
        .send({
          url: `${hooks.url}${path}`,
          events: ['verification.approved', 'verification.failed', 'link.clicked'],
        });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const events = (path: string) =>
    hooks.requests.filter((r) => r.path === path).map((r) => r.json as Envelope);
  const post = (path: string, body: object, key: string) =>
    t.http().post(path).set('X-API-Key', key).send(body);

  it('sends verification.approved for a right code and verification.failed after the fifth wrong one, never the code', async () => {
    const key = tenant.test!.key;
    const ok = await post('/api/v1/json/verify', { to: '260971777001' }, key);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    await post(`/api/v1/json/verify/${ok.body.verification_id}/check`, { code: ok.body.test_code }, key);
    const bad = await post('/api/v1/json/verify', { to: '260971777002' }, key);
    const wrong = bad.body.test_code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      await post(`/api/v1/json/verify/${bad.body.verification_id}/check`, { code: wrong }, key);
    const got = await waitFor(
      async () => {
        const list = events('/test-side').filter((e) => e.type.startsWith('verification.'));
        return list.length >= 2 ? list : null;
      },
      30_000,
      'the two verification events',
    );
    const byId = new Map(got.map((e) => [e.data.verification_id, e]));
    expect(byId.get(ok.body.verification_id)).toMatchObject({
      type: 'verification.approved',
      test: true,
      data: { to: '260971777001', status: 'approved', channel: 'sms' },
    });
    expect(byId.get(bad.body.verification_id)).toMatchObject({
      type: 'verification.failed',
      test: true,
      data: { status: 'max_attempts_reached' },
    });
    const raw = hooks.requests.map((r) => r.body).join('\n');
    expect(raw).not.toContain(ok.body.test_code);
    // The live side's endpoint hears nothing of a test key's verifications.
    expect(events('/live-side').filter((e) => e.type.startsWith('verification.'))).toEqual([]);
  }, 60_000);

  it('sends link.clicked for a person following a short link, and none for a link preview', async () => {
    const res = await post(
      '/api/v1/json/bulk/sms',
      {
        from: 'ACME',
        to: ['260971777003'],
        message: 'Track: https://shop.acme.example/o/1',
        shorten_links: true,
      },
      tenant.key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [row] = (await t.ds.query(
      'SELECT s.code FROM short_links s JOIN messages m ON m.id = s.message_id WHERE m.uuid = ?',
      [res.body.data[0].message_id],
    )) as Array<{ code: string }>;
    expect((await t.http().get(`/l/${row.code}`).set('User-Agent', 'facebookexternalhit/1.1')).status).toBe(
      302,
    );
    expect((await t.http().get(`/l/${row.code}`).set('User-Agent', BROWSER)).status).toBe(302);
    await t.app.get(LinkClicks, { strict: false }).flush();
    const [clicked] = await waitFor(
      async () => {
        const list = events('/live-side').filter((e) => e.type === 'link.clicked');
        return list.length ? list : null;
      },
      30_000,
      'the link.clicked event',
    );
    expect(clicked).toMatchObject({
      test: false,
      data: { code: row.code, url: 'https://shop.acme.example/o/1', message_id: res.body.data[0].message_id },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(events('/live-side').filter((e) => e.type === 'link.clicked')).toHaveLength(1);
  }, 60_000);
});
