import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { queuedMessageIds, startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { ledgerTotals } from '../support/account-probes.js';
import {
  ledgerAmounts,
  messageCount,
  messagesOfRequest,
  sendRequestCount,
  sendRequestFields,
} from '../support/probes.js';

const SMS = '/api/v1/json/bulk/sms';
const A = '260971000001';
const B = '260971000002';

describe('preview routes and smart encoding', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, {
      balances: { sms: '10', email: '10', chat: '10' },
      prices: { sms: '0.25', email: '0.05', chat: '0.1' },
    });
  });
  afterAll(async () => t?.close());

  const post = (path: string, body: object, key = tenant.key) =>
    t.http().post(path).set('X-API-Key', key).send(body);
  /** Everything a send would leave behind for the account: requests, messages, ledger rows, queued jobs. */
  const traces = async (accountId: string) => {
    const [requests, messages, ledger] = await Promise.all([
      sendRequestCount(t, accountId),
      messageCount(t, accountId),
      ledgerTotals(t, { accountId }),
    ]);
    const queued = (
      await Promise.all(['sms', 'email', 'chat'].map((q) => queuedMessageIds(t.queue(q))))
    ).flat().length;
    return { requests, messages, ledger: ledger.n, total: ledger.total, queued };
  };

  it("counts a preview against the key's rate limit by its recipients (one request per 1,000) or its body (one per 4 KB), whichever is more", async () => {
    const limited = await createTenant(t, {
      balances: { sms: '10', email: '10', chat: '10' },
      key: { rateLimit: { limit: 12, windowSeconds: 300 } },
    });
    const numbers = (n: number) =>
      Array.from({ length: n }, (_, i) => `2609730${String(i).padStart(5, '0')}`);
    const small = await post(
      '/api/v1/json/bulk/sms/preview',
      { from: 'ACME', to: numbers(1), message: 'Hi' },
      limited.key,
    );
    expect(small.status).toBe(200);
    expect(small.headers['ratelimit-remaining']).toBe('11');
    // 2,500 recipients count as 3 requests by their number, and more by the body's size.
    const body = { from: 'ACME', to: numbers(2500), message: 'Hi' };
    const byBytes = Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 4096);
    expect(byBytes).toBeGreaterThan(3);
    const big = await post('/api/v1/json/bulk/sms/preview', body, limited.key);
    expect(big.status).toBe(200);
    expect(big.headers['ratelimit-remaining']).toBe(String(11 - byBytes));
    // Another large one would go over: refused as an over-limit send is.
    const over = await post(
      '/api/v1/json/bulk/email/preview',
      {
        from: 'noreply@acme.example.com',
        subject: 'Hi',
        to: numbers(1500).map((n) => `u${n}@example.com`),
        email_body: 'Hi',
      },
      limited.key,
    );
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMITED');
    expect(over.headers['retry-after']).toEqual(expect.any(String));
  });

  it('answers per recipient and in total, and stores, charges and queues nothing', async () => {
    const before = await traces(tenant.account.id);
    const res = await post(`${SMS}/preview`, {
      from: 'ACME',
      to: [A, B, '123'],
      message: 'Hi {{n}} 😀',
      variables: { [A]: { n: 'Jane' }, [B]: { n: 'x'.repeat(70) } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      recipients: [
        {
          recipient: A,
          status: 'ACKNOWLEDGED',
          encoding: 'UCS-2',
          characters: 9,
          segments: 1,
          units: 1,
          cost: 0.25,
        },
        {
          recipient: B,
          status: 'ACKNOWLEDGED',
          encoding: 'UCS-2',
          characters: 75,
          segments: 2,
          units: 2,
          cost: 0.5,
        },
        {
          recipient: '123',
          status: 'REJECTED',
          reason: 'INVALID_NUMBER',
          encoding: null,
          characters: 0,
          segments: 0,
          units: 0,
          cost: 0,
        },
      ],
      totals: {
        accepted: 2,
        rejected: 1,
        units: 3,
        cost: 0.75,
        currency: 'ZMW',
        balance: 10,
        sufficient: true,
      },
      non_gsm_characters: ['😀'],
    });
    expect(await traces(tenant.account.id)).toEqual(before);
  });

  it('costs exactly what the send then charges, recipient by recipient', async () => {
    const body = {
      from: 'ACME',
      to: [A, B],
      message: '{{t}}',
      variables: { [A]: { t: 'short' }, [B]: { t: 'y'.repeat(400) } },
    };
    const preview = await post(`${SMS}/preview`, body);
    const send = await post(SMS, body);
    expect(send.status).toBe(200);
    const rows = await messagesOfRequest(t, send.body.api_reference);
    expect(rows.map((r) => r.units)).toEqual(preview.body.recipients.map((r: { units: number }) => r.units));
    const [charge] = await ledgerAmounts(t, send.body.api_reference, 'charge');
    expect(-Number(charge)).toBe(preview.body.totals.cost);
  });

  it('says sufficient: false instead of refusing when the balance cannot pay', async () => {
    const poor = await createTenant(t, { balances: { sms: '0.1' }, prices: { sms: '0.25' } });
    const res = await post(`${SMS}/preview`, { from: 'ACME', to: [A], message: 'Hi' }, poor.key);
    expect(res.status).toBe(200);
    expect(res.body.totals).toMatchObject({ cost: 0.25, balance: 0.1, sufficient: false });
  });

  it('refuses what the send refuses, with the same error', async () => {
    const body = { from: 'this sender is far too long', to: [A], message: 'Hi' };
    const preview = await post(`${SMS}/preview`, body);
    const send = await post(SMS, body);
    expect(preview.status).toBe(400);
    expect(preview.body.error).toEqual(send.body.error);
  });

  it('previews e-mail and chat (1 segment, no encoding); chat checks its credentials first', async () => {
    const email = await post('/api/v1/json/bulk/email/preview', {
      from: 'news@acme.example',
      to: ['jane@example.com'],
      subject: 'S',
      email_body: '<p>Hi</p>',
    });
    expect(email.status).toBe(200);
    expect(email.body.recipients).toEqual([
      {
        recipient: 'jane@example.com',
        status: 'ACKNOWLEDGED',
        encoding: null,
        characters: 9,
        segments: 1,
        units: 1,
        cost: 0.05,
      },
    ]);
    const chatBody = { senderid: 260970000000, recipient: [A], message: 'Hi', username: tenant.username };
    const chat = await post('/api/v1/json/bulk/chat/preview', { ...chatBody, password: tenant.password });
    expect(chat.status).toBe(200);
    expect(chat.body.totals).toMatchObject({ accepted: 1, cost: 0.1 });
    const wrong = await post('/api/v1/json/bulk/chat/preview', { ...chatBody, password: 'wrong-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  describe('smart encoding', () => {
    const curly = '\u201CIt\u2019s ready\u201D \u2014 see you\u2026';

    it('turns look-alikes into GSM-7, lists what it replaced, and sends and stores the replaced text', async () => {
      const preview = await post(`${SMS}/preview`, {
        from: 'ACME',
        to: [A],
        message: curly,
        smart_encoding: true,
      });
      expect(preview.body.recipients[0]).toMatchObject({ encoding: 'GSM-7', segments: 1 });
      expect(preview.body.non_gsm_characters).toEqual([]);
      expect(preview.body.replaced).toEqual([
        { from: '\u201C', to: '"', count: 1 },
        { from: '\u2019', to: "'", count: 1 },
        { from: '\u201D', to: '"', count: 1 },
        { from: '\u2014', to: '-', count: 1 },
        { from: '\u2026', to: '...', count: 1 },
      ]);
      const send = await post(SMS, { from: 'ACME', to: [A], message: curly, smart_encoding: true });
      expect(send.status).toBe(200);
      expect(send.body.replaced).toEqual(preview.body.replaced);
      const req = await sendRequestFields(t, send.body.api_reference, 'body');
      expect(req.body).toBe('"It\'s ready" - see you...');
    });

    it('leaves the text as written when it would stay UCS-2 anyway (replaced is empty)', async () => {
      const text = `${curly} 😀`;
      const res = await post(`${SMS}/preview`, {
        from: 'ACME',
        to: [A],
        message: text,
        smart_encoding: true,
      });
      expect(res.body.replaced).toEqual([]);
      expect(res.body.recipients[0].encoding).toBe('UCS-2');
      expect(res.body.non_gsm_characters).toEqual(['\u201C', '\u2019', '\u201D', '\u2014', '\u2026', '😀']);
    });

    it('is off by default and then the answer has no replaced list', async () => {
      const res = await post(SMS, { from: 'ACME', to: [A], message: curly });
      expect(res.status).toBe(200);
      expect(res.body.replaced).toBeUndefined();
      const req = await sendRequestFields(t, res.body.api_reference, 'body');
      expect(req.body).toBe(curly);
    });

    it('applies per recipient after the variables are filled in', async () => {
      const res = await post(`${SMS}/preview`, {
        from: 'ACME',
        to: [A, B],
        message: 'Hi {{n}}',
        smart_encoding: true,
        variables: { [A]: { n: 'Jane\u2019s' }, [B]: { n: 'Zoë Ж' } },
      });
      expect(res.body.recipients.map((r: { encoding: string }) => r.encoding)).toEqual(['GSM-7', 'UCS-2']);
      expect(res.body.replaced).toEqual([{ from: '\u2019', to: "'", count: 1 }]);
      expect(res.body.non_gsm_characters).toEqual(['ë', 'Ж']);
    });

    it('follows the account default set with `accounts set --smart-encoding on`, which a request can turn off', async () => {
      const owner = await createTenant(t);
      const run = await runCli(testEnv(t.name), [
        'accounts',
        'set',
        '--username',
        owner.username,
        '--smart-encoding',
        'on',
        '--json',
      ]);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ username: owner.username, smart_encoding: true });
      const on = await post(`${SMS}/preview`, { from: 'ACME', to: [A], message: curly }, owner.key);
      expect(on.body.recipients[0].encoding).toBe('GSM-7');
      const off = await post(
        `${SMS}/preview`,
        { from: 'ACME', to: [A], message: curly, smart_encoding: false },
        owner.key,
      );
      expect(off.body.recipients[0].encoding).toBe('UCS-2');
      expect(off.body.replaced).toBeUndefined();
    });

    it('refuses a smart_encoding that is not a boolean', async () => {
      const res = await post(SMS, { from: 'ACME', to: [A], message: 'x', smart_encoding: 'yes' });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        { field: 'smart_encoding', message: 'smart_encoding must be a boolean value' },
      ]);
    });
  });
});
