import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkClicks } from '../../src/modules/link-redirects/link-clicks.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { ageShortLink, linkRow, linksOfRequest } from '../support/link-probes.js';
import { messagesOfRequest } from '../support/probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { setMessageStatusDirectly } from '../support/direct-writes.js';

const SMS = '/api/v1/json/bulk/sms';
const BASE = 'https://s.acme.example/l';
const A = '260971555001';
const B = '260971555002';
/** 183 characters: the text with it is two GSM-7 segments, with its short link (35) one. */
const LONG_URL = `https://shop.acme.example/orders/${'a'.repeat(150)}`;
const BROWSER =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const FACEBOOK = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';

/** Short links from the outside: sends that shorten, the redirect, lookups, expiry and erasure. */
describe('short links', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ SHORT_LINK_BASE_URL: BASE });
    tenant = await createTenant(t, { prices: { sms: '0.25', chat: '0.5' } });
  });
  afterAll(async () => t?.close());

  const post = (path: string, body: Record<string, unknown>) =>
    t.http().post(path).set('X-API-Key', tenant.key).send(body);
  const follow = (code: string, agent = BROWSER) => t.http().get(`/l/${code}`).set('User-Agent', agent);
  const postXml = (message: string, shorten: string) =>
    t
      .http()
      .post('/api/v1/xml/bulk/sms')
      .set('X-API-Key', tenant.key)
      .set('Content-Type', 'application/xml')
      .send(
        `<request><from>ACME</from><to>${A}</to><message>${message}</message><source>API</source><shorten_links>${shorten}</shorten_links></request>`,
      );

  it('gives each recipient its own code per link, counted and priced as sent', async () => {
    const message = `Your order: ${LONG_URL} or see https://acme.example/help.`;
    const preview = await post(`${SMS}/preview`, { from: 'ACME', to: [A], message, shorten_links: true });
    expect(preview.status).toBe(200);
    const sent = `Your order: ${BASE}/xxxxxxxxxx or see ${BASE}/xxxxxxxxxx.`;
    expect(preview.body.recipients[0]).toMatchObject({ characters: sent.length, segments: 1, cost: 0.25 });
    const plain = await post(`${SMS}/preview`, { from: 'ACME', to: [A], message });
    expect(plain.body.recipients[0]).toMatchObject({ segments: 2, cost: 0.5 });

    const res = await post(SMS, { from: 'ACME', to: [A, B], message, shorten_links: true });
    expect(res.status).toBe(200);
    const ref = String(res.body.api_reference);
    expect((await messagesOfRequest(t, ref)).map((m) => [m.units, Number(m.cost)])).toEqual([
      [1, 0.25],
      [1, 0.25],
    ]);
    const links = await linksOfRequest(t, ref);
    expect(links.map((l) => [l.recipient, l.url])).toEqual([
      [A, LONG_URL],
      [A, 'https://acme.example/help'],
      [B, LONG_URL],
      [B, 'https://acme.example/help'],
    ]);
    expect(new Set(links.map((l) => l.code)).size).toBe(4);
    for (const l of links) expect(l.body).toContain(`${BASE}/${l.code}`);
    expect(links[0]!.body).toBe(`Your order: ${BASE}/${links[0]!.code} or see ${BASE}/${links[1]!.code}.`);
  });

  it('redirects with no-store and counts clicks, a link preview or HEAD apart; the lookup shows them', async () => {
    const res = await post(SMS, { from: 'ACME', to: [A], message: `Pay: ${LONG_URL}`, shorten_links: true });
    const messageId = String(res.body.data[0].message_id);
    const [link] = await linksOfRequest(t, String(res.body.api_reference));

    const preview = await follow(link!.code, FACEBOOK);
    expect(preview.status).toBe(302);
    expect(preview.headers.location).toBe(LONG_URL);
    const first = await follow(link!.code);
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe(LONG_URL);
    expect(first.headers['cache-control']).toBe('no-store');
    await follow(link!.code);
    // A HEAD is a link checker's, whatever its User-Agent: redirected, counted as a preview.
    const head = await t.http().head(`/l/${link!.code}`).set('User-Agent', BROWSER);
    expect([head.status, head.headers.location]).toEqual([302, LONG_URL]);
    // Counted in memory, written a second later (or now, when asked).
    await t.app.get(LinkClicks).flush();
    expect(await linkRow(t, link!.code)).toMatchObject({ clicks: 2, previews: 2 });

    const lookup = await t.http().get(`/api/v1/json/messages/${messageId}`).set('X-API-Key', tenant.key);
    expect(lookup.status).toBe(200);
    expect(lookup.body.links).toEqual([
      {
        url: LONG_URL,
        short_url: `${BASE}/${link!.code}`,
        clicks: 2,
        first_click_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    ]);
    const without = await post(SMS, { from: 'ACME', to: [A], message: 'No link' });
    const plain = await t
      .http()
      .get(`/api/v1/json/messages/${String(without.body.data[0].message_id)}`)
      .set('X-API-Key', tenant.key);
    expect(plain.body).not.toHaveProperty('links');
  });

  it('answers an unknown, malformed or expired code with a plain 404 page', async () => {
    const res = await post(SMS, {
      from: 'ACME',
      to: [A],
      message: 'https://acme.example/x',
      shorten_links: true,
    });
    const [link] = await linksOfRequest(t, String(res.body.api_reference));
    // (Not followed first: a process believes a row it has just read for a few seconds.)
    await ageShortLink(t, link!.code, 91);
    for (const code of [link!.code, 'Zz9Zz9Zz9Z', 'bad-code!', 'x'.repeat(40)]) {
      const gone = await follow(encodeURIComponent(code));
      expect(gone.status, code).toBe(404);
      expect(gone.headers['content-type']).toMatch(/^text\/html/);
      expect(gone.headers['cache-control']).toBe('no-store');
      expect(gone.text).toContain('Link not found');
    }
  });

  it('ignores a trailing slash and a query; other paths under /l/ get the API’s errors', async () => {
    const res = await post(SMS, {
      from: 'ACME',
      to: [A],
      message: 'https://acme.example/q',
      shorten_links: true,
    });
    const [link] = await linksOfRequest(t, String(res.body.api_reference));
    for (const path of [`${link!.code}/`, `${link!.code}?utm_source=x`]) {
      const r = await follow(path);
      expect([r.status, r.headers.location], path).toEqual([302, 'https://acme.example/q']);
    }
    for (const path of ['', `${link!.code}/more`]) {
      const r = await follow(path);
      expect([r.status, r.body.error?.code], path).toEqual([404, 'NOT_FOUND']);
    }
    const broken = await follow('%');
    expect([broken.status, broken.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('shortens personalised texts, XML sends and chat sends too', async () => {
    const personal = await post(SMS, {
      from: 'ACME',
      to: [A, B],
      message: 'Hi {{n}}: {{u}}',
      variables: { [A]: { n: 'Ann', u: 'https://a.example/1' }, [B]: { n: 'Bo', u: 'https://b.example/2' } },
      shorten_links: true,
    });
    expect(personal.status).toBe(200);
    const mine = await linksOfRequest(t, String(personal.body.api_reference));
    expect(mine.map((l) => [l.recipient, l.url])).toEqual([
      [A, 'https://a.example/1'],
      [B, 'https://b.example/2'],
    ]);
    expect(mine[0]!.body).toBe(`Hi Ann: ${BASE}/${mine[0]!.code}`);

    const xml = await postXml('See https://x.example/doc', 'true');
    expect(xml.status).toBe(200);
    const xmlRef = /<reference>(\d+)<\/reference>/.exec(xml.text)![1]!;
    expect((await linksOfRequest(t, xmlRef)).map((l) => l.url)).toEqual(['https://x.example/doc']);
    const wrong = await postXml('x', 'yes');
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('shorten_links must be true or false');

    const chat = await post('/api/v1/json/bulk/chat', {
      username: tenant.username,
      password: tenant.password,
      senderid: 260971000000,
      recipient: [A],
      message: 'Track it: https://track.example/p/9',
      shorten_links: true,
    });
    expect(chat.status).toBe(200);
    const [c] = await linksOfRequest(t, String(chat.body.reference));
    expect(c).toMatchObject({ url: 'https://track.example/p/9' });
    expect(c!.body).toBe(`Track it: ${BASE}/${c!.code}`);
  });

  it('removes a recipient’s links when the recipient is erased', async () => {
    const R = '260971555099';
    const res = await post(SMS, {
      from: 'ACME',
      to: [R, B],
      message: 'https://acme.example/e',
      shorten_links: true,
    });
    const ref = String(res.body.api_reference);
    // Erasure reaches final messages: this one is delivered, as a receipt would have it.
    await setMessageStatusDirectly(t, ref, R, 'DELIVERED');
    const links = await linksOfRequest(t, ref);
    const mine = links.find((l) => l.recipient === R);
    const other = links.find((l) => l.recipient === B);
    const erased = await post('/api/v1/json/recipients/erase', { recipient: R });
    expect(erased.status).toBe(200);
    expect(erased.body.rows.short_links).toBe(1);
    expect((await follow(mine!.code)).status).toBe(404);
    expect((await follow(other!.code)).status).toBe(302);
  });

  it('refuses shorten_links with 400 naming SHORT_LINK_BASE_URL when it is not set', async () => {
    const bare = await startTestApp();
    try {
      const tn = await createTenant(bare);
      const send = (shorten: boolean) =>
        bare
          .http()
          .post(SMS)
          .set('X-API-Key', tn.key)
          .send({ from: 'ACME', to: [A], message: 'https://acme.example', shorten_links: shorten });
      const res = await send(true);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.message).toContain('SHORT_LINK_BASE_URL');
      expect(res.body.error.details).toEqual([
        { field: 'shorten_links', message: 'SHORT_LINK_BASE_URL is not set on this service' },
      ]);
      // Asked for off, it is no problem.
      expect((await send(false)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});
