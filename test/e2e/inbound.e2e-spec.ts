import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { verifyCallback } from '../../src/modules/callbacks/signature.js';
import { inboundFrom } from '../support/account-probes.js';
import { allMessagesCount, messagesTo, requestMessages } from '../support/message-probes.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { MYSQL_ROOT } from '../support/test-env.js';
import { waitFor } from '../support/wait.js';

/**
 * Two-way messaging and opt-out from the outside: numbers and inbound messages through the
 * CLI (`inbound simulate` takes the same path as an SMSC's deliver_sm), the inbound list,
 * webhook, suppression routes and sends over HTTP, with the workers running in the app.
 */
describe('inbound messages and opt-out', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let hooks: HttpPeer;
  let env: Record<string, string>;
  const LONG = '260970000100';
  const SHORT = '55555';

  const cli = async (...args: string[]) => {
    const r = await runCli(env, args);
    let json: any;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      json = undefined;
    }
    return { ...r, json };
  };
  const auth = (x: Tenant) => ({ Authorization: `Bearer ${x.key}` });
  const simulate = (from: string, to: string, text: string) =>
    cli('inbound', 'simulate', '--from', from, '--to', to, '--text', text, '--json');
  const sendSms = (x: Tenant, to: string[], message = 'Hello') =>
    t.http().post('/api/v1/json/bulk/sms').set(auth(x)).send({ from: 'ACME', to, message });
  const inbound = (x: Tenant, query = '') => t.http().get(`/api/v1/json/inbound${query}`).set(auth(x));

  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 200 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      SWEEP_INTERVAL_MS: '300',
      SWEEP_MIN_AGE_MS: '0',
      SANDBOX_DELIVERY_DELAY_MS: '50',
    });
    env = {
      DATABASE_URL: `${MYSQL_ROOT}/${t.name}`,
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      LOG_LEVEL: 'silent',
    };
    a = await createTenant(t, { prices: { sms: '1' } });
    b = await createTenant(t, { prices: { sms: '1' } });
    expect((await cli('numbers', 'add', '--username', a.username, '--number', `+${LONG}`)).code).toBe(0);
    expect(
      (await cli('numbers', 'add', '--username', a.username, '--number', SHORT, '--keyword', 'acme')).code,
    ).toBe(0);
    expect(
      (await cli('numbers', 'add', '--username', b.username, '--number', SHORT, '--keyword', 'BETA')).code,
    ).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  it('lists numbers and refuses a number or keyword that is already assigned', async () => {
    const list = await cli('numbers', 'list', '--json');
    expect(list.code).toBe(0);
    expect(list.json.numbers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ number: LONG, keyword: null, username: a.username }),
        expect.objectContaining({ number: SHORT, keyword: 'ACME', username: a.username }),
        expect.objectContaining({ number: SHORT, keyword: 'BETA', username: b.username }),
      ]),
    );
    const again = await cli(
      'numbers',
      'add',
      '--username',
      b.username,
      '--number',
      SHORT,
      '--keyword',
      'Acme',
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already assigned/);
    expect((await cli('numbers', 'add', '--username', b.username, '--number', 'abc')).code).toBe(2);
  });

  it('stores an inbound SMS with in_reply_to naming the last message the account sent to that number', async () => {
    const sent = await sendSms(a, ['260971111111']);
    expect(sent.status).toBe(200);
    const messageId = sent.body.data[0].message_id;
    const r = await simulate('260971111111', LONG, 'Hello back');
    expect(r.code).toBe(0);
    expect(r.json.inbound).toHaveLength(1);
    expect(r.json.inbound[0]).toMatchObject({
      from: '260971111111',
      to: LONG,
      text: 'Hello back',
      keyword: null,
      in_reply_to: messageId,
    });
    const list = await inbound(a, `?to=${LONG}`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { inbound_id: string }) => m.inbound_id)).toContain(
      r.json.inbound[0].inbound_id,
    );
    // B sees none of A's inbound messages.
    expect((await inbound(b, `?to=${LONG}`)).body.data).toEqual([]);
  });

  it('routes a shared short code by its keyword, in any case, and records the keyword', async () => {
    const r = await simulate('260972222222', SHORT, 'beta hello');
    expect(r.json.inbound).toHaveLength(1);
    expect(r.json.inbound[0].keyword).toBe('BETA');
    const list = await inbound(b, `?to=${SHORT}`);
    expect(list.body.data.at(-1)).toMatchObject({
      from: '260972222222',
      keyword: 'BETA',
      text: 'beta hello',
    });
    const unrouted = await simulate('260972222222', SHORT, 'no keyword here');
    expect(unrouted.code).toBe(1);
  });

  it('pages the inbound list with a cursor, oldest first, and refuses a limit over 1000', async () => {
    for (let i = 0; i < 3; i++) await simulate('260973333333', LONG, `page ${i}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await inbound(a, `?to=${LONG}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((m: { text: string }) => m.text));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen.filter((s) => s.startsWith('page '))).toEqual(['page 0', 'page 1', 'page 2']);
    expect((await inbound(a, '?limit=1001')).status).toBe(400);
    expect((await inbound(a, '?cursor=bogus')).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('checks an inbound cursor, not only its shape: another filter, another side or a made-up position is 400', async () => {
    for (let i = 0; i < 2; i++) await simulate('260973333334', LONG, `check ${i}`);
    const first = await inbound(a, `?to=${LONG}&limit=1`);
    const cursor = first.body.next_cursor as string;
    expect((await inbound(a, `?to=${LONG}&limit=1&cursor=${cursor}`)).status).toBe(200);
    const refused = async (query: string) => {
      const res = await inbound(a, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.details[0].field, query).toBe('cursor');
    };
    // Under another filter (or none) it would page another list.
    await refused(`?limit=1&cursor=${cursor}`);
    await refused(`?to=${LONG}&since=2026-01-01&limit=1&cursor=${cursor}`);
    // A well-formed cursor pointing past every message would read as the end of the list.
    const [, tag] = Buffer.from(cursor, 'base64url').toString().split(':');
    await refused(`?to=${LONG}&limit=1&cursor=${Buffer.from(`99999999999:${tag}`).toString('base64url')}`);
    // The older form, an id alone, is no longer one this list gives out.
    await refused(`?to=${LONG}&limit=1&cursor=${Buffer.from('1').toString('base64url')}`);
  });

  it('posts each inbound message to the account webhook, signed like delivery callbacks', async () => {
    const set = await cli(
      'accounts',
      'webhook',
      '--username',
      a.username,
      '--inbound-url',
      `${hooks.url}/in`,
      '--json',
    );
    expect(set.code).toBe(0);
    const r = await simulate('260974444444', LONG, 'webhook please');
    const id = r.json.inbound[0].inbound_id;
    // The CLI queues nothing itself, and says when a worker will: the default 15 s sweep after 2 s of grace.
    expect(r.json.pending).toEqual({
      webhooks: 1,
      webhooks_within_seconds: 17,
      auto_replies: 0,
      auto_replies_within_seconds: null,
    });
    const hit = await waitFor(
      async () => hooks.requests.find((q) => (q.json as { inbound_id?: string })?.inbound_id === id),
      20_000,
      'the inbound webhook',
    );
    expect(hit.json).toMatchObject({
      type: 'inbound.sms',
      inbound_id: id,
      from: '260974444444',
      to: LONG,
      text: 'webhook please',
      keyword: null,
      in_reply_to: null,
      test: false,
    });
    expect(hit.json).toHaveProperty('event_id');
    expect(hit.json).toHaveProperty('received_at');
    const secret = await t.app.get(AccountsService).callbackSecret(a.username);
    expect(
      verifyCallback(
        secret,
        String(hit.headers['x-signature-timestamp']),
        String(hit.headers['x-signature']),
        hit.body,
      ),
    ).toBe(true);
    const refused = await cli(
      'accounts',
      'webhook',
      '--username',
      a.username,
      '--inbound-url',
      'ftp://x.example',
    );
    expect(refused.code).toBe(2);
  });

  it('STOP suppresses the sender: a later send to it is REJECTED, SUPPRESSED and not charged; START lifts it', async () => {
    const stop = await simulate('260975555555', LONG, '  Stop! ');
    expect(stop.json.inbound[0].keyword).toBe('STOP');
    const list = await t.http().get('/api/v1/json/suppressions?channel=sms').set(auth(a));
    expect(list.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ recipient: '260975555555', reason: 'STOP_KEYWORD' }),
      ]),
    );
    const before = await balance(a);
    const sent = await sendSms(a, ['+260 97 555 5555', '260976666666']);
    expect(sent.status).toBe(200);
    expect(sent.body.data).toEqual([
      expect.objectContaining({ mobile_number: '260975555555', status: 'REJECTED', reason: 'SUPPRESSED' }),
      expect.objectContaining({ mobile_number: '260976666666', status: 'ACKNOWLEDGED' }),
    ]);
    expect(before - (await balance(a))).toBe(1);
    // The suppression is A's alone.
    expect((await sendSms(b, ['260975555555'])).body.data[0].status).toBe('ACKNOWLEDGED');
    // Every recipient suppressed: nothing to send, answered like a request without a valid recipient.
    const all = await sendSms(a, ['260975555555']);
    expect(all.status).toBe(400);
    expect(all.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'to[0]', message: 'SUPPRESSED' }],
    });

    const start = await simulate('260975555555', LONG, 'unstop');
    expect(start.json.inbound[0].keyword).toBe('START');
    expect((await sendSms(a, ['260975555555'])).body.data[0].status).toBe('ACKNOWLEDGED');
  });

  it('a STOP that comes while a scheduled message waits for its send_at stops it: REJECTED, SUPPRESSED and refunded at release', async () => {
    const suppressedCount = async () => {
      const text = (await t.http().get('/metrics')).text;
      return Number(/^bulk_suppressed_recipients_total\{channel="sms"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const countedBefore = await suppressedCount();
    const sendAt = new Date(Date.now() + 6000).toISOString();
    const before = await balance(a);
    const res = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set(auth(a))
      .send({
        from: 'ACME',
        to: ['260975550001', '260975550002'],
        message: 'Sale tomorrow',
        send_at: sendAt,
      });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { status: string }) => d.status)).toEqual(['SCHEDULED', 'SCHEDULED']);
    expect(before - (await balance(a))).toBe(2);
    expect((await simulate('260975550001', LONG, 'STOP')).json.inbound[0].keyword).toBe('STOP');
    const rows = await waitFor(
      async () => {
        const r = (await requestMessages(t, res.body.api_reference, 'recipient', 'status', 'reason')).sort(
          (x, y) => x.recipient.localeCompare(y.recipient),
        );
        return r.every((m) => !['SCHEDULED', 'ACKNOWLEDGED', 'SENT'].includes(m.status)) ? r : null;
      },
      30_000,
      'both scheduled messages settled',
    );
    expect(rows.map((r) => [r.recipient, r.status, r.reason])).toEqual([
      ['260975550001', 'REJECTED', 'SUPPRESSED'],
      ['260975550002', 'DELIVERED', null],
    ]);
    expect(before - (await balance(a))).toBe(1);
    expect((await suppressedCount()) - countedBefore).toBe(1);
  }, 60_000);

  it('a STOP to a shared short code that names no keyword suppresses for every account sharing it; HELP changes nothing', async () => {
    const help = await simulate('260977777777', SHORT, 'acme help');
    expect(help.json.inbound[0].keyword).toBe('HELP');
    const stop = await simulate('260977777777', SHORT, 'STOP');
    expect(stop.json.inbound).toHaveLength(2);
    for (const x of [a, b]) {
      const res = await sendSms(x, ['260977777777', '260978888888']);
      expect(res.body.data[0]).toMatchObject({ status: 'REJECTED', reason: 'SUPPRESSED' });
    }
  });

  it('sends the STOP auto-reply, charged, from the number written to, to the number it has just suppressed', async () => {
    const set = await cli(
      'accounts',
      'auto-reply',
      '--username',
      a.username,
      '--on-stop',
      'You will get no more messages.',
      '--json',
    );
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ on_stop: 'You will get no more messages.', on_start: null });
    const before = await balance(a);
    const stop = await simulate('260979999999', LONG, 'quit');
    // The default 10 s before the sweep takes a stored reply, plus its 15 s period.
    expect(stop.json.pending).toMatchObject({ auto_replies: 1, auto_replies_within_seconds: 25 });
    const [row] = await waitFor(
      async () => {
        const rows = await messagesTo(t, a.account.id, '260979999999');
        return rows.length ? rows : null;
      },
      60_000,
      'the auto-reply',
    );
    expect(row).toMatchObject({ sender: LONG, body: 'You will get no more messages.' });
    expect(row.status).not.toBe('REJECTED');
    expect(before - (await balance(a))).toBe(1);
    // Once only, however often the sweep looks.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await allMessagesCount(t, '260979999999')).toBe(1);
  }, 90_000);

  it('cannot be pumped: a STOP is confirmed only when it suppresses anew, STOP, HELP and START are answered once a day per sender (STOP/START cycles included), and a message from one of our own numbers gets no auto-reply', async () => {
    const set = await cli(
      'accounts',
      'auto-reply',
      '--username',
      a.username,
      '--on-stop',
      'Stopped.',
      '--on-start',
      'Welcome back.',
      '--on-help',
      'Call 0800 000 000.',
      '--json',
    );
    expect(set.code).toBe(0);
    const handset = '260979990001';
    const asker = '260979990002';
    for (const text of ['STOP', 'stop', 'START', 'Start', 'STOP', 'START', 'stop'])
      expect((await simulate(handset, LONG, text)).code).toBe(0);
    for (const text of ['HELP', 'Help me', 'HELP']) expect((await simulate(asker, LONG, text)).code).toBe(0);
    // One of the service's own numbers (another account's) writes in: possibly an auto-reply itself.
    const own = '260970000201';
    expect((await cli('numbers', 'add', '--username', b.username, '--number', own)).code).toBe(0);
    expect((await simulate(own, LONG, 'HELP')).code).toBe(0);
    const decided = await inboundFrom(t, a.account.id, [handset, asker, own], 'sender', 'text', 'reply_text');
    expect(decided.map((r) => [r.sender, r.text, r.reply_text])).toEqual([
      [handset, 'STOP', 'Stopped.'],
      [handset, 'stop', null],
      [handset, 'START', 'Welcome back.'],
      [handset, 'Start', null],
      // Suppressed anew, but confirmed once today already.
      [handset, 'STOP', null],
      [handset, 'START', null],
      [handset, 'stop', null],
      [asker, 'HELP', 'Call 0800 000 000.'],
      [asker, 'Help me', null],
      [asker, 'HELP', null],
      [own, 'HELP', null],
    ]);
    const sent = () => messagesTo(t, a.account.id, handset, asker, own);
    // The worker's inbound round runs every 300 ms here; the bound is for a machine under load.
    await waitFor(
      async () => ((await sent()).length >= 3 ? true : null),
      60_000,
      'the three auto-replies',
    ).catch(async (err: Error) => {
      const states = await t.ds.query(
        'SELECT sender, text, reply_state FROM inbound_messages WHERE sender IN (?) ORDER BY id',
        [[handset, asker, own]],
      );
      throw new Error(`${err.message}; replies stored: ${JSON.stringify(states)}`);
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await sent()).map((r) => [r.recipient, r.body]).sort()).toEqual([
      [handset, 'Stopped.'],
      [handset, 'Welcome back.'],
      [asker, 'Call 0800 000 000.'],
    ]);
  }, 120_000);

  it('answers a HELP from a number the account has suppressed: the reply answers that message', async () => {
    expect(
      (await cli('accounts', 'auto-reply', '--username', a.username, '--on-help', 'Call us.')).code,
    ).toBe(0);
    const number = '260979991001';
    const add = await t
      .http()
      .post('/api/v1/json/suppressions')
      .set(auth(a))
      .send({ channel: 'sms', recipients: [number] });
    expect(add.status).toBe(200);
    // Still refused for an ordinary send.
    const refused = await sendSms(a, [number]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ field: 'to[0]', message: 'SUPPRESSED' }]);
    expect((await simulate(number, LONG, 'HELP')).code).toBe(0);
    const [row] = await waitFor(
      async () => {
        const rows = await messagesTo(t, a.account.id, number);
        return rows.length ? rows : null;
      },
      60_000,
      'the HELP reply',
    );
    expect(row).toMatchObject({ sender: LONG, body: 'Call us.' });
    expect(row.status).not.toBe('REJECTED');
  }, 90_000);

  it('adds, lists with a cursor, and removes suppressions over HTTP, refusing what is not a recipient', async () => {
    const add = await t
      .http()
      .post('/api/v1/json/suppressions')
      .set(auth(b))
      .send({ channel: 'email', recipients: ['x1@Example.COM', 'x2@example.com', 'x3@example.com'] });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ success: true, added: 3 });
    const emails: string[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        status: number;
        body: { data: Array<{ recipient: string; reason: string }>; next_cursor: string | null };
      } = await t
        .http()
        .get(`/api/v1/json/suppressions?channel=email&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
        .set(auth(b));
      expect(page.status).toBe(200);
      emails.push(
        ...page.body.data.map((d: { recipient: string; reason: string }) => `${d.recipient}:${d.reason}`),
      );
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(emails).toEqual(['x1@example.com:MANUAL', 'x2@example.com:MANUAL', 'x3@example.com:MANUAL']);
    const del = await t.http().delete('/api/v1/json/suppressions/email/x2@example.com').set(auth(b));
    expect(del.body).toEqual({ success: true, removed: 1 });
    expect(
      (await t.http().delete('/api/v1/json/suppressions/email/x2@example.com').set(auth(b))).status,
    ).toBe(404);
    const bad = await t
      .http()
      .post('/api/v1/json/suppressions')
      .set(auth(b))
      .send({ channel: 'sms', recipients: ['12'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ field: 'recipients', message: 'INVALID_NUMBER' });
    expect(
      (
        await t
          .http()
          .post('/api/v1/json/suppressions')
          .set(auth(b))
          .send({ channel: 'fax', recipients: ['1'] })
      ).status,
    ).toBe(400);
    const email = await t
      .http()
      .post('/api/v1/json/bulk/email')
      .set(auth(b))
      .send({
        from: 'news@acme.example',
        to: ['x1@example.com', 'x2@example.com'],
        subject: 'Hi',
        email_body: '<p>Hi</p>',
      });
    expect(email.status).toBe(200);
    expect(email.body.data.map((d: { status: string }) => d.status)).toEqual(['REJECTED', 'ACKNOWLEDGED']);
  });

  it('manages suppressions from the CLI', async () => {
    const add = await cli(
      'suppressions',
      'add',
      '--username',
      b.username,
      '--channel',
      'sms',
      '--recipient',
      '+260 96 000 0001',
      '--recipient',
      '260960000002',
      '--json',
    );
    expect(add.code).toBe(0);
    expect(add.json).toMatchObject({ added: 2, recipients: ['260960000001', '260960000002'] });
    const list = await cli('suppressions', 'list', '--username', b.username, '--channel', 'sms', '--json');
    expect(list.json.suppressions.map((s: { recipient: string }) => s.recipient)).toEqual(
      expect.arrayContaining(['260960000001', '260960000002']),
    );
    const rm = await cli(
      'suppressions',
      'remove',
      '--username',
      b.username,
      '--channel',
      'sms',
      '--recipient',
      '260960000001',
      '--json',
    );
    expect(rm.json).toMatchObject({ removed: 1 });
    expect(
      (
        await cli(
          'suppressions',
          'add',
          '--username',
          b.username,
          '--channel',
          'email',
          '--recipient',
          'nope',
        )
      ).code,
    ).toBe(2);
  });

  async function balance(x: Tenant): Promise<number> {
    const res = await t
      .http()
      .post('/api/v1/json/balance')
      .set(auth(x))
      .send({ username: x.username, password: x.password });
    return Number(res.body.balances.sms.balance_value);
  }
});
