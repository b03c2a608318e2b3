import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readIndex } from '../../src/modules/retention/message-archive.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { balanceOf } from '../support/probes.js';
import { ledgerEntries, requestLogsWithPath, suppressionCount } from '../support/account-probes.js';
import { outboxHolding, webhookDeliveriesHolding } from '../support/callback-probes.js';
import { accountMessages, messageFields, requestMessages } from '../support/message-probes.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const FINAL = ['DELIVERED', 'UNDELIVERED', 'EXPIRED', 'FAILED', 'REJECTED', 'CANCELLED'];
/** The recipient erased, and another recipient of the same requests, whose rows must stay. */
const R = '260971666001';
const OTHER = '260971666002';
const NUMBER = '260955066600';
/** Every text that was the recipient's own: none may be left anywhere once it is erased. */
const SECRETS = ['Archived secret 7f3a', 'Live secret 9c1e', 'Rosa', 'code 4411', 'Inbound secret 5d2b'];
const TEXT_TYPES = ['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'json'];
const BINARY_TYPES = ['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'];

/**
 * Erasure from the outside: a recipient with sends alone and in bulk (one personalised), signed
 * callbacks still being retried, receipts, an inbound message with its webhook event, an
 * idempotent send and a suppression removed over HTTP, a verification failed, partly archived,
 * every event logged for a webhook endpoint subscribed to all; then every column of
 * every table of the three databases and every archive file, decompressed, is searched for the
 * number and the texts.
 */
describe('erasing a recipient from every table and archive file', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;
  let webhookId: string;
  let archiveDir: string;
  let cliEnv: Record<string, string>;
  const databases = () => [t.name, `${t.name}_notification`, `${t.name}_log`];

  /** Runs a CLI command that must succeed; its `--json` answer parsed, when it was asked for. */
  const cli = async (...args: string[]) => {
    const r = await runCli(cliEnv, args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return args.includes('--json') ? (JSON.parse(r.stdout) as Record<string, any>) : {};
  };
  const finalCount = async (ref: string) =>
    (await requestMessages(t, ref, 'status')).filter((m) => FINAL.includes(m.status)).length;

  async function send(body: Record<string, unknown>, idempotencyKey?: string): Promise<string> {
    const req = t.http().post(SMS).set('X-API-Key', tenant.key);
    if (idempotencyKey) void req.set('Idempotency-Key', idempotencyKey);
    const res = await req.send({ from: 'ACME', ...body });
    expect(res.status).toBe(200);
    const ref = String(res.body.api_reference);
    const n = (body.to as string[]).length;
    await waitFor(async () => (await finalCount(ref)) === n, 15_000, 'final messages');
    return ref;
  }
  const personalised = (callback: string, key?: string) =>
    send(
      {
        to: [R, OTHER],
        message: 'Hi {{name}}, your {{what}}',
        variables: { [R]: { name: 'Rosa', what: 'code 4411' }, [OTHER]: { name: 'Otto', what: 'code 8800' } },
        callback_url: `${hooks.url}${callback}`,
      },
      key,
    );

  /** Rows of every text or binary column, in the three databases, that contain `needle`. */
  async function rowsHolding(needle: string): Promise<string[]> {
    const count = async (sql: string, params: unknown[]) =>
      Number(((await t.ds.query(sql, params)) as Array<{ n: string }>)[0].n);
    const columns = (await t.ds.query(
      `SELECT table_schema AS db, table_name AS tbl, column_name AS col, data_type AS type
         FROM information_schema.columns WHERE table_schema IN (?) AND data_type IN (?)`,
      [databases(), [...TEXT_TYPES, ...BINARY_TYPES]],
    )) as Array<{ db: string; tbl: string; col: string; type: string }>;
    expect(columns.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const c of columns) {
      // Suppression entries stay: they keep the number from being messaged again.
      if (c.tbl === 'suppressions') continue;
      const n = await count(`SELECT COUNT(*) AS n FROM \`${c.db}\`.\`${c.tbl}\` WHERE \`${c.col}\` LIKE ?`, [
        `%${needle}%`,
      ]);
      if (n) found.push(`${c.db}.${c.tbl}.${c.col}: ${n}`);
    }
    return found;
  }

  /** Every archive file, decompressed whole, by its path under the archive. */
  function archiveFiles(): Map<string, string> {
    const files = new Map<string, string>();
    for (const day of readdirSync(archiveDir))
      for (const f of readdirSync(join(archiveDir, day)))
        if (f.endsWith('.ndjson.gz'))
          files.set(`${day}/${f}`, gunzipSync(readFileSync(join(archiveDir, day, f))).toString('utf8'));
    return files;
  }

  /** Each file's members, as its day's index lists them, cover it whole and match their SHA-256 and row count. */
  async function verifyArchive(): Promise<void> {
    for (const day of readdirSync(archiveDir)) {
      const entries = await readIndex(archiveDir, day);
      for (const f of readdirSync(join(archiveDir, day)).filter((x) => x.endsWith('.ndjson.gz'))) {
        const bytes = readFileSync(join(archiveDir, day, f));
        const members = entries.filter((e) => e.file === `${day}/${f}`).sort((a, b) => a.offset - b.offset);
        expect(members.length, f).toBeGreaterThan(0);
        let end = 0;
        for (const m of members) {
          expect(m.offset, f).toBe(end);
          const member = bytes.subarray(m.offset, m.offset + m.bytes);
          expect(createHash('sha256').update(member).digest('hex'), f).toBe(m.sha256);
          const lines = gunzipSync(member).toString('utf8').split('\n').filter(Boolean);
          expect(lines.length, f).toBe(m.rows);
          end = m.offset + m.bytes;
        }
        expect(end, f).toBe(bytes.length);
      }
    }
  }

  beforeAll(async () => {
    hooks = await startHttpPeer();
    // '/ok' takes every callback; '/down' never does, so its events stay in the outbox, retried.
    // '/endpoint' (the webhook endpoint) takes every event, logged for it all the same.
    hooks.setHandler((req) => ({ status: /^\/(ok|endpoint)/.test(req.path) ? 204 : 503 }));
    archiveDir = mkdtempSync(join(tmpdir(), 'erasure-archive-'));
    const settings = {
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      ARCHIVE_DIR: archiveDir,
      RETENTION_BATCH: '3',
      RETENTION_PAUSE_MS: '0',
      // The CLI's inbound.received event waits on the outbox for a worker's sweep to queue it.
      SWEEP_INTERVAL_MS: '500',
    };
    t = await startTestApp(settings);
    cliEnv = { ...testEnv(t.name, settings), LOG_LEVEL: 'silent' };
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.5' } });
    await cli('numbers', 'add', '--username', tenant.username, '--number', NUMBER);
    await cli(
      'accounts',
      'webhook',
      '--username',
      tenant.username,
      '--inbound-url',
      `${hooks.url}/down/inbound`,
    );
    const endpoint = await t
      .http()
      .post('/api/v1/json/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: `${hooks.url}/endpoint`, events: ['*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    webhookId = String(endpoint.body.webhook_id);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
    if (archiveDir) rmSync(archiveDir, { recursive: true, force: true });
  });

  it('leaves neither the number nor its texts in any table or archive file, keeps other recipients and amounts, and the archive still verifies', async () => {
    // Sent, delivered, called back and archived.
    await send({ to: [R], message: SECRETS[0], callback_url: `${hooks.url}/ok` });
    await personalised('/ok');
    const callbacksDone = () => hooks.requests.filter((q) => q.path.startsWith('/ok')).length;
    await waitFor(async () => callbacksDone() >= 6, 15_000, 'callbacks of the archived messages');
    const archived = await cli(
      'db',
      'archive',
      '--before',
      new Date(Date.now() + 60_000).toISOString(),
      '--json',
    );
    expect(archived.removed.messages).toBe(3);

    // A verification to it (before it is suppressed), its code's message delivered, then failed
    // by five wrong codes (seven digits never match a code of six): its row and its
    // verification.failed event name the number.
    const auth = { 'X-API-Key': tenant.key };
    const started = await t.http().post('/api/v1/json/verify').set(auth).send({ to: R, from: 'ACME' });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const verification = String(started.body.verification_id);
    await waitFor(
      async () =>
        FINAL.includes((await messageFields(t, { uuid: started.body.message_id }, 'status')).status),
      15_000,
      "the code's message final",
    );
    for (let i = 0; i < 5; i++)
      expect(
        (await t.http().post(`/api/v1/json/verify/${verification}/check`).set(auth).send({ code: '0000000' }))
          .status,
      ).toBe(200);
    const shownBefore = await t.http().get(`/api/v1/json/verify/${verification}`).set(auth);
    expect(shownBefore.body).toMatchObject({ to: R, status: 'max_attempts_reached' });

    // Still in the tables: a send to it alone and a personalised one, both idempotent, whose
    // callbacks keep failing; an inbound message whose webhook event keeps failing too.
    await send({ to: [R], message: SECRETS[1], callback_url: `${hooks.url}/down` }, 'erase-alone');
    await personalised('/down', 'erase-bulk');
    const inbound = await cli(
      'inbound',
      'simulate',
      '--from',
      `+${R}`,
      '--to',
      NUMBER,
      '--text',
      SECRETS[4],
      '--json',
    );
    expect(inbound.inbound).toHaveLength(1);
    // A suppression added and removed over HTTP (its path names the number), then added again.
    expect(
      (
        await t
          .http()
          .post('/api/v1/json/suppressions')
          .set(auth)
          .send({ channel: 'sms', recipients: [R] })
      ).status,
    ).toBe(200);
    expect((await t.http().delete(`/api/v1/json/suppressions/sms/%2B${R}`).set(auth)).status).toBe(200);
    await cli('suppressions', 'add', '--username', tenant.username, '--channel', 'sms', '--recipient', R);

    await waitFor(async () => (await outboxHolding(t, R)) >= 5, 15_000, 'callback events kept for /down');
    await waitFor(
      async () => (await requestLogsWithPath(t, R)) === 1,
      15_000,
      'the request log of the suppression removed',
    );
    // The endpoint's log: each of the five messages' acceptance and final state (the code's
    // among them), the inbound message and the verification's outcome, delivered (the archived
    // messages' among them): none is left to be sent with the number.
    const logged = async () => {
      const rows = await webhookDeliveriesHolding(t, R);
      const of = (type: RegExp) => rows.filter((r) => type.test(r.type)).length;
      const seen = {
        accepted: of(/^message\.accepted$/),
        final: of(/^message\.(delivered|undelivered|expired|failed|rejected|cancelled)$/),
        inbound: of(/^inbound\.received$/),
        verification: of(/^verification\.failed$/),
        undelivered: rows.filter((r) => !r.delivered).length,
      };
      if (
        seen.accepted !== 5 ||
        seen.final !== 5 ||
        seen.inbound !== 1 ||
        seen.verification !== 1 ||
        seen.undelivered > 0
      )
        throw new Error(JSON.stringify({ seen, rows }));
      return true;
    };
    await waitFor(logged, 15_000, 'webhook events logged and delivered');
    // Before: the number and every text are found in the tables and in the archive.
    expect(await rowsHolding(R)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\.messages\.recipient: 3$/),
        expect.stringMatching(/\.inbound_messages\.sender: 1$/),
        expect.stringMatching(/\.verifications\.recipient: 1$/),
        expect.stringMatching(/\.callback_outbox\.job: /),
        expect.stringMatching(/\.webhook_deliveries\.envelope: /),
        expect.stringMatching(/\.idempotency_keys\.body: 2$/),
        expect.stringMatching(/\.request_logs\.path: 1$/),
      ]),
    );
    // (The first text left the tables with its request, archived: the archive keeps no text.)
    for (const secret of SECRETS.slice(1)) expect(await rowsHolding(secret), secret).not.toEqual([]);
    const before = archiveFiles();
    expect([...before.values()].join('\n')).toContain(R);
    expect([...before.values()].join('\n')).toContain(OTHER);

    const amounts = () => accountMessages(t, tenant.account.id, 'id', 'units', 'cost', 'status');
    const ledger = async () =>
      (await ledgerEntries(t, { accountId: tenant.account.id })).map(({ id, kind, amount }) => ({
        id,
        kind,
        amount,
      }));
    const others = async () =>
      (await accountMessages(t, tenant.account.id, 'id', 'recipient', 'body')).filter(
        (m) => m.recipient === OTHER,
      );
    const [amountsBefore, ledgerBefore, othersBefore, balanceBefore] = [
      await amounts(),
      await ledger(),
      await others(),
      await balanceOf(t, tenant.account.id),
    ];
    const outboxBefore = await outboxHolding(t, R);
    const deliveriesBefore = await webhookDeliveriesHolding(t, R);

    const answer = await cli(
      'accounts',
      'erase-recipient',
      '--username',
      tenant.username,
      '--recipient',
      `+${R}`,
      '--json',
    );
    expect(answer).toEqual({
      recipient: R,
      rows: {
        messages: 3,
        send_requests: 2,
        inbound_messages: 1,
        verifications: 1,
        callback_outbox: outboxBefore,
        webhook_deliveries: deliveriesBefore.length,
        idempotency_keys: 2,
        request_logs: 1,
        short_links: 0,
        archived_messages: 2,
      },
      archive_files: 1,
      total: 12 + outboxBefore + deliveriesBefore.length,
      pending: 0,
    });

    // After: nothing holds the number or a text of its own, but its suppression.
    expect(await rowsHolding(R)).toEqual([]);
    for (const secret of SECRETS) expect(await rowsHolding(secret), secret).toEqual([]);
    expect(await suppressionCount(t, tenant.account.id, R)).toBe(1);
    const after = archiveFiles();
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [file, text] of after) {
      expect(text, file).not.toContain(R);
      for (const secret of SECRETS) expect(text, file).not.toContain(secret);
    }
    // Only the messages file changed, line for line, the two lines to the number anonymised.
    for (const [file, text] of after)
      if (!file.endsWith('/messages.ndjson.gz')) expect(text, file).toBe(before.get(file));
    const lines = (s: string) =>
      s
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const messagesFile = [...after.keys()].find((f) => f.endsWith('/messages.ndjson.gz'))!;
    expect(lines(after.get(messagesFile)!)).toEqual(
      lines(before.get(messagesFile)!).map((m) => (m.recipient === R ? { ...m, recipient: 'erased' } : m)),
    );
    expect(lines(after.get(messagesFile)!).filter((m) => m.recipient === OTHER)).toHaveLength(1);
    await verifyArchive();

    // Other recipients' rows, amounts, states, the ledger and the balance are as they were.
    expect(await others()).toEqual(othersBefore);
    expect((othersBefore as Array<{ body: string }>).map((m) => m.body)).toEqual(['Hi Otto, your code 8800']);
    expect(await amounts()).toEqual(amountsBefore);
    expect(await ledger()).toEqual(ledgerBefore);
    expect(await balanceOf(t, tenant.account.id)).toBe(balanceBefore);

    // A replay of an idempotent send answers as first, with the number erased.
    const replay = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .set('Idempotency-Key', 'erase-alone')
      .send({ from: 'ACME', to: [R], message: SECRETS[1], callback_url: `${hooks.url}/down` });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.map((d: { mobile_number: string }) => d.mobile_number)).toEqual(['erased']);

    // A replay of a logged event about the number sends the envelope as rewritten.
    const event = deliveriesBefore.find((d) => d.type.startsWith('message.'))!.event_id;
    const sent = () => hooks.requests.filter((q) => q.path === '/endpoint' && q.body.includes(event));
    const sentBefore = sent().length;
    expect(sent()[0]!.body).toContain(R);
    const replayed = await t
      .http()
      .post(`/api/v1/json/webhooks/${webhookId}/deliveries/${event}/replay`)
      .set(auth);
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
    await waitFor(async () => sent().length > sentBefore, 15_000, 'the replayed event');
    const replayedBody = sent()[sentBefore]!;
    expect(replayedBody.json).toMatchObject({ event_id: event, data: { recipient: 'erased' } });
    expect(replayedBody.body).not.toContain(R);

    // The verification, as its account reads it, names the number no more; its outcome stays.
    const shown = await t.http().get(`/api/v1/json/verify/${verification}`).set(auth);
    expect(shown.body).toMatchObject({ to: 'erased', status: 'max_attempts_reached' });

    // The account's own route, again: nothing is left to change.
    const again = await t.http().post('/api/v1/json/recipients/erase').set(auth).send({ recipient: R });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ success: true, recipient: R, total: 0, archive_files: 0, pending: 0 });
  });
});
